-- wrk script of bench/orders.ts: every request is the same GET (the path and the Authorization header are
-- given on wrk's command line). When done, prints one JSON line with the requests, the time, the errors
-- (connection errors, timeouts, and answers that were not 2xx or 3xx), the bytes read and the latency
-- percentiles in microseconds.
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"duration_us":%d,"errors":%d,"bytes":%d,"p50_us":%d,"p99_us":%d,"max_us":%d}\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.status + e.timeout, summary.bytes,
    latency:percentile(50), latency:percentile(99), latency.max))
end
