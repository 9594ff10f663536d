#!/usr/bin/env bash
# Prints what running Yrden as replicas behind HAProxy (deploy/haproxy.cfg) costs and gives: stateless
# (2026-07-28) tools/call against the C echo upstream, from wrk, once at one gateway directly and once at 3
# replicas behind HAProxy, alternating ROUNDS times (default 3) so a drift in the machine's load falls on both
# sides alike; medians of calls/s at 64 connections and p50 at one connection. The difference of the p50s is
# the latency HAProxy adds. A program, not a test: run it on purpose (`make bench` ends with it) on an otherwise
# idle machine; everything stays on loopback. On a machine with few cores the replicas, HAProxy and wrk share
# them: the calls/s figure says what the balancer costs there, not what N machines would serve.
# Knobs: DUR (wrk seconds per figure is DUR/2), ROUNDS, REPLICAS (default 3, at most 5), HAPROXY.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
ROUNDS=${ROUNDS:-3}
REPLICAS=${REPLICAS:-3}
HAPROXY=${HAPROXY:-$(command -v haproxy || echo /usr/sbin/haproxy)}
prepare
[ -x "$HAPROXY" ] || { echo "no haproxy: install it (make service-deps) or set HAPROXY" >&2; exit 2; }

# replica I CONFIG: a release yrden serving CONFIG on a free port with a data directory of its own; sets
# REPLICA_PORT, adds its PID to PIDS and to REPLICA_PIDS.
REPLICA_PIDS=()
replica() {
  local i=$1 config=$2 port; port=$(free_port)
  rm -rf "$OUT/replica$i"
  "$YRDEN" serve --config "$config" --listen "127.0.0.1:$port" --data-dir "$OUT/replica$i" --log-level warning \
    2>>"$OUT/replica$i.log" &
  PIDS+=("$!"); REPLICA_PIDS+=("$!")
  REPLICA_PORT=$port
}

# wait_ready BASE: until BASE/readyz answers 200 (every upstream connected), at most 10 s.
wait_ready() {
  for _ in $(seq 1 2000); do curl -sf "$1/readyz" >/dev/null 2>&1 && return; sleep 0.005; done
  echo "$1 did not become ready" >&2; exit 1
}

# stats_up SOCKET -> how many servers of backend yrden HAProxy holds up (show servers state, srv_op_state 2)
stats_up() {
  python3 - "$1" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX); s.settimeout(2)
try:
    s.connect(sys.argv[1]); s.sendall(b"show servers state yrden\n")
    data = b"".join(iter(lambda: s.recv(65536), b"")).decode()
except OSError:
    print(0); sys.exit()
rows = [l.split() for l in data.splitlines() if l and not l.startswith("#") and len(l.split()) > 5]
print(sum(1 for r in rows if r[5] == "2"))
PY
}

# stateless_wrk CONNS URL -> "rps p50_us bad_bodies requests" of wrk at URL, stateless tools/call up0__echo
stateless_wrk() {
  local line
  line=$(MCP_MODERN=1 MCP_TOOL=up0__echo wrk -t1 -c"$1" -d"$(( DUR / 2 ))s" --timeout 10s \
    -s "$BENCH_DIR/mcp_call.lua" "$2" 2>&1 | grep '^RESULT' || true)
  [ -n "$line" ] && [ "$(kv "$line" bad_body)" = 0 ] || { echo "replicas: calls at $2 failed: $line" >&2; exit 1; }
  echo "$(kv "$line" rps) $(kv "$line" p50_us)"
}

config "$OUT/replicas.json" 1 "$OUT/echo_upstream" 0

# One gateway, measured directly.
replica 0 "$OUT/replicas.json"; ONE="http://127.0.0.1:$REPLICA_PORT"; wait_ready "$ONE"

# REPLICAS more behind HAProxy, started from deploy/haproxy.cfg as a user would.
lb_env=()
for i in $(seq 1 "$REPLICAS"); do
  replica "$i" "$OUT/replicas.json"; wait_ready "http://127.0.0.1:$REPLICA_PORT"
  lb_env+=("YRDEN_REPLICA_$i=127.0.0.1:$REPLICA_PORT")
done
LB_PORT=$(free_port); LB_SOCKET="$OUT/haproxy.sock"; rm -f "$LB_SOCKET"
env "${lb_env[@]}" YRDEN_LB_BIND="127.0.0.1:$LB_PORT" YRDEN_LB_STATS_SOCKET="$LB_SOCKET" \
  "$HAPROXY" -db -f "$ROOT/deploy/haproxy.cfg" 2>>"$OUT/haproxy.log" &
PIDS+=("$!")
for _ in $(seq 1 400); do [ "$(stats_up "$LB_SOCKET")" = "$REPLICAS" ] && break; sleep 0.05; done
[ "$(stats_up "$LB_SOCKET")" = "$REPLICAS" ] || { echo "HAProxy did not take up all $REPLICAS replicas (see $OUT/haproxy.log)" >&2; exit 1; }
LB="http://127.0.0.1:$LB_PORT"

one_c64=(); one_p50=(); lb_c64=(); lb_p50=()
for round in $(seq 1 "$ROUNDS"); do
  out=$(stateless_wrk 64 "$ONE/mcp"); one_c64+=("${out%% *}")
  out=$(stateless_wrk 64 "$LB/mcp"); lb_c64+=("${out%% *}")
  out=$(stateless_wrk 1 "$ONE/mcp"); one_p50+=("${out##* }")
  out=$(stateless_wrk 1 "$LB/mcp"); lb_p50+=("${out##* }")
done
median() { printf '%s\n' "$@" | sort -g | sed -n "$(( ($# + 1) / 2 ))p"; }
R[one.c64]=$(median "${one_c64[@]}"); R[lb.c64]=$(median "${lb_c64[@]}")
R[one.p50]=$(median "${one_p50[@]}"); R[lb.p50]=$(median "${lb_p50[@]}")

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
replicas_row() { printf '%-44s %12s %16s %10s\n' "$@"; }
replicas_row "stateless tools/call, yrden → C ($(nproc) cores)" "1 gateway" "$REPLICAS behind HAProxy" "ratio"
replicas_row "calls/s, 64 connections" "${R[one.c64]}" "${R[lb.c64]}" "$(ratio "${R[lb.c64]}" "${R[one.c64]}")"
replicas_row "p50 µs, 1 connection" "${R[one.p50]}" "${R[lb.p50]}" "$(ratio "${R[lb.p50]}" "${R[one.p50]}")"
replicas_row "HAProxy adds, p50 µs" "" "$(added "${R[lb.p50]}" "${R[one.p50]}")" ""
