#!/usr/bin/env bash
# Compares make bench's figures for two or more yrden binaries (every table but the loop-lag one, which has
# its own program): the "unchanged or better on every row" an issue asks of a change is read here, not from
# two runs of make bench made at different times. Each row is measured ROUNDS times; within a round every
# binary runs it back to back, in an order that flips each round, so a drift in the machine's load falls on
# every side alike. Prints each figure's median per binary beside the direct figure, the last binary's median
# over the first's, and in how many rounds the last was worse than the first in the same round (a figure
# worse in most rounds is a real difference; a median apart by a few per cent, worse in half, is noise).
#
#   BINS="base=/tmp/yrden-before new=.build/release/yrden" Benchmarks/ab.sh
#
# Knobs: BINS ("name=path ...", the first the reference; default: BASE=path against .build/release/yrden),
# ROWS (any of: direct calls demo list fleet eras http search; default all), ROUNDS (5), DUR (wrk seconds,
# 5), CALLS (2000), LIST_CALLS (300), FLEET (200), FLEET_TOOLS (50), FLEET_LISTINGS (50), SEARCH_BENCHES
# ("name=path ..." of yrden-search-bench builds of each binary's source; the search row needs them),
# PYTHON_VENV (the http row's Python SDK upstream; skipped without it). The per-round figures stay in
# .build/bench-ab/ab-raw.txt. Everything stays on loopback; run it on purpose, as make bench.
#
# Figures, by prefix: c. (yrden → C echo; its direct column is the C server over stdio), floor. (bare HTTP),
# demo. (yrden → the binary's own demo server; demo.direct. that server over stdio), list10./list50. and
# profile10./profile50. (whole tools/list through /mcp and a profile), fleet. (FLEET stdio upstreams), eras.
# (handshake session against stateless), hy./hpy. (an HTTP upstream: a yrden of the same binary fronting the C
# server, the Python SDK server; .direct. is the client at that upstream, .through. via the binary), search.
set -euo pipefail
WRK_SECONDS=${DUR:-5} # lib.sh would default DUR to make bench's 10
source "$(dirname "$0")/lib.sh"
OUT=$ROOT/.build/bench-ab
ROUNDS=${ROUNDS:-5}; DUR=$WRK_SECONDS; CALLS=${CALLS:-2000}
LIST_CALLS=${LIST_CALLS:-300}
FLEET=${FLEET:-200}; FLEET_TOOLS=${FLEET_TOOLS:-50}; FLEET_LISTINGS=${FLEET_LISTINGS:-50}
BINS=${BINS:-"base=${BASE:?set BINS or BASE (see the header)} new=$ROOT/.build/release/yrden"}
ROWS=${ROWS:-"direct calls demo list fleet eras http search"}
SEARCH_BENCHES=${SEARCH_BENCHES:-""}
PYTHON_VENV=${PYTHON_VENV:-$ROOT/.venv}
declare -A BIN SB
NAMES=()
for b in $BINS; do NAMES+=("${b%%=*}"); BIN[${b%%=*}]=${b#*=}; done
for b in $SEARCH_BENCHES; do SB[${b%%=*}]=${b#*=}; done
YRDEN=${BIN[${NAMES[0]}]}
prepare
raise_open_files $(( FLEET * 8 + 256 ))
RAW=$OUT/ab-raw.txt; : > "$RAW"

# put TAG ROUND KEY VALUE: one figure of one round
put() { R[$1.$2.$3]=$4; echo "$1 $2 $3 $4" >> "$RAW"; }
# keep TAG ROUND PREFIX LABEL KEY...: copies R[LABEL.KEY] into TAG ROUND PREFIX.KEY
keep() { local t=$1 r=$2 p=$3 l=$4 k; shift 4; for k in "$@"; do put "$t" "$r" "$p.$k" "${R[$l.$k]:-}"; done; }

list_all() { # LABEL EXPECTED LISTINGS (as run.sh's)
  local label=$1 expected=$2 listings=$3 out seq
  out=$("$OUT/mcp_seq" -a -e "$expected" -n "$listings" -W $(( listings > 30 ? listings / 10 : 3 )) -T 300 -s "$SID" -m tools/list "$URL") || {
    echo "tools/list at $URL: $(grep -E '^(RESULT|FIRST_BAD)' <<< "$out" | tr '\n' ' ')" >&2; exit 1
  }
  seq=$(grep '^RESULT' <<< "$out")
  R[$label.p50]=$(kv "$seq" p50_us); R[$label.p99]=$(kv "$seq" p99_us)
}


# direct: the bare HTTP floor and a direct stdio connection to the C echo upstream (no yrden: measured once a round)
row_direct() { # ROUND
  local r=$1 port out pid
  port=$(free_port); "$OUT/http_floor" "$port" & pid=$!; PIDS+=("$pid")
  for _ in $(seq 1 200); do curl -s "http://127.0.0.1:$port/" -o /dev/null -m 1 && break; sleep 0.01; done
  out=$("$OUT/mcp_seq" -n "$CALLS" -W 100 -t echo "http://127.0.0.1:$port/mcp" | grep '^RESULT')
  put direct "$r" floor.p50 "$(kv "$out" p50_us)"; put direct "$r" floor.p99 "$(kv "$out" p99_us)"
  end_pid "$pid" 5; forget_pid "$pid"
  measure_direct d "$OUT/echo_upstream" 0
  keep direct "$r" c d c1_rps c16 c64 p50 p99
}

gateway_calls() { # TAG ROUND PREFIX CMD...: run.sh's measure_gateway
  local t=$1 r=$2 p=$3; shift 3
  config "$OUT/one.json" 1 "$@"
  start "$OUT/one.json"; put "$t" "$r" "$p.ready" "$READY_MS"
  sleep 1; put "$t" "$r" "$p.rss_idle" $(( $(rss_kb "$GW_PID") / 1024 ))
  SID=$(session)
  CPU_PID=$GW_PID measure_calls g up0__echo
  keep "$t" "$r" "$p" g c1_rps p50 p99 c16 c64 cpu1 cpu64 cpu_all errors bad16 bad64
  put "$t" "$r" "$p.rss_load" $(( $(rss_kb "$GW_PID") / 1024 ))
  stop
}
row_calls() { gateway_calls "$1" "$2" c "$OUT/echo_upstream" 0; }
row_demo() { # the demo server is the binary's own: its direct figure is measured per binary too
  measure_direct d "${BIN[$1]}" demo-server
  keep "$1" "$2" demo.direct d c1_rps c16 c64 p50 p99
  gateway_calls "$1" "$2" demo "${BIN[$1]}" demo-server
}

row_list() {
  local t=$1 r=$2 n
  for n in 10 50; do
    WITH_PROFILE=1 config "$OUT/multi.json" "$n" "$OUT/echo_upstream" 8
    start "$OUT/multi.json"; put "$t" "$r" "list$n.ready" "$READY_MS"
    sleep 1; put "$t" "$r" "list$n.rss_idle" $(( $(rss_kb "$GW_PID") / 1024 ))
    SID=$(session); list_all l $(( n * 10 )) "$LIST_CALLS"; keep "$t" "$r" "list$n" l p50 p99
    URL="$BASE/mcp/all"; SID=$(session); list_all l $(( n * 10 - 8 )) "$LIST_CALLS"; keep "$t" "$r" "profile$n" l p50 p99
    URL="$BASE/mcp"
    stop
  done
}

row_fleet() {
  local t=$1 r=$2 out q
  config "$OUT/fleet.json" "$FLEET" "$OUT/echo_upstream" "$FLEET_TOOLS"
  launch "$OUT/fleet.json"
  out=$("$OUT/wait_connected" -N "$FLEET" -S "$T0" -P "$GW_PID" -T 60 "$BASE/healthz" 2>&1) || { echo "fleet: $out" >&2; exit 1; }
  put "$t" "$r" fleet.ready "$(kv "$out" ready_ms)"
  put "$t" "$r" fleet.rss_ready $(( $(rss_kb "$GW_PID") / 1024 ))
  put "$t" "$r" fleet.threads "$(threads "$GW_PID")"
  put "$t" "$r" fleet.fds "$(find /proc/"$GW_PID"/fd -mindepth 1 -maxdepth 1 | wc -l)"
  SID=$(session); list_all l $(( FLEET * (FLEET_TOOLS + 2) )) "$FLEET_LISTINGS"; keep "$t" "$r" fleet.list l p50 p99
  put "$t" "$r" fleet.rss_listed $(( $(rss_kb "$GW_PID") / 1024 ))
  put "$t" "$r" fleet.threads_listed "$(threads "$GW_PID")"
  stop
  launch "$OUT/fleet.json"
  out=$("$OUT/wait_connected" -N "$FLEET" -S "$T0" -P "$GW_PID" -T 60 "$BASE/healthz" 2>&1) || { echo "fleet restart: $out" >&2; exit 1; }
  put "$t" "$r" fleet.ready_restart "$(kv "$out" ready_ms)"
  put "$t" "$r" fleet.rss_restart $(( $(rss_kb "$GW_PID") / 1024 ))
  stop
}

row_eras() { # one pass of run.sh's measure_eras per round
  local t=$1 r=$2 era line before modern
  config "$OUT/one.json" 1 "$OUT/echo_upstream" 0
  start "$OUT/one.json"; SID=$(session)
  for era in session stateless; do
    modern=""; [ "$era" = stateless ] && modern=1
    line=$(MCP_MODERN=$modern MCP_SESSION_ID=$SID MCP_TOOL=up0__echo wrk -t1 -c1 -d"$(( (DUR + 1) / 2 ))s" --timeout 10s \
      -s "$BENCH_DIR/mcp_call.lua" "$URL" 2>&1 | grep '^RESULT' || true)
    [ "$(kv "$line" bad_body)" = 0 ] || { echo "eras: $era calls failed: $line" >&2; exit 1; }
    put "$t" "$r" "eras.$era.p50" "$(kv "$line" p50_us)"
    before=$(cpu_ticks "$GW_PID")
    line=$(MCP_MODERN=$modern MCP_SESSION_ID=$SID MCP_TOOL=up0__echo wrk -t1 -c64 -d"$(( (DUR + 1) / 2 ))s" --timeout 10s \
      -s "$BENCH_DIR/mcp_call.lua" "$URL" 2>&1 | grep '^RESULT' || true)
    [ "$(kv "$line" bad_body)" = 0 ] || { echo "eras: $era calls failed: $line" >&2; exit 1; }
    put "$t" "$r" "eras.$era.c64" "$(kv "$line" rps)"
    put "$t" "$r" "eras.$era.cpu64" "$(cpu_per_call $(( $(cpu_ticks "$GW_PID") - before )) "$(kv "$line" requests)")"
  done
  stop
}

# http: http_upstream.sh's pairs; the yrden upstream is the binary measured too, as in make bench
http_pair() { # TAG ROUND PREFIX UPSTREAM_URL TOOL
  local t=$1 r=$2 p=$3 up=$4 tool=$5 dsid tsid turl
  URL=$up; dsid=$(session)
  remote_config "$OUT/remote.json" remote "$up"
  start "$OUT/remote.json"; turl=$URL; tsid=$(session); SID=$tsid; wait_for_tool "remote__$tool"
  URL=$up SID=$dsid measure_seq hd "$tool"; URL=$turl SID=$tsid measure_seq ht "remote__$tool"
  URL=$up SID=$dsid measure_wrk hd "$tool"; URL=$turl SID=$tsid measure_wrk ht "remote__$tool"
  keep "$t" "$r" "$p.direct" hd c1_rps p50 p99 c16 c64
  keep "$t" "$r" "$p.through" ht c1_rps p50 p99 c16 c64
  stop
}
PY_URL=""
row_http() {
  local t=$1 r=$2 up_pid up_url
  config "$OUT/one.json" 1 "$OUT/echo_upstream" 0
  start "$OUT/one.json"; up_pid=$GW_PID; up_url=$URL
  http_pair "$t" "$r" hy "$up_url" up0__echo
  GW_PID=$up_pid; stop
  if [ -n "$PY_URL" ]; then http_pair "$t" "$r" hpy "$PY_URL" pid; fi
}

row_search() {
  local t=$1 r=$2 out q
  [ -n "${SB[$t]:-}" ] || return 0
  out=$("${SB[$t]}" "$ROOT/Tests/Fixtures/search/corpus.json" 2>/dev/null | grep '^RESULT')
  put "$t" "$r" search.p50 "$(kv "$out" search_p50_us)"; put "$t" "$r" search.p99 "$(kv "$out" search_p99_us)"
  put "$t" "$r" search.add_p50 "$(kv "$out" add500_ms_p50)"; put "$t" "$r" search.add_max "$(kv "$out" add500_ms_max)"
  put "$t" "$r" search.update_p50 "$(kv "$out" update500_ms_p50)"; put "$t" "$r" search.build "$(kv "$out" build_ms)"
  q=$(kv "$out" quality_top3); put "$t" "$r" search.quality "${q%/*}"
}

case " $ROWS " in *" http "*) [ -x "$PYTHON_VENV/bin/python" ] && start_python_upstream ;; esac
echo "A/B of ${NAMES[*]} on $(nproc) cores: rows $ROWS; $ROUNDS rounds; wrk ${DUR}s; $CALLS calls" >&2
for row in $ROWS; do
  for r in $(seq 1 "$ROUNDS"); do
    echo "$(date +%T) $row round $r (load $(cut -d' ' -f1 /proc/loadavg))" >&2
    if [ "$row" = direct ]; then row_direct "$r"; continue; fi
    order=("${NAMES[@]}")
    if (( r % 2 == 0 )); then order=(); for (( i=${#NAMES[@]}-1; i>=0; i-- )); do order+=("${NAMES[$i]}"); done; fi
    for t in "${order[@]}"; do YRDEN=${BIN[$t]}; "row_$row" "$t" "$r"; done
  done
done

# The table: key, direct median, each binary's median, last/first, rounds where the last was worse than the first.
python3 - "$RAW" "${NAMES[@]}" <<'PY'
import sys, statistics, collections
raw, names = sys.argv[1], sys.argv[2:]
vals = collections.defaultdict(dict)   # (tag, key) -> {round: value}
keys = []
for line in open(raw):
    tag, rnd, key, value = line.split()[:4] if len(line.split()) >= 4 else line.split() + [""]
    try: v = float(value)
    except ValueError: continue
    vals[(tag, key)][rnd] = v
    if key not in keys: keys.append(key)
higher = lambda k: k.endswith(('.c1_rps', '.c16', '.c64', '.quality'))
def med(tag, k):
    d = vals.get((tag, k));
    return statistics.median(d.values()) if d else None
fmt = lambda v: "" if v is None else (f"{v:,.0f}" if abs(v) >= 100 else f"{v:g}")
a, z = names[0], names[-1]
print(f"\n{'figure':32}{'direct':>10}" + "".join(f"{n:>10}" for n in names) + f"{z+'/'+a:>10}{'worse':>8}")
for k in keys:
    meds = [med(n, k) for n in names]
    if all(m is None for m in meds): continue
    d = med("direct", k)
    ratio = f"{meds[-1]/meds[0]:.3f}" if meds[0] and meds[-1] is not None else ""
    pa, pz = vals.get((a, k), {}), vals.get((z, k), {})
    common = [r for r in pa if r in pz]
    worse = sum(1 for r in common if (pz[r] < pa[r] if higher(k) else pz[r] > pa[r]))
    print(f"{k:32}{fmt(d):>10}" + "".join(f"{fmt(m):>10}" for m in meds) + f"{ratio:>10}{f'{worse}/{len(common)}':>8}")
for k in keys:
    if med("direct", k) is not None and all(med(n, k) is None for n in names):
        print(f"{k:32}{fmt(med('direct', k)):>10}")
PY
