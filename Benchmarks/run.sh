#!/usr/bin/env bash
# Prints Yrden's figures beside a direct stdio connection to the same upstream. A program, not a test:
# run it on purpose (`make bench`) on an otherwise idle machine; everything stays on loopback.
#
# Uses the team's shared harness (C echo upstream, stdio driver, sequential HTTP client, wrk script) from
# BENCH_DIR (default ../shared/bench), compiled into .build/bench. Needs: gcc, wrk, curl, jq.
# Knobs: DUR (wrk seconds, default 10), CALLS (sequential calls, default 2000), LIST_CALLS (default 300).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BENCH_DIR=${BENCH_DIR:-$ROOT/../shared/bench}
OUT=$ROOT/.build/bench
YRDEN=$ROOT/.build/release/yrden
DUR=${DUR:-10}; CALLS=${CALLS:-2000}; LIST_CALLS=${LIST_CALLS:-300}

[ -f "$BENCH_DIR/echo_upstream.c" ] || { echo "no benchmark harness at $BENCH_DIR (set BENCH_DIR)" >&2; exit 2; }
[ -x "$YRDEN" ] || { echo "build first: swift build -c release" >&2; exit 2; }
for tool in gcc wrk curl jq; do
  command -v "$tool" >/dev/null || { echo "installing $tool"; apt-get install -y -qq "$tool" >/dev/null; }
done
mkdir -p "$OUT"
for prog in echo_upstream stdio_driver mcp_seq; do
  [ "$OUT/$prog" -nt "$BENCH_DIR/$prog.c" ] || gcc -O2 -pthread -o "$OUT/$prog" "$BENCH_DIR/$prog.c"
done

PIDS=()
cleanup() { for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

kv() { sed -n "s/.*\b$2=\([^ ]*\).*/\1/p" <<< "$1" | head -n1; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
ms_now() { date +%s%3N; }
rss_kb() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }

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

# start CONFIG -> sets GW_PID, URL, READY_MS
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

session() {
  curl -si -X POST "$URL" -H 'Accept: application/json, text/event-stream' -H 'Content-Type: application/json' \
    -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}' \
    | tr -d '\r' | sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: //p'
}

wrk_rps() { # CONNS TOOL
  local line
  line=$(MCP_SESSION_ID=$SID MCP_TOOL=$2 wrk -t1 -c"$1" -d"${DUR}s" --timeout 10s -s "$BENCH_DIR/mcp_call.lua" "$URL" 2>&1 | grep '^RESULT' || true)
  echo "$(kv "$line" rps) $(kv "$line" bad_body)"
}

declare -A R
measure_gateway() { # LABEL TOOL CMD...
  local label=$1 tool=$2; shift 2
  config "$OUT/one.json" 1 "$@"
  start "$OUT/one.json"; R[$label.ready]=$READY_MS
  sleep 1; R[$label.rss_idle]=$(( $(rss_kb "$GW_PID") / 1024 ))
  SID=$(session)
  "$OUT/mcp_seq" -n 300 -s "$SID" -t "$tool" "$URL" >/dev/null
  local seq; seq=$("$OUT/mcp_seq" -n "$CALLS" -s "$SID" -t "$tool" "$URL" | grep '^RESULT')
  R[$label.c1_rps]=$(kv "$seq" rps); R[$label.p50]=$(kv "$seq" p50_us); R[$label.p99]=$(kv "$seq" p99_us)
  R[$label.errors]=$(kv "$seq" errors)
  read -r R[$label.c16] R[$label.bad16] < <(wrk_rps 16 "$tool")
  read -r R[$label.c64] R[$label.bad64] < <(wrk_rps 64 "$tool")
  R[$label.rss_load]=$(( $(rss_kb "$GW_PID") / 1024 ))
  stop
}

measure_direct() { # LABEL CMD...
  local label=$1; shift
  local out; out=$("$OUT/stdio_driver" -s "$CALLS" -p 100000 -w 16,64 -W 300 -T 120 -- "$@")
  local seq; seq=$(grep 'RESULT phase=sequential' <<< "$out")
  R[$label.c1_rps]=$(kv "$seq" rps); R[$label.p50]=$(kv "$seq" p50_us); R[$label.p99]=$(kv "$seq" p99_us)
  R[$label.c16]=$(grep 'window=16 ' <<< "$out" | grep RESULT | sed -n 's/.*rps=\([0-9.]*\).*/\1/p')
  R[$label.c64]=$(grep 'window=64 ' <<< "$out" | grep RESULT | sed -n 's/.*rps=\([0-9.]*\).*/\1/p')
}

