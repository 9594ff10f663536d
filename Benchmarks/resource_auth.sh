#!/usr/bin/env bash
# Prints what an OAuth access token costs the gateway over a static client token (issue 28's budget: a call with
# a JWT costs at most 10 µs more gateway CPU). One gateway with `gateway.auth` and a static client token in front
# of the C echo upstream; a session opened with each credential; tools/call at 64 connections (wrk), alternating
# ROUNDS (default 3) runs of DUR/2 seconds each, medians of gateway CPU per call. The issuer is a directory of
# two files (RFC 8414 metadata and the JWKS of an RSA key made here with openssl) served by python3's
# http.server; the JWT is signed with that key. A program, not a test: run it on purpose (`make bench` runs it).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
ROUNDS=${ROUNDS:-3}
prepare
command -v openssl >/dev/null || { echo "resource_auth.sh needs openssl" >&2; exit 2; }

b64url() { base64 -w0 | tr '+/' '-_' | tr -d '='; }

ISSUER_DIR="$OUT/issuer"; rm -rf "$ISSUER_DIR"; mkdir -p "$ISSUER_DIR/.well-known"
ISSUER_PORT=$(free_port); ISSUER="http://127.0.0.1:$ISSUER_PORT"
AUDIENCE="https://bench.invalid/mcp"
openssl genrsa -out "$OUT/issuer-key.pem" 2048 2>/dev/null
MODULUS=$(openssl rsa -in "$OUT/issuer-key.pem" -noout -modulus 2>/dev/null | sed 's/^Modulus=//' | xxd -r -p | b64url)
printf '{"issuer":"%s","jwks_uri":"%s/jwks"}' "$ISSUER" "$ISSUER" > "$ISSUER_DIR/.well-known/oauth-authorization-server"
printf '{"keys":[{"kty":"RSA","kid":"bench","use":"sig","alg":"RS256","n":"%s","e":"AQAB"}]}' "$MODULUS" > "$ISSUER_DIR/jwks"
python3 -m http.server --bind 127.0.0.1 --directory "$ISSUER_DIR" "$ISSUER_PORT" >/dev/null 2>&1 &
ISSUER_PID=$!; PIDS+=("$ISSUER_PID")
for _ in $(seq 1 200); do curl -sf "$ISSUER/jwks" -o /dev/null && break; sleep 0.02; done

HEADER=$(printf '{"alg":"RS256","typ":"JWT","kid":"bench"}' | b64url)
PAYLOAD=$(printf '{"iss":"%s","aud":"%s","sub":"bench-user","scope":"mcp","exp":%d}' "$ISSUER" "$AUDIENCE" \
  $(( $(date +%s) + 3600 )) | b64url)
SIGNATURE=$(printf '%s.%s' "$HEADER" "$PAYLOAD" | openssl dgst -sha256 -sign "$OUT/issuer-key.pem" | b64url)
JWT="$HEADER.$PAYLOAD.$SIGNATURE"
STATIC="bench-static-client-token-$$"

python3 - "$OUT/auth.json" "$OUT/echo_upstream" "$ISSUER" "$AUDIENCE" "$STATIC" <<'PY'
import json, sys
file, upstream, issuer, audience, static = sys.argv[1:]
json.dump({
    "gateway": {"clientTokens": [static], "auth": {"issuer": issuer, "audience": audience, "scopes": ["mcp"]}},
    "mcpServers": {"up0": {"command": upstream, "args": ["0"]}},
}, open(file, "w"))
PY
start "$OUT/auth.json"

session_of() { # TOKEN -> a session id opened with it
  curl -si -X POST "$URL" -H 'Accept: application/json, text/event-stream' -H 'Content-Type: application/json' \
    -H "Authorization: Bearer $1" \
    -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}' \
    | tr -d '\r' | sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: //p'
}
declare -A TOKEN=([static]=$STATIC [jwt]=$JWT) SESSION
for kind in static jwt; do
  SESSION[$kind]=$(session_of "${TOKEN[$kind]}")
  [ -n "${SESSION[$kind]}" ] || { echo "no session with the $kind token (see $OUT/gateway.log)" >&2; exit 1; }
done

cpu_static=(); cpu_jwt=()
for _ in $(seq 1 "$ROUNDS"); do
  for kind in static jwt; do
    before=$(cpu_ticks "$GW_PID")
    line=$(MCP_SESSION_ID=${SESSION[$kind]} MCP_TOOL=up0__echo MCP_EXTRA_HEADER="Authorization: Bearer ${TOKEN[$kind]}" \
      wrk -t1 -c64 -d"$(( DUR / 2 ))s" --timeout 10s -s "$BENCH_DIR/mcp_call.lua" "$URL" 2>&1 | grep '^RESULT' || true)
    [ "$(kv "$line" bad_body)" = 0 ] || { echo "$kind calls failed: $line" >&2; exit 1; }
    eval "cpu_$kind+=($(cpu_per_call $(( $(cpu_ticks "$GW_PID") - before )) "$(kv "$line" requests)"))"
  done
done
stop
end_pid "$ISSUER_PID" 5; forget_pid "$ISSUER_PID"

median_of() { printf '%s\n' "$@" | sort -g | sed -n "$(( ($# + 1) / 2 ))p"; }
static_cpu=$(median_of "${cpu_static[@]}"); jwt_cpu=$(median_of "${cpu_jwt[@]}")
extra=$(awk -v a="$jwt_cpu" -v b="$static_cpu" 'BEGIN { printf "%.1f", a - b }')
within=$(awk -v e="$extra" 'BEGIN { print (e <= 10) ? "yes" : "no" }')
printf '%-44s %12s %12s %12s %8s\n' "budget (issue 28), yrden → C echo, 64 conn." "static" "JWT" "added" "within"
printf '%-44s %12s %12s %12s %8s\n' "gateway CPU us per call (budget: +10 us)" "$static_cpu" "$jwt_cpu" "$extra" "$within"
