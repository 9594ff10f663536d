"""A test authorization server for Yrden as an OAuth-protected resource (``test_resource_server*.py``).

Run it as ``python auth_server.py [--introspection-client ID:SECRET]``; when ready it prints its base URL
(``http://127.0.0.1:PORT``, also its issuer) as one line on stdout. It issues RS256 JWTs and speaks:

- ``GET /.well-known/oauth-authorization-server`` (RFC 8414) and ``/.well-known/openid-configuration``;
- ``GET /jwks``: the signing keys published now;
- ``POST /register``: dynamic client registration (RFC 7591), any redirect URI;
- ``GET /authorize``: authorization code + PKCE (S256 only), approved at once for the user ``/control/user`` set
  (alice, groups ``ops``, by default), redirecting to the client's ``redirect_uri`` with ``code`` and ``state``;
- ``POST /token``: ``authorization_code`` (the PKCE verifier checked) and ``refresh_token``; the access token's
  ``aud`` is the ``resource`` the client asked for (RFC 8707);
- ``POST /introspect`` (RFC 7662, HTTP Basic as the introspection client): opaque tokens minted by
  ``/control/mint``, and the JWTs it issued;
- ``POST /control/user`` ``{"user", "groups"}``: whom the next authorization is for;
- ``POST /control/mint`` ``{"sub", "groups", "aud", "scope", "exp_in", "iss", "alg", "kid", "opaque",
  "foreign_key"}``: a token as the test wants it, good or broken (``alg: none``, another issuer, a key the
  server does not publish, ...);
- ``POST /control/rotate``: a new signing key, published beside the old one, signs from now on;
- ``POST /control/introspection-delay`` ``{"seconds"}``: each introspection answers that much later (0: at once);
- ``GET /control/stats``: how many times the key set, the metadata and introspection were asked for, and the
  most introspections it was answering at once (``introspect_concurrent_max``).
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import secrets
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa

HOST = "127.0.0.1"


def b64url_int(value: int) -> str:
    raw = value.to_bytes((value.bit_length() + 7) // 8, "big")
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


class Issuer:
    def __init__(self, base: str, introspection_client: tuple[str, str] | None):
        self.base = base
        self.lock = threading.Lock()
        self.keys: list[tuple[str, Any]] = [("key-1", rsa.generate_private_key(public_exponent=65537, key_size=2048))]
        self.clients: dict[str, dict[str, Any]] = {}
        self.codes: dict[str, dict[str, Any]] = {}
        self.refresh: dict[str, dict[str, Any]] = {}
        self.opaque: dict[str, dict[str, Any]] = {}
        self.user = {"user": "alice", "groups": ["ops"]}
        self.introspection_client = introspection_client
        self.stats = {"jwks": 0, "metadata": 0, "introspect": 0, "tokens": 0, "registrations": 0, "introspect_concurrent_max": 0}
        self.introspection_delay = 0.0
        self.introspecting = 0

    def metadata(self) -> dict[str, Any]:
        return {
            "issuer": self.base,
            "authorization_endpoint": f"{self.base}/authorize",
            "token_endpoint": f"{self.base}/token",
            "registration_endpoint": f"{self.base}/register",
            "jwks_uri": f"{self.base}/jwks",
            "introspection_endpoint": f"{self.base}/introspect",
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none", "client_secret_post", "client_secret_basic"],
            "scopes_supported": ["mcp"],
        }

    def jwks(self) -> dict[str, Any]:
        keys = []
        for kid, key in self.keys:
            numbers = key.public_key().public_numbers()
            keys.append({"kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256", "n": b64url_int(numbers.n), "e": b64url_int(numbers.e)})
        return {"keys": keys}

    def claims(self, sub: str, groups: list[str], aud: str | None, scope: str, exp_in: float) -> dict[str, Any]:
        now = time.time()
        claims: dict[str, Any] = {
            "iss": self.base, "sub": sub, "groups": groups, "scope": scope, "iat": int(now), "exp": int(now + exp_in),
            "jti": secrets.token_hex(8),
        }
        if aud is not None:
            claims["aud"] = aud
        return claims

    def sign(self, claims: dict[str, Any], *, alg: str = "RS256", kid: str | None = None, foreign_key: bool = False) -> str:
        kid_now, key = self.keys[-1]
        if foreign_key:
            key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        headers = {"kid": kid or kid_now}
        if alg == "none":
            header = base64.urlsafe_b64encode(json.dumps({"alg": "none", "typ": "JWT", **headers}).encode()).rstrip(b"=")
            body = base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=")
            return (header + b"." + body + b".").decode()
        if alg == "HS256":
            return jwt.encode(claims, "a-shared-secret-anyone-could-guess-0123", algorithm="HS256", headers=headers)
        return jwt.encode(claims, key, algorithm="RS256", headers=headers)

    def issue(self, client_id: str, user: dict[str, Any], resource: str | None, scope: str) -> dict[str, Any]:
        access = self.sign(self.claims(user["user"], user["groups"], resource, scope, 300))
        refresh = secrets.token_urlsafe(24)
        self.refresh[refresh] = {"client_id": client_id, "user": user, "resource": resource, "scope": scope}
        self.stats["tokens"] += 1
        return {"access_token": access, "token_type": "Bearer", "expires_in": 300, "refresh_token": refresh, "scope": scope}


def make_handler(issuer: Issuer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def reply(self, status: int, body: Any = None, headers: dict[str, str] | None = None) -> None:
            data = b"" if body is None else json.dumps(body).encode()
            self.send_response(status)
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            if body is not None:
                self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def form(self) -> dict[str, str]:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length).decode()
            if self.headers.get("Content-Type", "").startswith("application/json"):
                return json.loads(raw or "{}")
            return dict(parse_qsl(raw))

        def do_GET(self) -> None:
            url = urlsplit(self.path)
            with issuer.lock:
                if url.path in ("/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"):
                    issuer.stats["metadata"] += 1
                    return self.reply(200, issuer.metadata())
                if url.path == "/jwks":
                    issuer.stats["jwks"] += 1
                    return self.reply(200, issuer.jwks())
                if url.path == "/control/stats":
                    return self.reply(200, issuer.stats)
                if url.path == "/authorize":
                    query = dict(parse_qsl(url.query))
                    if query.get("code_challenge_method") != "S256" or not query.get("code_challenge"):
                        return self.reply(400, {"error": "invalid_request", "error_description": "PKCE S256 needed"})
                    if query.get("client_id") not in issuer.clients:
                        return self.reply(400, {"error": "invalid_client"})
                    code = secrets.token_urlsafe(16)
                    issuer.codes[code] = {**query, "user": dict(issuer.user)}
                    target = query["redirect_uri"] + "?" + urlencode({"code": code, "state": query.get("state", "")})
                    return self.reply(302, None, {"Location": target})
            self.reply(404, {"error": "not_found"})

        def do_POST(self) -> None:
            url = urlsplit(self.path)
            form = self.form()
            if url.path == "/introspect":
                return self.introspect_later(form)
            with issuer.lock:
                if url.path == "/register":
                    client_id = "client-" + secrets.token_hex(6)
                    issuer.clients[client_id] = form
                    issuer.stats["registrations"] += 1
                    return self.reply(201, {**form, "client_id": client_id, "token_endpoint_auth_method": "none"})
                if url.path == "/token":
                    return self.token(form)
                if url.path == "/control/introspection-delay":
                    issuer.introspection_delay = float(form.get("seconds", 0))
                    return self.reply(200, {"seconds": issuer.introspection_delay})
                if url.path == "/control/user":
                    issuer.user = {"user": form["user"], "groups": form.get("groups", [])}
                    return self.reply(200, issuer.user)
                if url.path == "/control/mint":
                    return self.mint(form)
                if url.path == "/control/rotate":
                    kid = f"key-{len(issuer.keys) + 1}"
                    issuer.keys.append((kid, rsa.generate_private_key(public_exponent=65537, key_size=2048)))
                    return self.reply(200, {"kid": kid})
            self.reply(404, {"error": "not_found"})

        def token(self, form: dict[str, str]) -> None:
            grant = form.get("grant_type")
            if grant == "authorization_code":
                pending = issuer.codes.pop(form.get("code", ""), None)
                if pending is None or pending["client_id"] != form.get("client_id"):
                    return self.reply(400, {"error": "invalid_grant"})
                challenge = base64.urlsafe_b64encode(hashlib.sha256(form.get("code_verifier", "").encode()).digest()).rstrip(b"=").decode()
                if challenge != pending["code_challenge"]:
                    return self.reply(400, {"error": "invalid_grant", "error_description": "PKCE verifier does not match"})
                resource = form.get("resource") or pending.get("resource")
                return self.reply(200, issuer.issue(pending["client_id"], pending["user"], resource, pending.get("scope") or "mcp"))
            if grant == "refresh_token":
                held = issuer.refresh.pop(form.get("refresh_token", ""), None)
                if held is None:
                    return self.reply(400, {"error": "invalid_grant"})
                return self.reply(200, issuer.issue(held["client_id"], held["user"], form.get("resource") or held["resource"], held["scope"]))
            self.reply(400, {"error": "unsupported_grant_type"})

        def introspect_later(self, form: dict[str, str]) -> None:
            # Counted in flight from arrival; the delay is slept outside the lock, so delayed answers overlap.
            with issuer.lock:
                issuer.introspecting += 1
                issuer.stats["introspect_concurrent_max"] = max(issuer.stats["introspect_concurrent_max"], issuer.introspecting)
                delay = issuer.introspection_delay
            try:
                time.sleep(delay)
                with issuer.lock:
                    self.introspect(form)
            finally:
                with issuer.lock:
                    issuer.introspecting -= 1

        def introspect(self, form: dict[str, str]) -> None:
            issuer.stats["introspect"] += 1
            expected = issuer.introspection_client
            sent = self.headers.get("Authorization", "")
            if expected is None or sent != "Basic " + base64.b64encode(f"{expected[0]}:{expected[1]}".encode()).decode():
                return self.reply(401, {"error": "invalid_client"})
            claims = issuer.opaque.get(form.get("token", ""))
            if claims is None or claims["exp"] < time.time():
                return self.reply(200, {"active": False})
            self.reply(200, {"active": True, **claims})

        def mint(self, form: dict[str, Any]) -> None:
            claims = issuer.claims(
                form.get("sub", "alice"), form.get("groups", ["ops"]), form.get("aud"), form.get("scope", "mcp"), float(form.get("exp_in", 300))
            )
            if "iss" in form:
                claims["iss"] = form["iss"]
            if form.get("opaque"):
                token = "opaque-" + secrets.token_urlsafe(24)
                issuer.opaque[token] = claims
                return self.reply(200, {"token": token})
            token = issuer.sign(claims, alg=form.get("alg", "RS256"), kid=form.get("kid"), foreign_key=bool(form.get("foreign_key")))
            self.reply(200, {"token": token})

    return Handler


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--introspection-client", default=None)
    args = parser.parse_args()
    client = tuple(args.introspection_client.split(":", 1)) if args.introspection_client else None
    # Room for the gateway's concurrent introspections (the default backlog of 5 would make some wait for a
    # SYN retry).
    ThreadingHTTPServer.request_queue_size = 128
    server = ThreadingHTTPServer((HOST, 0), BaseHTTPRequestHandler)
    base = f"http://{HOST}:{server.server_address[1]}"
    server.RequestHandlerClass = make_handler(Issuer(base, client))  # type: ignore[assignment]
    print(base, flush=True)
    sys.stdout.close()
    server.serve_forever()


if __name__ == "__main__":
    main()
