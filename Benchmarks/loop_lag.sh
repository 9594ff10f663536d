#!/usr/bin/env bash
# Prints how long the gateway's one event loop keeps clients waiting while an operator does the heaviest things
# it offers (issue 26): Tests/interop/loop_lag.py drives each path (5,000 tools added, a profile of 100 patterns,
# 2,000 definitions changing, 2,000 approvals from 8 clients, 10,000 tools churning under 20 profiles, unlisted
# reads over 100,000 resources, app pages calling tools) against a release yrden, while a prober process times
# GET /healthz every 10 ms and a tools/call to another stdio server every 20 ms, and reads the gateway's
# yrden_event_loop_lag_seconds before and after each path. Ends with each figure against the issue's budget.
#
# A program, not a test: a missed budget is printed, never a failure; a path that did not finish in its 90 s is
# printed with its error. Needs the interop tests' venv (`make venv`, or PYTHON_VENV); skipped without it. Run it
# on purpose (`make bench` ends with it) on an otherwise idle machine; everything stays on loopback. YRDEN (see
# lib.sh) is the binary measured; LOOP_LAG_ARGS more options of loop_lag.py run (`--quick`, `--only 1,2`). The
# gateway's log and the prober's samples stay in .build/bench/loop-lag.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
PYTHON_VENV=${PYTHON_VENV:-$ROOT/.venv}
BUDGET_HEALTHZ_P99_MS=20 BUDGET_HEALTHZ_MAX_MS=100 BUDGET_CALL_MAX_MS=100

if [ ! -x "$PYTHON_VENV/bin/python" ]; then
  echo "loop lag: no Python venv at $PYTHON_VENV (make venv): skipped" >&2; exit 0
fi
[ -x "$YRDEN" ] || { echo "build first: swift build -c release" >&2; exit 2; }
rm -rf "$OUT/loop-lag"; mkdir -p "$OUT/loop-lag"
out=$(cd "$ROOT/Tests/interop" && "$PYTHON_VENV/bin/python" loop_lag.py run --yrden "$YRDEN" --keep "$OUT/loop-lag" ${LOOP_LAG_ARGS:-}) || {
  echo "loop_lag.py failed: $out" >&2; exit 1
}

# ok MEASURED OP LIMIT -> yes / no (n/a when nothing was measured)
ok() {
  awk -v m="$1" -v op="$2" -v l="$3" 'BEGIN {
    if (m !~ /^-?[0-9.]+$/) { print "n/a"; exit }
    print ((op == "<=") ? m <= l : m >= l) ? "yes" : "no" }'
}
row() { printf '%-32s %17s %10s %12s %11s %8s  %s\n' "$@"; }
printf '\n'
row "loop lag, heavy operator paths" "/healthz p99/max" "call max" "loop lag max" "seconds" "within" "(ms; path figures)"
while read -r kind rest; do
  line="$kind $rest"
  name=$( [ "$kind" = ALL ] && echo "all paths" || kv "$line" name | tr _ ' ')
  p99=$(kv "$line" healthz_p99_ms); max=$(kv "$line" healthz_max_ms); call=$(kv "$line" call_max_ms)
  within=no
  if [ "$(ok "$p99" "<=" $BUDGET_HEALTHZ_P99_MS)" = yes ] && [ "$(ok "$max" "<=" $BUDGET_HEALTHZ_MAX_MS)" = yes ] \
    && [ "$(ok "$call" "<=" $BUDGET_CALL_MAX_MS)" = yes ] && [ "$(kv "$line" finished)" = True ]; then within=yes; fi
  # What each path did: every key after the common figures (lag_max_s: the bucket its most delayed tick fell in).
  extra=$(sed -n 's/.*lag_max_s=[^ ]* *//p' <<< "$line")
  [ "$kind" = ALL ] && extra=""
  row "$name" "$p99 / $max" "$call" "$(kv "$line" lag_max_s) s" "$(kv "$line" seconds)" "$within" "$extra"
done < <(grep -E '^(PATH|ALL) ' <<< "$out")
printf '%-32s %17s %10s\n' "budget (issue 26)" "<= $BUDGET_HEALTHZ_P99_MS / $BUDGET_HEALTHZ_MAX_MS" "<= $BUDGET_CALL_MAX_MS"
echo "(the gateway's log and the prober's samples: $OUT/loop-lag)"
