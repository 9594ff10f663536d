# Sourced by the benchmark programs (run.sh, http_upstream.sh): paths, the harness build, and the helpers that
# start a gateway, open a session and drive it with the team's clients. Everything stays on loopback.
#
# Uses the harness in Benchmarks/harness (C echo upstream, stdio driver, sequential HTTP client, wrk script), or
# BENCH_DIR when set, compiled into .build/bench. Needs: gcc, wrk, curl, jq (installed when missing).
# Knobs: DUR (wrk seconds, default 10), CALLS (sequential calls, default 2000), YRDEN (the binary measured).
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH_DIR=${BENCH_DIR:-$ROOT/Benchmarks/harness}
OUT=$ROOT/.build/bench
YRDEN=${YRDEN:-$ROOT/.build/release/yrden}
DUR=${DUR:-10}; CALLS=${CALLS:-2000}

# prepare: checks the harness and the release binary, installs missing tools, compiles the C clients once.
prepare() {
  [ -f "$BENCH_DIR/echo_upstream.c" ] || { echo "no benchmark harness at $BENCH_DIR (set BENCH_DIR)" >&2; exit 2; }
  [ -x "$YRDEN" ] || { echo "build first: swift build -c release" >&2; exit 2; }
  local missing=()
  for tool in gcc wrk curl jq; do command -v "$tool" >/dev/null || missing+=("$tool"); done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "installing ${missing[*]}"
    local sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
  mkdir -p "$OUT"
  for prog in echo_upstream stdio_driver mcp_seq; do
    [ "$OUT/$prog" -nt "$BENCH_DIR/$prog.c" ] || gcc -O2 -pthread -o "$OUT/$prog" "$BENCH_DIR/$prog.c"
  done
}

# Every process a program starts is ended, by its PID, when the program exits.
PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

kv() { sed -n "s/.*\b$2=\([^ ]*\).*/\1/p" <<< "$1" | head -n1; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
ms_now() { date +%s%3N; }
rss_kb() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }
added() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", a - b }'; }

# config FILE N CMD [ARGS...]: N copies of one stdio upstream, named up0…
config() {
  local file=$1 n=$2; shift 2
  python3 - "$file" "$n" "$@" <<'PY'
import json, sys
file, n, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
servers = {f"up{i}": {"command": cmd[0], "args": cmd[1:]} for i in range(n)}
json.dump({"mcpServers": servers}, open(file, "w"))
PY
}

# start CONFIG -> a release yrden serving CONFIG on a free port; sets GW_PID, URL, READY_MS
start() {
  local port; port=$(free_port)
  local t0; t0=$(ms_now)
  "$YRDEN" serve --config "$1" --listen "127.0.0.1:$port" --log-level warning 2>>"$OUT/gateway.log" &
  GW_PID=$!; PIDS+=("$GW_PID")
  URL="http://127.0.0.1:$port/mcp"
  for _ in $(seq 1 2000); do
    if curl -sf "http://127.0.0.1:$port/readyz" >/dev/null 2>&1; then READY_MS=$(( $(ms_now) - t0 )); return; fi
    sleep 0.005
  done
  echo "gateway did not become ready" >&2; exit 1
}
stop() { kill -TERM "$GW_PID"; wait "$GW_PID" 2>/dev/null || true; }

# session -> the Mcp-Session-Id that URL mints on initialize (empty for a stateless server)
session() {
  curl -si -X POST "$URL" -H 'Accept: application/json, text/event-stream' -H 'Content-Type: application/json' \
    -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}' \
    | tr -d '\r' | sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: //p'
}

wrk_rps() { # CONNS TOOL -> "rps bad_bodies" at URL in session SID
  local line
  line=$(MCP_SESSION_ID=$SID MCP_TOOL=$2 wrk -t1 -c"$1" -d"${DUR}s" --timeout 10s -s "$BENCH_DIR/mcp_call.lua" "$URL" 2>&1 | grep '^RESULT' || true)
  echo "$(kv "$line" rps) $(kv "$line" bad_body)"
}

# R[LABEL.*]: every figure, by the label of what was measured.
declare -A R

# measure_seq LABEL TOOL: CALLS sequential tools/call TOOL at URL in session SID (after 300 warm-up calls):
# calls/s, p50, p99 and failed calls.
measure_seq() {
  local label=$1 tool=$2
  "$OUT/mcp_seq" -n 300 -s "$SID" -t "$tool" "$URL" >/dev/null
  local seq; seq=$("$OUT/mcp_seq" -n "$CALLS" -s "$SID" -t "$tool" "$URL" | grep '^RESULT')
  R[$label.c1_rps]=$(kv "$seq" rps); R[$label.p50]=$(kv "$seq" p50_us); R[$label.p99]=$(kv "$seq" p99_us)
  R[$label.errors]=$(kv "$seq" errors)
}

# measure_wrk LABEL TOOL: wrk at 16 and 64 connections (calls/s, bad bodies).
measure_wrk() {
  read -r R[$1.c16] R[$1.bad16] < <(wrk_rps 16 "$2")
  read -r R[$1.c64] R[$1.bad64] < <(wrk_rps 64 "$2")
}

# measure_calls LABEL TOOL: both of the above.
measure_calls() { measure_seq "$1" "$2"; measure_wrk "$1" "$2"; }
