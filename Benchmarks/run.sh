#!/usr/bin/env bash
# Prints Yrden's figures beside a direct stdio connection to the same upstream. A program, not a test:
# run it on purpose (`make bench`) on an otherwise idle machine; everything stays on loopback.
#
# Uses the harness in Benchmarks/harness through lib.sh (see there for the tools it needs and the DUR/CALLS knobs);
# LIST_CALLS (default 300) sets the tools/list calls. Ends with the HTTP-upstream rows (http_upstream.sh).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
LIST_CALLS=${LIST_CALLS:-300}
prepare

measure_gateway() { # LABEL TOOL CMD...
  local label=$1 tool=$2; shift 2
  config "$OUT/one.json" 1 "$@"
  start "$OUT/one.json"; R[$label.ready]=$READY_MS
  sleep 1; R[$label.rss_idle]=$(( $(rss_kb "$GW_PID") / 1024 ))
  SID=$(session)
  measure_calls "$label" "$tool"
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
  R[list$n.tools]=$(curl -s -X POST "$URL" -H "Mcp-Session-Id: $SID" -H 'Content-Type: application/json' \
    -H 'Accept: application/json, text/event-stream' -d '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' \
    | jq '.result.tools | length')
  stop
  # Each echo upstream offers echo, add and 8 padding tools: a figure over a shorter list measured nothing.
  if [ "${R[list$n.tools]}" != "$(( n * 10 ))" ]; then
    echo "tools/list over $n upstreams listed ${R[list$n.tools]} tools, not $(( n * 10 ))" >&2; exit 1
  fi
}

echo "yrden $("$YRDEN" --version) on $(nproc) cores; wrk ${DUR}s per figure, $CALLS sequential calls" >&2
measure_direct direct_c "$OUT/echo_upstream" 0
measure_direct direct_demo "$YRDEN" demo-server
measure_gateway gw_c up0__echo "$OUT/echo_upstream" 0
measure_gateway gw_demo up0__echo "$YRDEN" demo-server
measure_list 10
measure_list 50

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

echo
"$ROOT/Benchmarks/http_upstream.sh"
