#!/usr/bin/env bash
# Prints what Yrden adds in front of a Streamable HTTP upstream: the same clients call the same upstream once
# directly and once through a second yrden whose only server is that upstream's URL. A program, not a test:
# run it on purpose (`make bench` ends with it) on an otherwise idle machine; everything stays on loopback.
#
# Upstreams: the fastest HTTP MCP server at hand, a release yrden fronting the C echo upstream (tool
# `up0__echo`); and, when the project's .venv (or PYTHON_VENV) exists, the official Python SDK server of the interop
# tests (stateless, JSON responses), the realistic slow one. Its tool is `pid`: the clients always send
# {"message": …}, which `pid` ignores and `greet` would refuse. Knobs: DUR, CALLS (see lib.sh), PYTHON_VENV,
# ROUNDS (alternating sequential runs per side, default 3; CALLS calls each).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
PYTHON_VENV=${PYTHON_VENV:-$ROOT/.venv}
ROUNDS=${ROUNDS:-3}
prepare


# median_of_rounds LABEL KEY...: LABEL.KEY = the median of LABEL.1.KEY … LABEL.ROUNDS.KEY
median_of_rounds() {
  local label=$1 key r; shift
  for key in "$@"; do
    R[$label.$key]=$(for r in $(seq 1 "$ROUNDS"); do echo "${R[$label.$r.$key]}"; done | sort -g \
      | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
  done
  R[$label.errors]=$(for r in $(seq 1 "$ROUNDS"); do echo "${R[$label.$r.errors]}"; done \
    | awk '{ n += $1 } END { print n }')
}

# context_switches PID -> voluntary + involuntary context switches of the process's live threads so far
context_switches() {
  cat /proc/"$1"/task/*/status 2>/dev/null | awk '/^(nonv|v)oluntary_ctxt_switches/ { n += $2 } END { print n + 0 }'
}

# measure_pair LABEL UPSTREAM_URL TOOL UPSTREAM_PID: the clients at UPSTREAM_URL (LABEL.direct) and at a yrden
# fronting it as server `remote` (LABEL.through). The sequential runs alternate, ROUNDS of each, and report the
# medians, so a drift in the machine's load falls on both sides alike. The upstream must already be serving.
# Under wrk it also records the CPU per call (µs, 64 connections) of the process that answers the clients (the
# upstream directly, the fronting yrden through it) and the fronting yrden's context switches per call (16 and
# 64 connections): figures that a loaded machine moves far less than calls/s and latency.
measure_pair() {
  local label=$1 upstream=$2 tool=$3 upstream_pid=$4 r switches
  local direct_url=$upstream direct_sid through_url through_sid
  URL=$direct_url; direct_sid=$(session)
  remote_config "$OUT/remote.json" remote "$upstream"
  start "$OUT/remote.json"
  through_url=$URL; through_sid=$(session)
  SID=$through_sid; wait_for_tool "remote__$tool"
  for r in $(seq 1 "$ROUNDS"); do
    URL=$direct_url SID=$direct_sid measure_seq "$label.direct.$r" "$tool"
    URL=$through_url SID=$through_sid measure_seq "$label.through.$r" "remote__$tool"
  done
  median_of_rounds "$label.direct" c1_rps p50 p99
  median_of_rounds "$label.through" c1_rps p50 p99
  URL=$direct_url SID=$direct_sid CPU_PID=$upstream_pid measure_wrk "$label.direct" "$tool"
  switches=$(context_switches "$GW_PID")
  URL=$through_url SID=$through_sid CPU_PID=$GW_PID measure_wrk "$label.through" "remote__$tool"
  R[$label.through.ctx]=$(awk -v s=$(( $(context_switches "$GW_PID") - switches )) \
    -v n=$(( ${R[$label.through.n16]:-0} + ${R[$label.through.n64]:-0} )) 'BEGIN { printf (n > 0 ? "%.1f" : "n/a"), s / n }')
  R[$label.direct.ctx]=""
  stop
}


echo "yrden $("$YRDEN" --version) on $(nproc) cores; HTTP upstreams; wrk ${DUR}s per figure;" \
  "1 client: medians of $ROUNDS alternating runs of $CALLS calls" >&2
config "$OUT/one.json" 1 "$OUT/echo_upstream" 0
start "$OUT/one.json"
measure_pair yrden "$URL" up0__echo "$GW_PID"
PAIRS=(yrden)
if [ -x "$PYTHON_VENV/bin/python" ]; then
  start_python_upstream
  measure_pair python "$PY_URL" pid "$PY_PID"
  PAIRS+=(python)
else
  echo "no Python venv at $PYTHON_VENV: skipping the Python SDK upstream" >&2
fi

heads=(); for p in "${PAIRS[@]}"; do heads+=("direct $p" "yrden → $p"); done
row() { printf '%-34s' "$1"; shift; printf ' %14s' "$@"; printf '\n'; }
figures_row() { # TITLE KEY: the KEY figure of every pair, direct then through
  local title=$1 key=$2 cells=() p
  for p in "${PAIRS[@]}"; do cells+=("${R[$p.direct.$key]}" "${R[$p.through.$key]}"); done
  row "$title" "${cells[@]}"
}
printf '\n'; row "tools/call via an HTTP upstream" "${heads[@]}"
figures_row "calls/s, 1 client (sequential)" c1_rps
figures_row "calls/s, 16 clients" c16
figures_row "calls/s, 64 clients" c64
figures_row "p50 latency µs (1 client)" p50
figures_row "p99 latency µs (1 client)" p99
cells=(); for p in "${PAIRS[@]}"; do
  cells+=("" "$(added "${R[$p.through.p50]}" "${R[$p.direct.p50]}") / $(added "${R[$p.through.p99]}" "${R[$p.direct.p99]}")")
done
row "added p50 / p99 µs" "${cells[@]}"
cells=(); for p in "${PAIRS[@]}"; do
  for side in direct through; do cells+=("${R[$p.$side.errors]}/${R[$p.$side.bad16]}/${R[$p.$side.bad64]}"); done
done
row "failed calls (seq / c16 / c64)" "${cells[@]}"
figures_row "CPU µs per call, 64 clients" cpu64
figures_row "yrden's context switches per call" ctx
