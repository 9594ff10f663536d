# Sourced by the benchmark programs (run.sh, http_upstream.sh): paths, the harness build, and the functions that
# start a gateway, open a session and drive it with the team's clients. Everything stays on loopback.
#
# Uses the harness in Benchmarks/harness (C echo upstream, stdio driver, sequential HTTP client, readiness poller,
# wrk script), or BENCH_DIR when set, compiled into .build/bench. Needs: gcc, wrk, curl, jq (installed when
# missing). Knobs: DUR (wrk seconds, default 10), CALLS (sequential calls, default 2000), YRDEN (the binary measured).
export LC_NUMERIC=C # a decimal point in $EPOCHREALTIME and in every figure, whatever the user's locale
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
  for prog in echo_upstream stdio_driver mcp_seq wait_connected http_floor; do
    [ "$OUT/$prog" -nt "$BENCH_DIR/$prog.c" ] && [ "$OUT/$prog" -nt "$BENCH_DIR/http_client.h" ] \
      || gcc -O2 -pthread -o "$OUT/$prog" "$BENCH_DIR/$prog.c"
  done
}

# exited PID: true once PID is gone or a zombie (ended, not yet reaped)
exited() {
  local stat state
  { read -r stat < "/proc/$1/stat"; } 2>/dev/null || return 0
  state=${stat##*) }; [ "${state%% *}" = Z ]
}

# end_pid PID [DEADLINE_S]: SIGTERM to a process this program started, SIGKILL when it has not exited by the
# deadline (default 30 s: a gateway drains for up to 20 s and gives its children 7 s); reaps it; says so on fd 3
# (stderr unless redirected) when it had to. Looked at every 50 ms: bash cannot wait for a child with a deadline
# without a second process that would itself need ending.
end_pid() {
  local pid=$1 steps=$(( ${2:-30} * 20 ))
  kill -TERM "$pid" 2>/dev/null || return 0
  while ! exited "$pid" && (( steps-- > 0 )); do sleep 0.05; done
  if ! exited "$pid"; then
    echo "PID $pid ignored SIGTERM for ${2:-30}s: SIGKILL" >&3
    kill -KILL "$pid" 2>/dev/null || true
  fi
  wait "$pid" 2>/dev/null || true
}
exec 3>&2

# Every process a program starts is ended, by its PID, when the program exits; one ended before is forgotten,
# so that its PID, once reused, is never signalled.
PIDS=()
forget_pid() { local pid kept=(); for pid in "${PIDS[@]}"; do [ "$pid" = "$1" ] || kept+=("$pid"); done; PIDS=("${kept[@]}"); }
# (bash, on its way out, may warn that it has no record of a child it already reaped: stderr is muted here)
cleanup() { local pid; for pid in "${PIDS[@]}"; do end_pid "$pid" 10; done; }
trap 'cleanup 2>/dev/null' EXIT

kv() { sed -n "s/.*\b$2=\([^ ]*\).*/\1/p" <<< "$1" | head -n1; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
ms_since() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", (b - a) * 1000 }'; } # EPOCH_S -> ms until now
rss_kb() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }
threads() { awk '/^Threads/ {print $2}' "/proc/$1/status"; }
# thread_names PID -> "3 name, 2 other, …": the process's threads grouped by name (comm, at most 15 bytes), most
# first; a thread that ends while they are read is left out
thread_names() { { cat /proc/"$1"/task/*/comm 2>/dev/null || true; } | sort | uniq -c | sort -k1,1nr -k2 | awk '{ n = $1; $1 = ""; printf "%s%d%s", sep, n, $0; sep = ", " }'; }
# cpu_ticks PID -> utime + stime of the whole process (every thread, ended ones included), in clock ticks
cpu_ticks() { sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'; }
CLK_TCK=$(getconf CLK_TCK)
# cpu_per_call TICKS CALLS -> µs of CPU per call, one decimal
cpu_per_call() { awk -v t="$1" -v n="$2" -v hz="$CLK_TCK" 'BEGIN { if (n > 0) printf "%.1f", t * 1e6 / hz / n; else print "n/a" }'; }
added() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", a - b }'; }

# raise_open_files NEED: the soft open-file limit of this program, and so of the gateways it starts, raised to at
# least NEED (to the hard limit when that is lower, with a warning): a gateway holds a few descriptors per child.
raise_open_files() {
  local need=$1 soft hard; soft=$(ulimit -Sn); hard=$(ulimit -Hn)
  [ "$soft" = unlimited ] || [ "$soft" -ge "$need" ] && return 0
  if [ "$hard" = unlimited ] || [ "$hard" -ge "$need" ]; then ulimit -Sn "$need"; return 0; fi
  ulimit -Sn "$hard"
  echo "open-file limit $hard (hard) is below the $need a gateway with this many upstreams needs" >&2
}

# config FILE N CMD [ARGS...]: N copies of one stdio upstream, named up0…
config() {
  local file=$1 n=$2; shift 2
  python3 - "$file" "$n" "$@" <<'PY'
import json, os, sys
file, n, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
servers = {f"up{i}": {"command": cmd[0], "args": cmd[1:]} for i in range(n)}
document = {"mcpServers": servers}
if os.environ.get("WITH_PROFILE"):
    # A profile over every server, its filter and rename touching one tool each: what a profile's listing costs.
    document["profiles"] = {"all": {"tools": {"deny": ["up0__pad*"]}, "rename": {"up1__echo": "echo_one"}}}
json.dump(document, open(file, "w"))
PY
}

# launch CONFIG: a release yrden serving CONFIG on a free port, not waited for; sets GW_PID, BASE (its root URL),
# URL (its MCP endpoint) and T0 (its start on the wall clock, $EPOCHREALTIME, for wait_connected -S)
launch() {
  local port; port=$(free_port)
  T0=$EPOCHREALTIME
  # A data directory of its own, fresh each time: tool pins and tokens stay with the bench, never in the user's,
  # and one measurement's pins never meet another's servers.
  rm -rf "$OUT/data"
  "$YRDEN" serve --config "$1" --listen "127.0.0.1:$port" --data-dir "$OUT/data" --log-level warning 2>>"$OUT/gateway.log" &
  GW_PID=$!; PIDS+=("$GW_PID")
  BASE="http://127.0.0.1:$port"; URL="$BASE/mcp"
}

# start CONFIG -> launch, then wait for /readyz; sets READY_MS too
start() {
  launch "$1"
  for _ in $(seq 1 2000); do
    if curl -sf "$BASE/readyz" >/dev/null 2>&1; then READY_MS=$(ms_since "$T0"); return; fi
    sleep 0.005
  done
  echo "gateway did not become ready" >&2; exit 1
}
# stop: ends the gateway, then checks that none of its children outlived it (it reaps every child before it
# exits); any that did are named on stderr and sent SIGTERM.
stop() {
  local kids kid state left=()
  kids=$(cat /proc/"$GW_PID"/task/*/children 2>/dev/null || true)
  end_pid "$GW_PID"
  forget_pid "$GW_PID"
  for kid in $kids; do
    state=$(sed 's/.*) //' "/proc/$kid/stat" 2>/dev/null | cut -d' ' -f1) || true
    case $state in "" | Z) continue ;; esac
    left+=("$kid $(tr '\0' ' ' < "/proc/$kid/cmdline" 2>/dev/null)")
    kill -TERM "$kid" 2>/dev/null || true
  done
  if [ ${#left[@]} -gt 0 ]; then
    echo "${#left[@]} children outlived gateway $GW_PID (sent SIGTERM): ${left[*]:0:3}" >&2
  fi
}

# session -> the Mcp-Session-Id that URL mints on initialize (empty for a stateless server)
session() {
  curl -si -X POST "$URL" -H 'Accept: application/json, text/event-stream' -H 'Content-Type: application/json' \
    -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}' \
    | tr -d '\r' | sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: //p'
}

wrk_rps() { # CONNS TOOL -> "rps bad_bodies requests" at URL in session SID
  local line
  line=$(MCP_SESSION_ID=$SID MCP_TOOL=$2 wrk -t1 -c"$1" -d"${DUR}s" --timeout 10s -s "$BENCH_DIR/mcp_call.lua" "$URL" 2>&1 | grep '^RESULT' || true)
  echo "$(kv "$line" rps) $(kv "$line" bad_body) $(kv "$line" requests)"
}

# R[LABEL.*]: every figure, by the label of what was measured.
declare -A R

# With CPU_PID set, measure_seq and measure_wrk also record that process's CPU per call (µs): LABEL.cpu1 over
# the sequential run (its CALLS calls and 100 warm-up calls on the new connection) and LABEL.cpu64 over the
# 64-connection run; measure_calls adds LABEL.cpu_all, over every call of both (warm-up, sequential, 16 and 64
# connections), as the reference harness computes its "CPU ms per 1k calls". The clock tick (CLK_TCK, usually
# 10 ms) bounds the precision: thousands of calls are needed.

# measure_seq LABEL TOOL: CALLS sequential tools/call TOOL at URL in session SID (after 300 warm-up calls):
# calls/s, p50, p99 and failed calls.
measure_seq() {
  local label=$1 tool=$2 before=0
  "$OUT/mcp_seq" -n 300 -s "$SID" -t "$tool" "$URL" >/dev/null
  [ -z "${CPU_PID:-}" ] || before=$(cpu_ticks "$CPU_PID")
  local seq; seq=$("$OUT/mcp_seq" -n "$CALLS" -W 100 -s "$SID" -t "$tool" "$URL" | grep '^RESULT')
  [ -z "${CPU_PID:-}" ] || R[$label.cpu1]=$(cpu_per_call $(( $(cpu_ticks "$CPU_PID") - before )) $(( CALLS + 100 )))
  R[$label.c1_rps]=$(kv "$seq" rps); R[$label.p50]=$(kv "$seq" p50_us); R[$label.p99]=$(kv "$seq" p99_us)
  R[$label.errors]=$(kv "$seq" errors)
}

# measure_wrk LABEL TOOL: wrk at 16 and 64 connections (calls/s, bad bodies).
measure_wrk() {
  local requests before=0
  read -r R[$1.c16] R[$1.bad16] R[$1.n16] < <(wrk_rps 16 "$2")
  [ -z "${CPU_PID:-}" ] || before=$(cpu_ticks "$CPU_PID")
  read -r R[$1.c64] R[$1.bad64] requests < <(wrk_rps 64 "$2")
  R[$1.n64]=${requests:-0}
  [ -z "${CPU_PID:-}" ] || R[$1.cpu64]=$(cpu_per_call $(( $(cpu_ticks "$CPU_PID") - before )) "${requests:-0}")
}

# measure_calls LABEL TOOL: both of the above.
measure_calls() {
  local before=0
  [ -z "${CPU_PID:-}" ] || before=$(cpu_ticks "$CPU_PID")
  measure_seq "$1" "$2"; measure_wrk "$1" "$2"
  [ -z "${CPU_PID:-}" ] || R[$1.cpu_all]=$(cpu_per_call $(( $(cpu_ticks "$CPU_PID") - before )) \
    $(( 300 + CALLS + 100 + ${R[$1.n16]:-0} + R[$1.n64] )))
}

# measure_direct LABEL CMD...: the stdio driver straight at CMD (no gateway), CALLS sequential calls then windows
# of 16 and 64, into R[LABEL.*].
measure_direct() { # LABEL CMD...
  local label=$1; shift
  local out; out=$("$OUT/stdio_driver" -s "$CALLS" -p 100000 -w 16,64 -W 300 -T 120 -- "$@")
  local seq; seq=$(grep 'RESULT phase=sequential' <<< "$out")
  R[$label.c1_rps]=$(kv "$seq" rps); R[$label.p50]=$(kv "$seq" p50_us); R[$label.p99]=$(kv "$seq" p99_us)
  R[$label.c16]=$(grep 'window=16 ' <<< "$out" | grep RESULT | sed -n 's/.*rps=\([0-9.]*\).*/\1/p')
  R[$label.c64]=$(grep 'window=64 ' <<< "$out" | grep RESULT | sed -n 's/.*rps=\([0-9.]*\).*/\1/p')
}

# remote_config FILE NAME URL: a gateway config whose only server is the Streamable HTTP endpoint URL.
remote_config() {
  python3 - "$@" <<'PY'
import json, sys
file, name, url = sys.argv[1:]
json.dump({"mcpServers": {name: {"url": url}}}, open(file, "w"))
PY
}

# wait_for_tool TOOL: until URL lists TOOL in session SID (a gateway is ready before its upstreams are).
wait_for_tool() {
  for _ in $(seq 1 200); do
    curl -s -X POST "$URL" -H "Mcp-Session-Id: $SID" -H 'Content-Type: application/json' \
      -H 'Accept: application/json, text/event-stream' -d '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' \
      | jq -e --arg tool "$1" 'any(.result.tools[]; .name == $tool)' >/dev/null 2>&1 && return
    sleep 0.05
  done
  echo "$URL never listed $1 (see $OUT/gateway.log)" >&2; exit 1
}

# start_python_upstream -> the SDK's HTTP server (of PYTHON_VENV) on a free port; sets PY_URL once it answers
# tools/list, and PY_PID
start_python_upstream() {
  local port; port=$(free_port)
  "$PYTHON_VENV/bin/python" "$ROOT/Tests/interop/servers/http_server.py" --port "$port" --json-response --stateless \
    2>>"$OUT/python_upstream.log" &
  PY_PID=$!; PIDS+=("$PY_PID")
  PY_URL="http://127.0.0.1:$port/mcp"
  for _ in $(seq 1 600); do
    if curl -sf -X POST "$PY_URL" -H 'Accept: application/json, text/event-stream' -H 'Content-Type: application/json' \
      -d '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' >/dev/null 2>&1; then return; fi
    sleep 0.05
  done
  echo "the Python upstream did not start (see $OUT/python_upstream.log)" >&2; exit 1
}
