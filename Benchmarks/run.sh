#!/usr/bin/env bash
# Prints Yrden's figures beside a direct stdio connection to the same upstream, and ends with the budgets the
# engine is held to (each figure, its budget, and whether it is within). A program, not a test: a missed budget
# is printed, never a failure; it fails only when a measurement is broken (a gateway that does not start or
# connect its upstreams, a listing with the wrong number of tools). Run it on purpose (`make bench`) on an
# otherwise idle machine; everything stays on loopback.
#
# Uses the harness in Benchmarks/harness through lib.sh (see there for the tools it needs and the DUR/CALLS knobs);
# LIST_CALLS (default 300) sets the tools/list calls over 10 and 50 upstreams; FLEET (default 200) stdio
# upstreams with FLEET_TOOLS (default 50) padding tools each are started once for the start-up, memory, thread
# and full-listing figures, over FLEET_LISTINGS (default 50) whole listings. The tool search index of search mode
# is measured in process (yrden-search-bench). Ends with the HTTP-upstream rows (http_upstream.sh), then the
# budgets, then the event loop's figures under the heavy operator paths against theirs (loop_lag.sh).
# Between the HTTP-upstream rows and the budgets: 3 replicas behind HAProxy against one gateway (replicas.sh), and
# what an OAuth access token costs over a static client token (resource_auth.sh), and what tracing costs on and
# off (telemetry.sh).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
LIST_CALLS=${LIST_CALLS:-300}
FLEET=${FLEET:-200}; FLEET_TOOLS=${FLEET_TOOLS:-50}; FLEET_LISTINGS=${FLEET_LISTINGS:-50}
prepare
raise_open_files $(( FLEET * 8 + 256 ))

measure_gateway() { # LABEL TOOL CMD...
  local label=$1 tool=$2; shift 2
  config "$OUT/one.json" 1 "$@"
  start "$OUT/one.json"; R[$label.ready]=$READY_MS
  sleep 1; R[$label.rss_idle]=$(( $(rss_kb "$GW_PID") / 1024 ))
  SID=$(session)
  CPU_PID=$GW_PID measure_calls "$label" "$tool"
  R[$label.rss_load]=$(( $(rss_kb "$GW_PID") / 1024 ))
  stop
}


# measure_floor: CALLS sequential requests from the same client to a bare HTTP server (Benchmarks/harness/http_floor.c)
# that answers each at once: what TCP on loopback and two processes waking each other cost, with no gateway.
measure_floor() {
  local port out; port=$(free_port)
  "$OUT/http_floor" "$port" & local pid=$!; PIDS+=("$pid")
  for _ in $(seq 1 200); do curl -s "http://127.0.0.1:$port/" -o /dev/null -m 1 && break; sleep 0.01; done
  out=$("$OUT/mcp_seq" -n "$CALLS" -W 100 -t echo "http://127.0.0.1:$port/mcp" | grep '^RESULT')
  R[floor.p50]=$(kv "$out" p50_us); R[floor.p99]=$(kv "$out" p99_us)
  end_pid "$pid" 5; forget_pid "$pid"
}

# list_all LABEL EXPECTED LISTINGS: LISTINGS whole tools/list (every page) at URL in session SID, after a tenth as
# many (at least 3) warm-up listings; LABEL.p50/p99 in µs, LABEL.tools and LABEL.pages of one listing. A listing that fails or does not
# count EXPECTED tools measured nothing: the program stops.
list_all() {
  local label=$1 expected=$2 listings=$3 out seq
  out=$("$OUT/mcp_seq" -a -e "$expected" -n "$listings" -W $(( listings > 30 ? listings / 10 : 3 )) -T 300 -s "$SID" -m tools/list "$URL") || {
    echo "tools/list at $URL: $(grep -E '^(RESULT|FIRST_BAD)' <<< "$out" | tr '\n' ' ')" >&2; exit 1
  }
  seq=$(grep '^RESULT' <<< "$out")
  R[$label.p50]=$(kv "$seq" p50_us); R[$label.p99]=$(kv "$seq" p99_us)
  R[$label.tools]=$(kv "$seq" items); R[$label.pages]=$(kv "$seq" pages)
}

