#!/usr/bin/env bash
# Prints what tracing costs the gateway (issue 29's budget: tracing on, every call sampled, costs at most 10 µs
# more gateway CPU per call; off, nothing measurable). The same release binary and the same C echo upstream, two
# configs: no `telemetry` (off) and `telemetry.otlp` to a loopback OTLP sink with `sampleRatio` 1.0 (on). Each
# round starts the gateway with one config, opens a session, warms up (300 calls), then runs tools/call at 64
# connections (wrk, DUR/2 seconds; the gateway's CPU per call) and CALLS/2 sequential calls (p50); the configs
# alternate for ROUNDS rounds (default 3) and the medians are printed. With tracing on, the spans the gateway
# counted exported and dropped (`/metrics`) are printed too: a run that exported nothing measured nothing.
#
# Off against the binary before tracing existed: set PREVIOUS to that binary (e.g. a release build of the
# previous stop kept aside) and it is measured off in the same rounds; without it that row says so.
#
# The sink is python3's http.server answering every POST 200 with an empty protobuf body (it decodes nothing:
# its CPU is not the gateway's). A program, not a test: run it on purpose (`make bench` runs it).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
ROUNDS=${ROUNDS:-3}
PREVIOUS=${PREVIOUS:-}
prepare
[ -z "$PREVIOUS" ] || [ -x "$PREVIOUS" ] || { echo "PREVIOUS=$PREVIOUS is not an executable" >&2; exit 2; }

SINK_PORT=$(free_port)
python3 - "$SINK_PORT" <<'PY' 2>>"$OUT/otlp_sink.log" &
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

class Sink(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length") or 0))
        self.send_response(200)
        self.send_header("content-type", "application/x-protobuf")
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass

ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Sink).serve_forever()
PY
SINK_PID=$!; PIDS+=("$SINK_PID")
for _ in $(seq 1 200); do curl -s -X POST "http://127.0.0.1:$SINK_PORT/v1/traces" -o /dev/null -m 1 && break; sleep 0.02; done

python3 - "$OUT" "$OUT/echo_upstream" "http://127.0.0.1:$SINK_PORT" <<'PY'
import json, sys
out, upstream, sink = sys.argv[1:]
servers = {"up0": {"command": upstream, "args": ["0"]}}
json.dump({"mcpServers": servers}, open(f"{out}/tracing-off.json", "w"))
telemetry = {"otlp": {"endpoint": sink}, "sampleRatio": 1.0, "serviceName": "yrden-bench"}
json.dump({"telemetry": telemetry, "mcpServers": servers}, open(f"{out}/tracing-on.json", "w"))
PY

metric() { # NAME [LABELS] -> the sample's value in /metrics at BASE (0 when absent)
  curl -s "$BASE/metrics" | awk -v name="$1" -v labels="${2:-}" '
    $1 == name || (labels != "" && index($1, name "{") == 1 && index($1, labels) > 0) { v = $2 } END { print v + 0 }'
}

declare -A CPU P50 RPS
EXPORTED=(); DROPPED=()
LABELS=(off on); [ -z "$PREVIOUS" ] || LABELS+=(previous)
CURRENT=$YRDEN

run_round() { # LABEL
  local label=$1 config=tracing-off before line seq
  [ "$label" = on ] && config=tracing-on
  YRDEN=$CURRENT; [ "$label" = previous ] && YRDEN=$PREVIOUS
  start "$OUT/$config.json"
  SID=$(session)
  wait_for_tool up0__echo
  "$OUT/mcp_seq" -n 300 -s "$SID" -t up0__echo "$URL" >/dev/null
  before=$(cpu_ticks "$GW_PID")
  line=$(MCP_SESSION_ID=$SID MCP_TOOL=up0__echo wrk -t1 -c64 -d"$(( DUR / 2 ))s" --timeout 10s \
    -s "$BENCH_DIR/mcp_call.lua" "$URL" 2>&1 | grep '^RESULT' || true)
  [ "$(kv "$line" bad_body)" = 0 ] || { echo "tracing $label: calls failed: $line" >&2; exit 1; }
  CPU[$label]+="$(cpu_per_call $(( $(cpu_ticks "$GW_PID") - before )) "$(kv "$line" requests)") "
  RPS[$label]+="$(kv "$line" rps) "
  seq=$("$OUT/mcp_seq" -n $(( CALLS / 2 )) -W 100 -s "$SID" -t up0__echo "$URL" | grep '^RESULT')
  [ "$(kv "$seq" errors)" = 0 ] || { echo "tracing $label: sequential calls failed: $seq" >&2; exit 1; }
  P50[$label]+="$(kv "$seq" p50_us) "
  if [ "$label" = on ]; then
    # What the batch exporter has sent by now (it flushes every second; a last flush at shutdown is not counted).
    sleep 1.5
    EXPORTED+=("$(metric yrden_telemetry_spans_exported_total)")
    DROPPED+=("$(metric yrden_telemetry_spans_dropped_total 'reason="queue_full"')/$(metric yrden_telemetry_spans_dropped_total 'reason="export_failed"')")
  fi
  stop
}

for _ in $(seq 1 "$ROUNDS"); do
  for label in "${LABELS[@]}"; do run_round "$label"; done
done
YRDEN=$CURRENT
end_pid "$SINK_PID" 5; forget_pid "$SINK_PID"

median_of() { printf '%s\n' "$@" | sort -g | sed -n "$(( ($# + 1) / 2 ))p"; }
# shellcheck disable=SC2086 # the figures are space-separated on purpose
for label in "${LABELS[@]}"; do
  CPU[$label]=$(median_of ${CPU[$label]}); P50[$label]=$(median_of ${P50[$label]}); RPS[$label]=$(median_of ${RPS[$label]})
done
extra=$(awk -v a="${CPU[on]}" -v b="${CPU[off]}" 'BEGIN { printf "%.1f", a - b }')
within=$(awk -v e="$extra" 'BEGIN { print (e <= 10) ? "yes" : "no" }')
row() { printf '%-52s %12s %12s %12s %8s\n' "$@"; }
printf '\n'
row "budget (issue 29), yrden → C echo, $ROUNDS rounds" "off" "on (1.0)" "added" "within"
row "gateway CPU us per call, 64 conn. (budget: +10 us)" "${CPU[off]}" "${CPU[on]}" "$extra" "$within"
row "calls/s, 64 connections" "${RPS[off]}" "${RPS[on]}" "" ""
row "p50 us, 1 client" "${P50[off]}" "${P50[on]}" "" ""
row "spans exported by the end of each round (on)" "" "${EXPORTED[*]}" "" ""
row "spans dropped queue_full/export_failed (on)" "" "${DROPPED[*]}" "" ""
if [ -n "$PREVIOUS" ]; then
  diff=$(awk -v a="${CPU[off]}" -v b="${CPU[previous]}" 'BEGIN { printf "%.1f", a - b }')
  row "off against PREVIOUS, CPU us per call" "${CPU[previous]}" "${CPU[off]}" "$diff" ""
  row "off against PREVIOUS, calls/s 64 conn. / p50 us" "${RPS[previous]} / ${P50[previous]}" "${RPS[off]} / ${P50[off]}" "" ""
else
  row "off against the binary before tracing" "not measured: set PREVIOUS" "" "" ""
fi
