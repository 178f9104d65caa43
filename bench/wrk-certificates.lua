-- wrk script of bench/certificates.ts: every request asks for a random one of the seeded certificates
-- (ids of bench/certificates-seed.ts, benchCertificateId: PREFIX followed by n as 12 hex digits).
-- Arguments after `--`: PREFIX COUNT KIND (api | badge). When done, prints one JSON line with the
-- requests, the time, the errors (connection errors, timeouts, and answers that were not 2xx or 3xx) and
-- the latency percentiles in microseconds.
local threads = {}
local seed = 0

function setup(thread)
  seed = seed + 1
  thread:set("seed", seed)
  table.insert(threads, thread)
end

local prefix, count, kind

function init(args)
  prefix, count, kind = args[1], tonumber(args[2]), args[3]
  math.randomseed(os.time() * 1000 + seed)
end

function request()
  local id = prefix .. string.format("%012x", math.random(0, count - 1))
  if kind == "badge" then
    return wrk.format("GET", "/verify/" .. id .. "/badge.svg")
  end
  return wrk.format("GET", "/v1/certificates/" .. id)
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"duration_us":%d,"errors":%d,"p50_us":%d,"p99_us":%d,"max_us":%d}\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.status + e.timeout,
    latency:percentile(50), latency:percentile(99), latency.max))
end