measure_list() { # N -> tools/list p50/p99 over N upstreams with 8 padding tools each
  local n=$1
  WITH_PROFILE=1 config "$OUT/multi.json" "$n" "$OUT/echo_upstream" 8
  start "$OUT/multi.json"; R[list$n.ready]=$READY_MS
  sleep 1; R[list$n.rss_idle]=$(( $(rss_kb "$GW_PID") / 1024 ))
  SID=$(session)
  # Each echo upstream offers echo, add and 8 padding tools: a figure over a shorter list measured nothing.
  list_all "list$n" $(( n * 10 )) "$LIST_CALLS"
  # The same servers through the profile "all" (issue 13: a profile's tools/list costs what /mcp's does); it
  # leaves out up0's 8 padding tools.
  URL="$BASE/mcp/all"; SID=$(session)
  list_all "profile$n" $(( n * 10 - 8 )) "$LIST_CALLS"
  URL="$BASE/mcp"
  stop
}

# measure_fleet: FLEET stdio upstreams with FLEET_TOOLS padding tools each. Ready is every upstream connected,
# from the process start (the readiness poller reads /healthz every 5 ms); memory and threads are read then.
measure_fleet() {
  local expected=$(( FLEET * (FLEET_TOOLS + 2) )) out connected
  config "$OUT/fleet.json" "$FLEET" "$OUT/echo_upstream" "$FLEET_TOOLS"
  launch "$OUT/fleet.json"
  out=$("$OUT/wait_connected" -N "$FLEET" -S "$T0" -P "$GW_PID" -T 60 "$BASE/healthz" 2>&1) || {
    echo "a gateway with $FLEET stdio upstreams did not connect them all: $out (see $OUT/gateway.log)" >&2
    exit 1
  }
  R[fleet.ready]=$(kv "$out" ready_ms)
  R[fleet.rss_ready]=$(( $(rss_kb "$GW_PID") / 1024 ))
  R[fleet.threads]=$(threads "$GW_PID")
  R[fleet.thread_names]=$(thread_names "$GW_PID")
  R[fleet.fds]=$(find /proc/"$GW_PID"/fd -mindepth 1 -maxdepth 1 | wc -l)
  # The admin API agrees: every server connected, each with its echo, add and padding tools.
  connected=$(curl -sf "$BASE/api/v1/servers" | jq --argjson tools $(( FLEET_TOOLS + 2 )) \
    '[.servers[] | select(.state == "connected" and .counts.tools == $tools)] | length') || true
  if [ "$connected" != "$FLEET" ]; then
    echo "the admin API shows $connected of $FLEET servers connected with $(( FLEET_TOOLS + 2 )) tools" >&2; exit 1
  fi
  SID=$(session)
  list_all fleet.list "$expected" "$FLEET_LISTINGS"
  R[fleet.rss_listed]=$(( $(rss_kb "$GW_PID") / 1024 )); R[fleet.threads_listed]=$(threads "$GW_PID")
  stop
  # A restart on the same data directory reads the pin file the first run wrote (every tool pinned).
  [ -s "$OUT/data/tool-pins.json" ] || { echo "the fleet's first run left no pin file in $OUT/data" >&2; exit 1; }
  launch "$OUT/fleet.json"
  out=$("$OUT/wait_connected" -N "$FLEET" -S "$T0" -P "$GW_PID" -T 60 "$BASE/healthz" 2>&1) || {
    echo "after a restart, a gateway with $FLEET stdio upstreams did not connect them all: $out" >&2; exit 1
  }
  R[fleet.rss_restart]=$(( $(rss_kb "$GW_PID") / 1024 ))
  stop
}