measure_list() { # N -> tools/list p50/p99 over N upstreams with 8 padding tools each
  local n=$1
  config "$OUT/multi.json" "$n" "$OUT/echo_upstream" 8
  start "$OUT/multi.json"; R[list$n.ready]=$READY_MS
  sleep 1; R[list$n.rss_idle]=$(( $(rss_kb "$GW_PID") / 1024 ))
  SID=$(session)
  local seq; seq=$("$OUT/mcp_seq" -n "$LIST_CALLS" -s "$SID" -m tools/list "$URL" | grep '^RESULT')
  R[list$n.p50]=$(kv "$seq" p50_us); R[list$n.p99]=$(kv "$seq" p99_us)
  R[list$n.tools]=$(curl -s -X POST "$URL" -H "Mcp-Session-Id: $SID" -d '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' | jq '.result.tools | length')
  stop
}

echo "yrden $("$YRDEN" --version) on $(nproc) cores; wrk ${DUR}s per figure, $CALLS sequential calls" >&2
measure_direct direct_c "$OUT/echo_upstream" 0
measure_direct direct_demo "$YRDEN" demo-server
measure_gateway gw_c up0__echo "$OUT/echo_upstream" 0
measure_gateway gw_demo up0__echo "$YRDEN" demo-server
measure_list 10
measure_list 50

added() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", a - b }'; }
printf '\n%-34s %14s %14s %14s %14s\n' "tools/call echo" "direct C" "yrden → C" "direct demo" "yrden → demo"
row() { printf '%-34s %14s %14s %14s %14s\n' "$1" "$2" "$3" "$4" "$5"; }
row "calls/s, 1 client (sequential)" "${R[direct_c.c1_rps]}" "${R[gw_c.c1_rps]}" "${R[direct_demo.c1_rps]}" "${R[gw_demo.c1_rps]}"
row "calls/s, 16 clients" "${R[direct_c.c16]}" "${R[gw_c.c16]}" "${R[direct_demo.c16]}" "${R[gw_demo.c16]}"
row "calls/s, 64 clients" "${R[direct_c.c64]}" "${R[gw_c.c64]}" "${R[direct_demo.c64]}" "${R[gw_demo.c64]}"
row "p50 latency µs (1 client)" "${R[direct_c.p50]}" "${R[gw_c.p50]}" "${R[direct_demo.p50]}" "${R[gw_demo.p50]}"
row "p99 latency µs (1 client)" "${R[direct_c.p99]}" "${R[gw_c.p99]}" "${R[direct_demo.p99]}" "${R[gw_demo.p99]}"
row "added p50 / p99 µs" "" "$(added "${R[gw_c.p50]}" "${R[direct_c.p50]}") / $(added "${R[gw_c.p99]}" "${R[direct_c.p99]}")" "" \
  "$(added "${R[gw_demo.p50]}" "${R[direct_demo.p50]}") / $(added "${R[gw_demo.p99]}" "${R[direct_demo.p99]}")"
row "failed calls (seq / c16 / c64)" "" "${R[gw_c.errors]}/${R[gw_c.bad16]}/${R[gw_c.bad64]}" "" "${R[gw_demo.errors]}/${R[gw_demo.bad16]}/${R[gw_demo.bad64]}"
row "gateway RSS MB idle → after load" "" "${R[gw_c.rss_idle]} → ${R[gw_c.rss_load]}" "" "${R[gw_demo.rss_idle]} → ${R[gw_demo.rss_load]}"
row "start → ready ms" "" "${R[gw_c.ready]}" "" "${R[gw_demo.ready]}"
printf '\n%-34s %14s %14s\n' "tools/list (8 padding tools each)" "10 upstreams" "50 upstreams"
printf '%-34s %14s %14s\n' "tools listed" "${R[list10.tools]}" "${R[list50.tools]}"
printf '%-34s %14s %14s\n' "p50 / p99 µs" "${R[list10.p50]} / ${R[list10.p99]}" "${R[list50.p50]} / ${R[list50.p99]}"
printf '%-34s %14s %14s\n' "gateway RSS MB, idle upstreams" "${R[list10.rss_idle]}" "${R[list50.rss_idle]}"
printf '%-34s %14s %14s\n' "start → ready ms" "${R[list10.ready]}" "${R[list50.ready]}"
