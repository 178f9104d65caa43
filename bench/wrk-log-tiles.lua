-- wrk script of bench/transparency-log.ts: every request asks for a random full level-0 hash tile or a
-- full entry bundle of the log (C2SP tlog-tiles paths: N in 3-digit elements, all but the last with x).
-- Arguments after `--`: PREFIX (`/log/` for certdesk and nginx alike) TILES (how many full tiles exist).
-- When done, prints one JSON line with the requests, the time, the errors and latency percentiles (µs).
local threads = {}
local seed = 0

function setup(thread)
  seed = seed + 1
  thread:set("seed", seed)
  table.insert(threads, thread)
end

local prefix, tiles

function init(args)
  prefix, tiles = args[1], tonumber(args[2])
  math.randomseed(os.time() * 1000 + seed)
end

local function encode(n)
  local parts = { string.format("%03d", n % 1000) }
  n = math.floor(n / 1000)
  while n > 0 do
    table.insert(parts, 1, string.format("x%03d", n % 1000))
    n = math.floor(n / 1000)
  end
  return table.concat(parts, "/")
end

function request()
  local n = math.random(0, tiles - 1)
  if math.random(0, 1) == 0 then
    return wrk.format("GET", prefix .. "tile/0/" .. encode(n))
  end
  return wrk.format("GET", prefix .. "tile/entries/" .. encode(n))
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"duration_us":%d,"errors":%d,"p50_us":%d,"p99_us":%d,"max_us":%d}\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.status + e.timeout,
    latency:percentile(50), latency:percentile(99), latency.max))
end