# measure_eras: on one gateway in front of the C echo server, a handshake session's tools/call and a stateless
# (2026-07-28) one, alternated over 3 rounds of wrk at 1 and at 64 connections; medians of p50 at one connection,
# calls/s and gateway CPU per call at 64. LABEL.{session,stateless}.{p50,c64,cpu64}.
measure_eras() {
  config "$OUT/one.json" 1 "$OUT/echo_upstream" 0
  start "$OUT/one.json"; SID=$(session)
  local era round line before p50s c64s cpus
  for era in session stateless; do eval "p50_$era=(); c64_$era=(); cpu_$era=()"; done
  for round in 1 2 3; do
    for era in session stateless; do
      local modern=""; [ "$era" = stateless ] && modern=1
      line=$(MCP_MODERN=$modern MCP_SESSION_ID=$SID MCP_TOOL=up0__echo wrk -t1 -c1 -d"$(( DUR / 2 ))s" --timeout 10s \
        -s "$BENCH_DIR/mcp_call.lua" "$URL" 2>&1 | grep '^RESULT' || true)
      [ "$(kv "$line" bad_body)" = 0 ] || { echo "eras: $era calls failed: $line" >&2; exit 1; }
      eval "p50_$era+=($(kv "$line" p50_us))"
      before=$(cpu_ticks "$GW_PID")
      line=$(MCP_MODERN=$modern MCP_SESSION_ID=$SID MCP_TOOL=up0__echo wrk -t1 -c64 -d"$(( DUR / 2 ))s" --timeout 10s \
        -s "$BENCH_DIR/mcp_call.lua" "$URL" 2>&1 | grep '^RESULT' || true)
      [ "$(kv "$line" bad_body)" = 0 ] || { echo "eras: $era calls failed: $line" >&2; exit 1; }
      eval "c64_$era+=($(kv "$line" rps))"
      eval "cpu_$era+=($(cpu_per_call $(( $(cpu_ticks "$GW_PID") - before )) "$(kv "$line" requests)"))"
    done
  done
  for era in session stateless; do
    eval "R[eras.$era.p50]=\$(median \"\${p50_$era[@]}\")"
    eval "R[eras.$era.c64]=\$(median \"\${c64_$era[@]}\")"
    eval "R[eras.$era.cpu64]=\$(median \"\${cpu_$era[@]}\")"
  done
  stop
}
median() { printf '%s\n' "$@" | sort -g | sed -n "$(( ($# + 1) / 2 ))p"; }

# measure_search: the tool search index of search mode, in process (Benchmarks/SearchBench, built here): search
# latency over 10,000 tools, the time to add a server of 500 tools and to replace them, and how many of the 50
# fixture needs find their tool in the top 3. A run that prints no RESULT measured nothing: the program stops.
measure_search() {
  local out
  out=$(cd "$ROOT" && swift build -c release --product yrden-search-bench 2>&1) || { echo "$out" >&2; exit 1; }
  out=$("$ROOT/.build/release/yrden-search-bench" "$ROOT/Tests/Fixtures/search/corpus.json" 2>/dev/null \
    | grep '^RESULT') || { echo "yrden-search-bench printed no RESULT" >&2; exit 1; }
  R[search.p50]=$(kv "$out" search_p50_us); R[search.p99]=$(kv "$out" search_p99_us)
  R[search.add_p50]=$(kv "$out" add500_ms_p50); R[search.add_max]=$(kv "$out" add500_ms_max)
  R[search.update_p50]=$(kv "$out" update500_ms_p50); R[search.build]=$(kv "$out" build_ms)
  R[search.tools]=$(kv "$out" tools); R[search.quality]=$(kv "$out" quality_top3)
  R[search.heldout]=$(kv "$out" heldout_top3); R[search.heldout_empty]=$(kv "$out" heldout_empty)
}

echo "yrden $("$YRDEN" --version) on $(nproc) cores; wrk ${DUR}s per figure, $CALLS sequential calls" >&2
measure_floor
measure_direct direct_c "$OUT/echo_upstream" 0
measure_direct direct_demo "$YRDEN" demo-server
measure_gateway gw_c up0__echo "$OUT/echo_upstream" 0
measure_gateway gw_demo up0__echo "$YRDEN" demo-server
measure_list 10
measure_list 50
measure_fleet
measure_eras
measure_search

# The budgets of the engine (issue 10, "Faster as a consequence"), all against the C echo upstream.
BUDGET_ADDED_P50=100 BUDGET_ADDED_P99=500 BUDGET_CPU=35 BUDGET_C64=35000
BUDGET_READY_MS=1000 BUDGET_RSS_MB=60 BUDGET_THREADS=16 BUDGET_LIST_MS=30
# The tool search index's (issue 13): a search, and indexing a server that connects with 500 tools.
BUDGET_SEARCH_P50_US=1000 BUDGET_SEARCH_P99_US=5000 BUDGET_SEARCH_ADD_MS=20 BUDGET_SEARCH_QUALITY=45
R[gw_c.added_p50]=$(added "${R[gw_c.p50]}" "${R[direct_c.p50]}")
R[gw_c.added_p99]=$(added "${R[gw_c.p99]}" "${R[direct_c.p99]}")
ms() { awk -v us="$1" 'BEGIN { printf "%.1f", us / 1000 }'; }
R[fleet.list.p50_ms]=$(ms "${R[fleet.list.p50]}"); R[fleet.list.p99_ms]=$(ms "${R[fleet.list.p99]}")

row() { printf '%-34s %14s %14s %14s %14s %12s\n' "$@"; }
printf '\n'; row "tools/call echo" "direct C" "yrden → C" "direct demo" "yrden → demo" "budget"
row "calls/s, 1 client (sequential)" "${R[direct_c.c1_rps]}" "${R[gw_c.c1_rps]}" "${R[direct_demo.c1_rps]}" "${R[gw_demo.c1_rps]}" ""
row "calls/s, 16 clients" "${R[direct_c.c16]}" "${R[gw_c.c16]}" "${R[direct_demo.c16]}" "${R[gw_demo.c16]}" ""
row "calls/s, 64 clients" "${R[direct_c.c64]}" "${R[gw_c.c64]}" "${R[direct_demo.c64]}" "${R[gw_demo.c64]}" ">= $BUDGET_C64"
row "p50 latency µs (1 client)" "${R[direct_c.p50]}" "${R[gw_c.p50]}" "${R[direct_demo.p50]}" "${R[gw_demo.p50]}" ""
row "p99 latency µs (1 client)" "${R[direct_c.p99]}" "${R[gw_c.p99]}" "${R[direct_demo.p99]}" "${R[gw_demo.p99]}" ""
row "added p50 / p99 µs" "" "${R[gw_c.added_p50]} / ${R[gw_c.added_p99]}" "" \
  "$(added "${R[gw_demo.p50]}" "${R[direct_demo.p50]}") / $(added "${R[gw_demo.p99]}" "${R[direct_demo.p99]}")" \
  "<= $BUDGET_ADDED_P50 / $BUDGET_ADDED_P99"
row "bare HTTP round trip p50 / p99 µs" "" "${R[floor.p50]} / ${R[floor.p99]}" "" "" ""
row "added over bare HTTP p50 / p99 µs" "" "$(added "${R[gw_c.p50]}" "${R[floor.p50]}") / $(added "${R[gw_c.p99]}" "${R[floor.p99]}")" "" \
  "$(added "${R[gw_demo.p50]}" "${R[floor.p50]}") / $(added "${R[gw_demo.p99]}" "${R[floor.p99]}")" ""
row "gateway CPU µs/call, 1 client" "" "${R[gw_c.cpu1]}" "" "${R[gw_demo.cpu1]}" ""
row "gateway CPU µs/call, 64 clients" "" "${R[gw_c.cpu64]}" "" "${R[gw_demo.cpu64]}" ""
row "gateway CPU µs/call, all calls" "" "${R[gw_c.cpu_all]}" "" "${R[gw_demo.cpu_all]}" "<= $BUDGET_CPU"
row "failed calls (seq / c16 / c64)" "" "${R[gw_c.errors]}/${R[gw_c.bad16]}/${R[gw_c.bad64]}" "" "${R[gw_demo.errors]}/${R[gw_demo.bad16]}/${R[gw_demo.bad64]}" ""
row "gateway RSS MB idle → after load" "" "${R[gw_c.rss_idle]} → ${R[gw_c.rss_load]}" "" "${R[gw_demo.rss_idle]} → ${R[gw_demo.rss_load]}" ""
row "start → ready ms" "" "${R[gw_c.ready]}" "" "${R[gw_demo.ready]}" ""

printf '\n%-34s %14s %14s\n' "tools/list (8 padding tools each)" "10 upstreams" "50 upstreams"
printf '%-34s %14s %14s\n' "tools listed (pages)" "${R[list10.tools]} (${R[list10.pages]})" "${R[list50.tools]} (${R[list50.pages]})"
printf '%-34s %14s %14s\n' "p50 / p99 µs, every page" "${R[list10.p50]} / ${R[list10.p99]}" "${R[list50.p50]} / ${R[list50.p99]}"
printf '%-34s %14s %14s\n' "the same through a profile" "${R[profile10.p50]} / ${R[profile10.p99]}" "${R[profile50.p50]} / ${R[profile50.p99]}"
printf '%-34s %14s %14s\n' "gateway RSS MB, idle upstreams" "${R[list10.rss_idle]}" "${R[list50.rss_idle]}"
printf '%-34s %14s %14s\n' "start → ready ms" "${R[list10.ready]}" "${R[list50.ready]}"

eras_row() { printf '%-44s %12s %12s %12s\n' "$@"; }
printf '\n'; eras_row "tools/call, yrden → C, by downstream era" "session" "stateless" "stateless/session"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
eras_row "p50 µs, 1 connection (wrk)" "${R[eras.session.p50]}" "${R[eras.stateless.p50]}" \
  "$(ratio "${R[eras.stateless.p50]}" "${R[eras.session.p50]}")"
eras_row "calls/s, 64 connections" "${R[eras.session.c64]}" "${R[eras.stateless.c64]}" \
  "$(ratio "${R[eras.stateless.c64]}" "${R[eras.session.c64]}")"
eras_row "gateway CPU µs per call, 64 connections" "${R[eras.session.cpu64]}" "${R[eras.stateless.cpu64]}" \
  "$(ratio "${R[eras.stateless.cpu64]}" "${R[eras.session.cpu64]}")"

fleet_row() { printf '%-44s %16s %12s\n' "$@"; }
printf '\n'; fleet_row "$FLEET stdio upstreams × $FLEET_TOOLS padding tools" "yrden → C" "budget"
fleet_row "start → all connected ms" "${R[fleet.ready]}" "< $BUDGET_READY_MS"
fleet_row "gateway RSS MB after ready → after listings" "${R[fleet.rss_ready]} → ${R[fleet.rss_listed]}" "<= $BUDGET_RSS_MB"
fleet_row "gateway RSS MB after a restart (pins read)" "${R[fleet.rss_restart]}" "<= $BUDGET_RSS_MB"
fleet_row "gateway threads after ready → after listings" "${R[fleet.threads]} → ${R[fleet.threads_listed]}" "<= $BUDGET_THREADS"
fleet_row "gateway open files after ready" "${R[fleet.fds]}" ""
fleet_row "tools listed (pages) per whole listing" "${R[fleet.list.tools]} (${R[fleet.list.pages]})" ""
fleet_row "whole tools/list p50 / p99 ms" "${R[fleet.list.p50_ms]} / ${R[fleet.list.p99_ms]}" "<= $BUDGET_LIST_MS"
echo "threads after ready, by name (names cut to 15 bytes): ${R[fleet.thread_names]}"

search_row() { printf '%-44s %16s %12s\n' "$@"; }
printf '\n'; search_row "tool search index, ${R[search.tools]} tools" "measured" "budget"
search_row "search p50 / p99 us (50 needs, 5,000 searches)" "${R[search.p50]} / ${R[search.p99]}" "<= $BUDGET_SEARCH_P50_US / $BUDGET_SEARCH_P99_US"
search_row "add a server of 500 tools, p50 / max ms" "${R[search.add_p50]} / ${R[search.add_max]}" "<= $BUDGET_SEARCH_ADD_MS"
search_row "replace its 500 tools, p50 ms" "${R[search.update_p50]}" ""
search_row "index ${R[search.tools]} tools from nothing, ms" "${R[search.build]}" ""
search_row "needs with their tool in the top 3" "${R[search.quality]}" ">= $BUDGET_SEARCH_QUALITY/50"
search_row "held-out needs with a tool of theirs in the top 3 (empty)" "${R[search.heldout]} (${R[search.heldout_empty]})" ">= 90 % (0)"

echo
"$ROOT/Benchmarks/http_upstream.sh"
echo
"$ROOT/Benchmarks/replicas.sh"
echo
"$ROOT/Benchmarks/resource_auth.sh"
"$ROOT/Benchmarks/telemetry.sh"

# within MEASURED OP LIMIT -> yes / no (n/a when nothing was measured)
within() {
  awk -v m="$1" -v op="$2" -v l="$3" 'BEGIN {
    if (m !~ /^-?[0-9.]+$/) { print "n/a"; exit }
    ok = (op == "<") ? m < l : (op == "<=") ? m <= l : m >= l
    print ok ? "yes" : "no" }'
}
budget() { # FIGURE MEASURED DIRECT OP LIMIT
  printf '%-44s %12s %12s %12s %8s\n' "$1" "$2" "$3" "$4 $5" "$(within "$2" "$4" "$5")"
}
printf '\n%-44s %12s %12s %12s %8s\n' "budgets (issue 10), yrden → C echo" "measured" "direct C" "budget" "within"
budget "added p50 us, 1 client" "${R[gw_c.added_p50]}" "${R[direct_c.p50]}" "<=" "$BUDGET_ADDED_P50"
budget "added p99 us, 1 client" "${R[gw_c.added_p99]}" "${R[direct_c.p99]}" "<=" "$BUDGET_ADDED_P99"
budget "gateway CPU us per call, all calls (cpu/1k)" "${R[gw_c.cpu_all]}" "" "<=" "$BUDGET_CPU"
budget "gateway CPU us per call, 64 connections" "${R[gw_c.cpu64]}" "" "<=" "$BUDGET_CPU"
printf '%-44s %12s   (no budget: the figure above is the one the issue sets)\n' "gateway CPU us per call, 1 client" "${R[gw_c.cpu1]}"
budget "calls/s, 64 connections" "${R[gw_c.c64]}" "${R[direct_c.c64]}" ">=" "$BUDGET_C64"
budget "$FLEET upstreams: start to all connected ms" "${R[fleet.ready]}" "" "<" "$BUDGET_READY_MS"
budget "$FLEET upstreams: RSS MB after ready" "${R[fleet.rss_ready]}" "" "<=" "$BUDGET_RSS_MB"
budget "$FLEET upstreams: RSS MB after a restart" "${R[fleet.rss_restart]}" "" "<=" "$BUDGET_RSS_MB"
budget "$FLEET upstreams: threads" "${R[fleet.threads]}" "" "<=" "$BUDGET_THREADS"
budget "$FLEET upstreams: whole tools/list p50 ms" "${R[fleet.list.p50_ms]}" "" "<=" "$BUDGET_LIST_MS"
budget "$FLEET upstreams: whole tools/list p99 ms" "${R[fleet.list.p99_ms]}" "" "<=" "$BUDGET_LIST_MS"
printf '\n%-44s %12s %12s %12s %8s\n' "budget (issue 11), stateless over session" "measured" "" "budget" "within"
budget "p50 at 1 connection, stateless / session" "$(ratio "${R[eras.stateless.p50]}" "${R[eras.session.p50]}")" "" "<=" 1.2
printf '\n%-44s %12s %12s %12s %8s\n' "budgets (issue 13), tool search" "measured" "" "budget" "within"
budget "50-server profile tools/list p50, / /mcp's" "$(ratio "${R[profile50.p50]}" "${R[list50.p50]}")" "" "<=" 1.2
budget "search p50 us, ${R[search.tools]} tools" "${R[search.p50]}" "" "<=" "$BUDGET_SEARCH_P50_US"
budget "search p99 us, ${R[search.tools]} tools" "${R[search.p99]}" "" "<=" "$BUDGET_SEARCH_P99_US"
budget "add a server of 500 tools, p50 ms" "${R[search.add_p50]}" "" "<=" "$BUDGET_SEARCH_ADD_MS"
budget "needs with their tool in the top 3 (of 50)" "${R[search.quality]%/*}" "" ">=" "$BUDGET_SEARCH_QUALITY"

echo
"$ROOT/Benchmarks/loop_lag.sh"
