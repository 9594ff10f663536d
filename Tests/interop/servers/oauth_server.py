"""An OAuth-protected MCP server for the interop tests: authorization server and resource in one process.

Built from the official Python SDK's auth support: ``MCPServer(auth=AuthSettings(...),
auth_server_provider=...)`` serves the authorization server (RFC 8414 metadata at
``/.well-known/oauth-authorization-server``, ``/authorize``, ``/token``, ``/register`` for dynamic client
registration, ``/revoke``) and the protected resource (Streamable HTTP at ``/mcp``, RFC 9728 metadata at
``/.well-known/oauth-protected-resource/mcp``, 401 with ``WWW-Authenticate: Bearer
resource_metadata="…"`` without a valid token). The provider below keeps everything in memory.

It is stricter than the SDK alone, as a careful production server would be: PKCE must name S256 (the SDK
reads a missing ``code_challenge_method`` as S256), and ``resource`` (RFC 8707) must be this server's MCP URL
in the authorization request and in every token request, else ``invalid_target``. ``/authorize`` approves at
once, as if the user clicked "Allow": a 302 to the client's registered ``redirect_uri`` with ``code``,
``state`` and ``iss`` (RFC 9207, advertised in the metadata; ``--no-iss`` drops both). Error redirects carry
``iss`` too. Refresh tokens rotate: a refresh answers a new pair and the old refresh token stops working.
With ``--revoke-reused-refresh-tokens`` a refresh token presented again after it was rotated is taken for a
stolen one, as careful servers do (OAuth 2.0 Security BCP, section 4.14.2): the request is refused and every
token issued from it since (the refresh tokens it was rotated into and their access tokens) is revoked.
Tokens carry recognisable prefixes (``peer_at_``, ``peer_rt_``, codes ``peer_code_``) so a test can grep a
log for any of them.

Run it as ``python oauth_server.py [--port P] [--access-token-ttl S] [--deny] [--scopes "a b"]
[--required-scopes "a"] [--no-iss] [--revoke-reused-refresh-tokens] [--cimd]``. ``--port 0`` (the default) picks a free port. When it is ready it
prints its MCP URL (``http://127.0.0.1:PORT/mcp``) as one line on stdout; everything else goes to stderr.

- ``--access-token-ttl SECONDS``: lifetime of access tokens (default 3600); short for refresh scenarios.
- ``--deny``: the user clicks "Deny": ``/authorize`` redirects back with ``error=access_denied`` and ``state``.
- ``--scopes "mcp:read mcp:write"``: ``scopes_supported`` in both metadata documents, the scopes a client
  may register for, and the scopes it gets when it registers without any (default ``mcp:read mcp:write``).
- ``--required-scopes "mcp:write"``: scopes a token must hold for ``/mcp`` (else 403 insufficient_scope).
- ``--cimd``: advertise ``client_id_metadata_document_supported`` and take an http(s) URL as client_id: the
  document there is fetched at each use and must name itself (``client_id``), list ``redirect_uris`` and a
  ``client_name``, and describe a public client.
- ``--extra-resource URL`` (repeatable): another protected resource this authorization server issues tokens
  for (the ``resource`` of authorization and token requests may name it; the token is bound to it and so not
  accepted at /mcp). The interop tests' WebSocket server uses it, checking tokens at ``/control/introspect``.
- ``--stateless``: serve /mcp without sessions (the SDK's ``stateless_http``), so each request stands on its
  own token, where a session is bound to the token that opened it.

Control endpoints (not protected, loopback only):

- ``GET /control/stats``: what the server saw, as counts and last values (no secrets):
  ``registrations``, ``clients``, ``authorize_requests``, ``authorizations`` (codes issued), ``denials``,
  ``code_challenge_methods`` / ``last_code_challenge_method`` (``"(none)"`` when absent),
  ``authorize_resources`` / ``last_authorize_resource``, ``token_resources`` / ``last_token_resource``,
  ``scopes_requested`` / ``last_scope_requested`` (the ``scope`` of authorization requests),
  ``token_requests`` (``{grant_type: {"ok": n, "failed": n}}``), ``token_issues``, ``refreshes``,
  ``refresh_failures``, ``last_token_error``, ``revocations`` (RFC 7009 calls that revoked something),
  ``reused_refresh_tokens`` (rotated refresh tokens presented again), ``revoke_reused_refresh_tokens``,
  ``cimd``, ``cimd_fetches``, ``cimd_clients`` (documents accepted), ``cimd_failures`` (why one was not),
  ``mcp_requests``, ``mcp_authorization`` (requests to ``/mcp`` per Authorization header kind: ``missing``,
  ``not_bearer``, ``valid``, ``expired``, ``revoked``, ``unknown``), ``last_mcp_authorization``
  (``{"status", "client_id", "grant"}``; ``grant`` says whether the token came from ``authorization_code``
  or ``refresh_token``), ``mcp_sessions_by_client`` (each client's ``Mcp-Session-Id`` values, in the order
  first seen on a request with its token), ``ended_sessions`` (session ids DELETEd), ``mcp_statuses`` (answers
  of /mcp per HTTP status), ``live`` (usable access and refresh tokens now), ``deny``, ``access_token_ttl``.
- ``GET /control/secrets``: every secret this server minted (``access_tokens``, ``refresh_tokens``,
  ``codes``, ``client_secrets``), so a test can check that none of them reached a log.
- ``POST /control/revoke-refresh-tokens``: every refresh token stops working (``{"revoked": n}``).
- ``POST /control/revoke-client-tokens`` ``{"client_id": ID, "refresh": bool}``: the access tokens of one
  client stop working (401 at /mcp), its refresh tokens too when ``refresh`` (``{"revoked": n}``);
  ``stats()["refreshes_by_client"]`` counts each client's refreshes.
- ``POST /control/expire-access-tokens``: every access token expires now (``{"expired": n}``); the next
  request to ``/mcp`` with one gets 401.
- ``POST /control/deny`` ``{"deny": true|false}``: switch ``--deny`` at run time.
- ``POST /control/introspect`` ``{"token": T}``: what the access token is (``{"active", "status",
  "client_id", "resource", "grant"}``), for a resource server of ``--extra-resource`` that has no token store.
- ``POST /control/end-sessions`` ``{"client_id": ID}``: the MCP sessions that client's tokens used end at once,
  as when the server drops them (restarted): a call in flight in one breaks off, its id answers 404
  (``{"ended": n}``).

Tools: ``whoami()`` (the client_id and scopes of the token the call came with), ``echo(text)``,
``ask_name()`` (a form elicitation of a name, then a greeting) and ``wait(seconds)`` (``stats()["waiting"]`` counts the calls of it under way).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import secrets
import socket
import sys
import time
from collections import Counter
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Annotated, Any
from urllib.parse import parse_qsl, urlsplit

import anyio
import httpx2
import uvicorn
from mcp.server.auth.handlers.metadata import MetadataHandler
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    AuthorizeError,
    OAuthAuthorizationServerProvider,
    RefreshToken,
    TokenError,
    construct_redirect_uri,
)
from mcp.server.auth.routes import build_metadata, cors_middleware, create_protected_resource_routes
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.server.elicitation import ElicitationResult
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.resolve import Elicit, Resolve
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import AnyHttpUrl, BaseModel, ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

HOST = "127.0.0.1"
MCP_PATH = "/mcp"
AUTHORIZE_PATH = "/authorize"
TOKEN_PATH = "/token"
CODE_TTL_SECONDS = 300
DEFAULT_ACCESS_TOKEN_TTL = 3600
DEFAULT_SCOPES = "mcp:read mcp:write"
LOOPBACK = {"127.0.0.1", "::1", "localhost"}

ACCESS_PREFIX = "peer_at_"
REFRESH_PREFIX = "peer_rt_"
CODE_PREFIX = "peer_code_"

REQUEST_PARAMS: ContextVar[dict[str, str] | None] = ContextVar("oauth_server_request_params", default=None)
"""The raw parameters of the /authorize or /token request being handled (the SDK hides some of them)."""


@dataclass(frozen=True)
class Options:
    port: int
    access_token_ttl: int
    scopes: list[str]
    required_scopes: list[str]
    send_iss: bool
    revoke_reused_refresh_tokens: bool = False
    cimd: bool = False
    stateless: bool = False
    extra_resources: tuple[str, ...] = ()

    @property
    def issuer(self) -> str:
        return f"http://{HOST}:{self.port}"

    @property
    def mcp_url(self) -> str:
        return f"{self.issuer}{MCP_PATH}"

    @property
    def resources(self) -> tuple[str, ...]:
        """The resources (RFC 8707) tokens are issued for: /mcp, then each ``--extra-resource``."""
        return (self.mcp_url, *self.extra_resources)

    def resource_named(self, given: str | None) -> str | None:
        """The resource ``given`` names, or None when it names none of them."""
        return next((resource for resource in self.resources if same_resource(given, resource)), None)


def same_resource(given: str | None, expected: str) -> bool:
    """RFC 8707 resource comparison: as URLs (case, default port), a trailing slash aside."""
    if not given:
        return False
    try:
        return str(AnyHttpUrl(given)).removesuffix("/") == str(AnyHttpUrl(expected)).removesuffix("/")
    except ValidationError:
        return False


# ---------------------------------------------------------------------------
# What the server saw


@dataclass
class Observations:
    registrations: int = 0
    clients: list[dict[str, Any]] = field(default_factory=list)
    authorize_requests: int = 0
    authorizations: int = 0
    denials: int = 0
    code_challenge_methods: Counter[str] = field(default_factory=Counter)
    last_code_challenge_method: str | None = None
    authorize_resources: Counter[str] = field(default_factory=Counter)
    last_authorize_resource: str | None = None
    token_resources: Counter[str] = field(default_factory=Counter)
    last_token_resource: str | None = None
    scopes_requested: Counter[str] = field(default_factory=Counter)
    last_scope_requested: str | None = None
    token_requests: dict[str, Counter[str]] = field(default_factory=dict)
    token_issues: int = 0
    refreshes: int = 0
    refresh_failures: int = 0
    last_token_error: dict[str, Any] | None = None
    revocations: int = 0
    reused_refresh_tokens: int = 0
    refreshes_by_client: Counter[str] = field(default_factory=Counter)
    cimd_fetches: int = 0
    cimd_clients: list[dict[str, Any]] = field(default_factory=list)
    cimd_failures: list[str] = field(default_factory=list)
    mcp_requests: int = 0
    mcp_authorization: Counter[str] = field(default_factory=Counter)
    last_mcp_authorization: dict[str, Any] | None = None
    mcp_sessions_by_client: dict[str, list[str]] = field(default_factory=dict)
    ended_sessions: list[str] = field(default_factory=list)
    mcp_statuses: Counter[int] = field(default_factory=Counter)
    waiting: int = 0

    def note_token_result(self, grant_type: str, status: int, error: str | None) -> None:
        outcome = "ok" if status == 200 else "failed"
        self.token_requests.setdefault(grant_type, Counter())[outcome] += 1
        if grant_type == "refresh_token" and outcome == "failed":
            self.refresh_failures += 1
        if outcome == "failed":
            self.last_token_error = {"grant_type": grant_type, "status": status, "error": error}


# ---------------------------------------------------------------------------
# The authorization server, in memory


@dataclass
class AccessRecord:
    token: AccessToken
    grant: str  # "authorization_code" or "refresh_token": how it was obtained
    expires: float  # time.time() seconds
    refresh_token: str
    revoked: bool = False

    def status(self, now: float) -> str:
        if self.revoked:
            return "revoked"
        return "valid" if now < self.expires else "expired"


@dataclass
class RefreshRecord:
    token: RefreshToken
    access_tokens: list[str]
    state: str = "live"  # "live", "rotated" (used once, replaced) or "revoked"
    successor: str | None = None  # the refresh token this one was rotated into


class MemoryProvider(OAuthAuthorizationServerProvider[AuthorizationCode, RefreshToken, AccessToken]):
    """The SDK's provider protocol over dictionaries; approves every valid authorization request."""

    def __init__(self, options: Options, seen: Observations, deny: bool):
        self.options = options
        self.seen = seen
        self.deny = deny
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessRecord] = {}
        self.refresh: dict[str, RefreshRecord] = {}
        self.codes_issued: list[str] = []

    # -- clients

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        if client_id in self.clients:
            return self.clients[client_id]
        if self.options.cimd and client_id.startswith(("https://", "http://")):
            return await self._client_from_metadata_document(client_id)
        return None

    async def _client_from_metadata_document(self, url: str) -> OAuthClientInformationFull | None:
        """CIMD: the client_id is the URL of the client's metadata document; fetch it (no cache: each use is
        counted) and check it names itself, as the draft requires. A public client (no secret)."""
        self.seen.cimd_fetches += 1
        try:
            async with httpx2.AsyncClient(timeout=5.0, follow_redirects=False) as http:
                response = await http.get(url, headers={"Accept": "application/json"})
            document = response.json()
        except (httpx2.HTTPError, ValueError) as error:
            self.seen.cimd_failures.append(f"{url}: {error}")
            return None
        problem = None
        if response.status_code != 200 or not isinstance(document, dict):
            problem = f"HTTP {response.status_code}"
        elif document.get("client_id") != url:
            problem = f"client_id {document.get('client_id')!r} is not the document's URL"
        elif not document.get("redirect_uris") or not document.get("client_name"):
            problem = "no redirect_uris or client_name"
        elif document.get("token_endpoint_auth_method", "none") != "none" or "client_secret" in document:
            problem = "not a public client"
        if problem:
            self.seen.cimd_failures.append(f"{url}: {problem}")
            return None
        self.seen.cimd_clients.append(
            {"client_id": url, "client_name": document["client_name"], "redirect_uris": document["redirect_uris"]}
        )
        try:
            return OAuthClientInformationFull(
                client_id=url,
                client_name=document["client_name"],
                redirect_uris=document["redirect_uris"],
                grant_types=document.get("grant_types", ["authorization_code", "refresh_token"]),
                token_endpoint_auth_method="none",
                scope=document.get("scope") or " ".join(self.options.scopes) or None,
            )
        except ValidationError as error:
            self.seen.cimd_failures.append(f"{url}: {error}")
            return None

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        self.clients[client_info.client_id] = client_info
        self.seen.registrations += 1
        self.seen.clients.append(
            {
                "client_id": client_info.client_id,
                "client_name": client_info.client_name,
                "redirect_uris": [str(u) for u in client_info.redirect_uris or []],
                "grant_types": client_info.grant_types,
                "token_endpoint_auth_method": client_info.token_endpoint_auth_method,
                "scope": client_info.scope,
            }
        )

    # -- authorization

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        raw = REQUEST_PARAMS.get() or {}
        if raw.get("code_challenge_method") != "S256":
            raise AuthorizeError("invalid_request", "PKCE is required: code_challenge_method must be S256")
        if self.options.resource_named(params.resource) is None:
            raise AuthorizeError(
                "invalid_target", f"resource must be one of {self.options.resources}, got {params.resource!r}"
            )
        if self.deny:
            self.seen.denials += 1
            raise AuthorizeError("access_denied", "the user did not allow access")
        code = CODE_PREFIX + secrets.token_urlsafe(32)
        scopes = params.scopes if params.scopes is not None else (client.scope or "").split()
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=scopes,
            expires_at=time.time() + CODE_TTL_SECONDS,
            client_id=client.client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        self.codes_issued.append(code)
        self.seen.authorizations += 1
        # `iss` is added by the Observer, to error redirects as well as to this one.
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        return self.codes.get(authorization_code)

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        resource = self._check_token_request_resource()
        self.codes.pop(authorization_code.code, None)  # one use only
        return self._issue(client.client_id, authorization_code.scopes, "authorization_code", resource)

    # -- refresh

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> RefreshToken | None:
        record = self.refresh.get(refresh_token)
        if record is not None and record.state == "rotated":
            self.seen.reused_refresh_tokens += 1
            if self.options.revoke_reused_refresh_tokens:
                self._revoke_descendants(record)
        return record.token if record is not None and record.state == "live" else None

    def _revoke_descendants(self, record: RefreshRecord) -> None:
        """A rotated refresh token came back: revoke every refresh token it was rotated into since, and their
        access tokens (whoever holds the live one may be the thief, or may have been robbed)."""
        successor = record.successor
        while successor is not None and (following := self.refresh.get(successor)) is not None:
            following.state = "revoked"
            for value in following.access_tokens:
                if value in self.access:
                    self.access[value].revoked = True
            successor = following.successor

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        resource = self._check_token_request_resource()
        record = self.refresh[refresh_token.token]
        record.state = "rotated"
        self.seen.refreshes += 1
        self.seen.refreshes_by_client[client.client_id] += 1
        issued = self._issue(client.client_id, scopes, "refresh_token", resource)
        record.successor = issued.refresh_token
        return issued

    # -- access tokens

    async def load_access_token(self, token: str) -> AccessToken | None:
        record = self.access.get(token)
        if record is None or record.status(time.time()) != "valid":
            return None
        return record.token

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        """RFC 7009: revoking either token of a pair revokes both."""
        if isinstance(token, RefreshToken):
            refresh = self.refresh.get(token.token)
            access_tokens = refresh.access_tokens if refresh else []
        else:
            record = self.access.get(token.token)
            refresh = self.refresh.get(record.refresh_token) if record else None
            access_tokens = [token.token]
        for value in access_tokens:
            if value in self.access:
                self.access[value].revoked = True
        if refresh is not None:
            refresh.state = "revoked"
        self.seen.revocations += 1

    def classify(self, token: str) -> tuple[str, AccessRecord | None]:
        record = self.access.get(token)
        return ("unknown", None) if record is None else (record.status(time.time()), record)

    # -- control

    def revoke_refresh_tokens(self) -> int:
        live = [r for r in self.refresh.values() if r.state == "live"]
        for record in live:
            record.state = "revoked"
        return len(live)

    def revoke_client_tokens(self, client_id: str, refresh: bool) -> int:
        """Every access token of one client (and its refresh tokens too when ``refresh``) stops working."""
        revoked = 0
        for record in self.access.values():
            if record.token.client_id == client_id and not record.revoked:
                record.revoked = True
                revoked += 1
        for record in self.refresh.values():
            if refresh and record.token.client_id == client_id and record.state == "live":
                record.state = "revoked"
                revoked += 1
        return revoked

    def expire_access_tokens(self) -> int:
        now = time.time()
        live = [r for r in self.access.values() if r.status(now) == "valid"]
        for record in live:
            record.expires = now
        return len(live)

    def live_counts(self) -> dict[str, int]:
        now = time.time()
        return {
            "access_tokens": sum(1 for r in self.access.values() if r.status(now) == "valid"),
            "refresh_tokens": sum(1 for r in self.refresh.values() if r.state == "live"),
        }

    def all_secrets(self) -> dict[str, list[str]]:
        return {
            "access_tokens": list(self.access),
            "refresh_tokens": list(self.refresh),
            "codes": list(self.codes_issued),
            "client_secrets": [c.client_secret for c in self.clients.values() if c.client_secret],
        }

    # -- helpers

    def _check_token_request_resource(self) -> str:
        """The resource the token request names (one of ``Options.resources``), else ``invalid_target``."""
        given = (REQUEST_PARAMS.get() or {}).get("resource")
        resource = self.options.resource_named(given)
        if resource is None:
            raise TokenError("invalid_target", f"resource must be one of {self.options.resources}, got {given!r}")
        return resource

    def _issue(self, client_id: str, scopes: list[str], grant: str, resource: str) -> OAuthToken:
        ttl = self.options.access_token_ttl
        access_value = ACCESS_PREFIX + secrets.token_urlsafe(32)
        refresh_value = REFRESH_PREFIX + secrets.token_urlsafe(32)
        expires = time.time() + ttl
        access = AccessToken(
            token=access_value,
            client_id=client_id,
            scopes=scopes,
            expires_at=math.ceil(expires),  # the SDK compares whole seconds; `expires` is the exact limit
            resource=resource,
        )
        self.access[access_value] = AccessRecord(access, grant, expires, refresh_value)
        self.refresh[refresh_value] = RefreshRecord(
            RefreshToken(token=refresh_value, client_id=client_id, scopes=scopes, resource=resource),
            access_tokens=[access_value],
        )
        self.seen.token_issues += 1
        return OAuthToken(
            access_token=access_value,
            expires_in=ttl,
            scope=" ".join(scopes) or None,
            refresh_token=refresh_value,
        )


# ---------------------------------------------------------------------------
# Watching the wire: what the SDK's handlers do not tell the provider


class Observer:
    """Records /authorize, /token and /mcp traffic, hands raw parameters to the provider, adds ``iss``.

    The SDK's handlers drop ``code_challenge_method`` (they default it) and the token request's
    ``resource``; this middleware reads them first (replaying the body it read) and puts them in
    ``REQUEST_PARAMS`` for the provider.
    """

    def __init__(self, app: ASGIApp, provider: MemoryProvider, seen: Observations, options: Options):
        self.app = app
        self.provider = provider
        self.seen = seen
        self.options = options

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        if path == MCP_PATH:
            self._note_mcp(scope)
            await self.app(scope, receive, self._watch_mcp_status(send))
        elif path == AUTHORIZE_PATH:
            body, receive = await _read_body(receive)
            params = dict(parse_qsl(scope.get("query_string", b"").decode()))
            if scope["method"] == "POST":
                params.update(parse_qsl(body.decode(errors="replace")))
            self._note_authorize(params)
            send = self._with_iss(send) if self.options.send_iss else send
            await self._with_params(params, scope, receive, send)
        elif path == TOKEN_PATH and scope["method"] == "POST":
            body, receive = await _read_body(receive)
            params = dict(parse_qsl(body.decode(errors="replace")))
            self._note_token_request(params)
            await self._with_params(params, scope, receive, self._watch_token_response(params, send))
        else:
            await self.app(scope, receive, send)

    async def _with_params(self, params: dict[str, str], scope: Scope, receive: Receive, send: Send) -> None:
        reset = REQUEST_PARAMS.set(params)
        try:
            await self.app(scope, receive, send)
        finally:
            REQUEST_PARAMS.reset(reset)

    def _note_mcp(self, scope: Scope) -> None:
        self.seen.mcp_requests += 1
        header = dict(scope["headers"]).get(b"authorization", b"").decode(errors="replace")
        record: AccessRecord | None = None
        if not header:
            status = "missing"
        elif not header.lower().startswith("bearer "):
            status = "not_bearer"
        else:
            status, record = self.provider.classify(header[7:].strip())
        self.seen.mcp_authorization[status] += 1
        self.seen.last_mcp_authorization = {
            "status": status,
            "client_id": record.token.client_id if record else None,
            "grant": record.grant if record else None,
        }
        session = dict(scope["headers"]).get(b"mcp-session-id", b"").decode(errors="replace")
        if session and record is not None:
            sessions = self.seen.mcp_sessions_by_client.setdefault(record.token.client_id, [])
            if session not in sessions:
                sessions.append(session)
        if session and scope["method"] == "DELETE":
            self.seen.ended_sessions.append(session)

    def _watch_mcp_status(self, send: Send) -> Send:
        async def watch(message: Message) -> None:
            if message["type"] == "http.response.start":
                self.seen.mcp_statuses[message["status"]] += 1
            await send(message)

        return watch

    def _note_authorize(self, params: dict[str, str]) -> None:
        self.seen.authorize_requests += 1
        method = params.get("code_challenge_method", "(none)")
        self.seen.code_challenge_methods[method] += 1
        self.seen.last_code_challenge_method = method
        resource = params.get("resource", "(none)")
        self.seen.authorize_resources[resource] += 1
        self.seen.last_authorize_resource = resource
        scope = params.get("scope", "(none)")
        self.seen.scopes_requested[scope] += 1
        self.seen.last_scope_requested = scope

    def _note_token_request(self, params: dict[str, str]) -> None:
        resource = params.get("resource", "(none)")
        self.seen.token_resources[resource] += 1
        self.seen.last_token_resource = resource

    def _with_iss(self, send: Send) -> Send:
        """RFC 9207: every authorization response redirected to the client names the issuer."""

        async def add_iss(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] in (302, 303):
                headers = []
                for name, value in message.get("headers", []):
                    if name.lower() == b"location" and self._is_client_redirect(value.decode()):
                        value = construct_redirect_uri(value.decode(), iss=self.options.issuer).encode()
                    headers.append((name, value))
                message = {**message, "headers": headers}
            await send(message)

        return add_iss

    def _is_client_redirect(self, location: str) -> bool:
        """A redirect back to the client (not within this server) that does not name the issuer yet."""
        parts = urlsplit(location)
        own = {f"{HOST}:{self.options.port}", f"localhost:{self.options.port}"}
        return parts.netloc not in own and "iss" not in dict(parse_qsl(parts.query))

    def _watch_token_response(self, params: dict[str, str], send: Send) -> Send:
        grant_type = params.get("grant_type", "(none)")
        status: list[int] = []
        body = bytearray()

        async def watch(message: Message) -> None:
            if message["type"] == "http.response.start":
                status.append(message["status"])
            elif message["type"] == "http.response.body":
                body.extend(message.get("body", b""))
                if not message.get("more_body", False):
                    self.seen.note_token_result(grant_type, status[0] if status else 0, _error_code(bytes(body)))
            await send(message)

        return watch


def _error_code(body: bytes) -> str | None:
    try:
        parsed = json.loads(body)
    except ValueError:
        return None
    return parsed.get("error") if isinstance(parsed, dict) else None


async def _read_body(receive: Receive) -> tuple[bytes, Receive]:
    """The whole request body, and a ``receive`` that hands it to the app again."""
    chunks = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    body = b"".join(chunks)
    replayed = False

    async def replay() -> Message:
        nonlocal replayed
        if not replayed:
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return body, replay


# ---------------------------------------------------------------------------
# Control endpoints


def control_routes(
    provider: MemoryProvider, seen: Observations, options: Options, server: MCPServer | None = None
) -> list[Route]:
    def loopback_only(request: Request) -> Response | None:
        host = request.client.host if request.client else ""
        return None if host in LOOPBACK else JSONResponse({"error": "loopback only"}, status_code=403)

    async def stats(request: Request) -> Response:
        if refused := loopback_only(request):
            return refused
        return JSONResponse(
            {
                "pid": os.getpid(),
                "issuer": options.issuer,
                "mcp_url": options.mcp_url,
                "registrations": seen.registrations,
                "clients": seen.clients,
                "authorize_requests": seen.authorize_requests,
                "authorizations": seen.authorizations,
                "denials": seen.denials,
                "code_challenge_methods": dict(seen.code_challenge_methods),
                "last_code_challenge_method": seen.last_code_challenge_method,
                "authorize_resources": dict(seen.authorize_resources),
                "last_authorize_resource": seen.last_authorize_resource,
                "token_resources": dict(seen.token_resources),
                "last_token_resource": seen.last_token_resource,
                "scopes_requested": dict(seen.scopes_requested),
                "last_scope_requested": seen.last_scope_requested,
                "token_requests": {k: dict(v) for k, v in seen.token_requests.items()},
                "token_issues": seen.token_issues,
                "refreshes": seen.refreshes,
                "refresh_failures": seen.refresh_failures,
                "last_token_error": seen.last_token_error,
                "revocations": seen.revocations,
                "reused_refresh_tokens": seen.reused_refresh_tokens,
                "refreshes_by_client": dict(seen.refreshes_by_client),
                "cimd": options.cimd,
                "cimd_fetches": seen.cimd_fetches,
                "cimd_clients": seen.cimd_clients,
                "cimd_failures": seen.cimd_failures,
                "revoke_reused_refresh_tokens": options.revoke_reused_refresh_tokens,
                "mcp_requests": seen.mcp_requests,
                "mcp_authorization": dict(seen.mcp_authorization),
                "last_mcp_authorization": seen.last_mcp_authorization,
                "mcp_sessions_by_client": seen.mcp_sessions_by_client,
                "ended_sessions": seen.ended_sessions,
                "mcp_statuses": {str(k): v for k, v in seen.mcp_statuses.items()},
                "waiting": seen.waiting,
                "live": provider.live_counts(),
                "deny": provider.deny,
                "access_token_ttl": options.access_token_ttl,
            }
        )

    async def secrets_minted(request: Request) -> Response:
        if refused := loopback_only(request):
            return refused
        return JSONResponse(provider.all_secrets())

    async def revoke_refresh_tokens(request: Request) -> Response:
        if refused := loopback_only(request):
            return refused
        return JSONResponse({"revoked": provider.revoke_refresh_tokens()})

    async def revoke_client_tokens(request: Request) -> Response:
        if refused := loopback_only(request):
            return refused
        body = await request.json()
        return JSONResponse({"revoked": provider.revoke_client_tokens(body["client_id"], bool(body.get("refresh")))})

    async def expire_access_tokens(request: Request) -> Response:
        if refused := loopback_only(request):
            return refused
        return JSONResponse({"expired": provider.expire_access_tokens()})

    async def deny(request: Request) -> Response:
        if refused := loopback_only(request):
            return refused
        body = await request.json()
        provider.deny = bool(body.get("deny", True))
        return JSONResponse({"deny": provider.deny})

    async def introspect(request: Request) -> Response:
        if refused := loopback_only(request):
            return refused
        body = await request.json()
        record = provider.access.get(str(body.get("token", "")))
        if record is None:
            return JSONResponse({"active": False, "status": "unknown"})
        status = record.status(time.time())
        return JSONResponse(
            {
                "active": status == "valid",
                "status": status,
                "client_id": record.token.client_id,
                "resource": record.token.resource,
                "grant": record.grant,
            }
        )

    async def end_sessions(request: Request) -> Response:
        if refused := loopback_only(request):
            return refused
        body = await request.json()
        manager = server.session_manager if server is not None else None
        ended = 0
        for session_id in seen.mcp_sessions_by_client.get(body["client_id"], []):
            transport = manager._server_instances.get(session_id) if manager is not None else None
            if transport is not None:
                await manager._discard_session(session_id, transport)  # type: ignore[union-attr]
                ended += 1
        return JSONResponse({"ended": ended})

    return [
        Route("/control/stats", stats, methods=["GET"]),
        Route("/control/secrets", secrets_minted, methods=["GET"]),
        Route("/control/revoke-refresh-tokens", revoke_refresh_tokens, methods=["POST"]),
        Route("/control/expire-access-tokens", expire_access_tokens, methods=["POST"]),
        Route("/control/revoke-client-tokens", revoke_client_tokens, methods=["POST"]),
        Route("/control/deny", deny, methods=["POST"]),
        Route("/control/end-sessions", end_sessions, methods=["POST"]),
        Route("/control/introspect", introspect, methods=["POST"]),
    ]


# ---------------------------------------------------------------------------
# The app


class Name(BaseModel):
    name: str


def name_question() -> Elicit[Name]:
    return Elicit("What is your name?", Name)


def build_app(options: Options, deny: bool) -> ASGIApp:
    seen = Observations()
    provider = MemoryProvider(options, seen, deny)
    registration = ClientRegistrationOptions(
        enabled=True, valid_scopes=options.scopes or None, default_scopes=options.scopes or None
    )
    revocation = RevocationOptions(enabled=True)
    # Strings, not AnyHttpUrl: AuthSettings keeps a path-less issuer without a trailing slash, and the
    # issuer is compared as a plain string (RFC 8414 section 3.3, RFC 9207).
    settings = AuthSettings(
        issuer_url=options.issuer,  # type: ignore[arg-type]
        resource_server_url=options.mcp_url,  # type: ignore[arg-type]
        client_registration_options=registration,
        revocation_options=revocation,
        required_scopes=options.required_scopes or None,
        validate_token_resource=True,
    )
    server = MCPServer(
        "yrden-interop-oauth", version="1.0.0", auth_server_provider=provider, auth=settings, log_level="WARNING"
    )

    @server.tool(description="Who the call came from: the client_id and scopes of its access token.")
    def whoami() -> dict[str, Any]:
        token = get_access_token()
        if token is None:
            raise ToolError("no access token in this request")
        return {"client_id": token.client_id, "scopes": token.scopes}

    @server.tool(description="Ask the caller for a name (form elicitation), then greet it.")
    async def ask_name(answer: Annotated[ElicitationResult[Name], Resolve(name_question)]) -> str:
        return f"Hello, {answer.data.name}!" if answer.action == "accept" else f"no name ({answer.action})"

    @server.tool(description="Wait this many seconds, then answer.")
    async def wait(seconds: float) -> str:
        seen.waiting += 1
        try:
            await anyio.sleep(seconds)
        finally:
            seen.waiting -= 1
        return f"waited {seconds} s"

    @server.tool(description="Answer with the text it was given.")
    def echo(text: str) -> str:
        return text

    app: Starlette = server.streamable_http_app(stateless_http=options.stateless)
    # Ahead of the SDK's own routes: RFC 8414 metadata that declares RFC 9207 support (the SDK's builder
    # has no switch for it) and public clients ("none", which its registration accepts); RFC 9728
    # metadata listing the scopes (the SDK lists the required scopes there, which would make every
    # client ask for exactly those).
    metadata = build_metadata(settings.issuer_url, None, registration, revocation)
    metadata.token_endpoint_auth_methods_supported = ["client_secret_post", "client_secret_basic", "none"]
    if options.send_iss:
        metadata.authorization_response_iss_parameter_supported = True
    if options.cimd:
        metadata.client_id_metadata_document_supported = True
    overrides = [
        Route(
            "/.well-known/oauth-authorization-server",
            endpoint=cors_middleware(MetadataHandler(metadata).handle, ["GET", "OPTIONS"]),
            methods=["GET", "OPTIONS"],
        ),
        *create_protected_resource_routes(
            resource_url=settings.resource_server_url,  # type: ignore[arg-type]
            authorization_servers=[settings.issuer_url],
            scopes_supported=options.scopes or None,
            resource_name="yrden-interop-oauth",
        ),
        *control_routes(provider, seen, options, server),
    ]
    app.router.routes[0:0] = overrides
    return Observer(app, provider, seen, options)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=0, help="0: any free port")
    parser.add_argument("--access-token-ttl", type=int, default=DEFAULT_ACCESS_TOKEN_TTL, metavar="SECONDS")
    parser.add_argument("--deny", action="store_true", help="authorize answers error=access_denied")
    parser.add_argument("--scopes", default=DEFAULT_SCOPES, help="space-separated scopes_supported")
    parser.add_argument("--required-scopes", default="", help="space-separated scopes /mcp demands")
    parser.add_argument("--no-iss", action="store_true", help="no RFC 9207 iss in redirects or metadata")
    parser.add_argument(
        "--revoke-reused-refresh-tokens",
        action="store_true",
        help="a rotated refresh token presented again revokes every token issued from it since",
    )
    parser.add_argument(
        "--cimd", action="store_true", help="advertise and accept client ID metadata documents (URL client_ids)"
    )
    parser.add_argument("--stateless", action="store_true", help="serve /mcp without sessions")
    parser.add_argument(
        "--extra-resource",
        action="append",
        default=[],
        metavar="URL",
        help="another resource (RFC 8707) tokens may be issued for, a server that asks /control/introspect",
    )
    args = parser.parse_args()

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((HOST, args.port))
    options = Options(
        port=sock.getsockname()[1],
        access_token_ttl=args.access_token_ttl,
        scopes=args.scopes.split(),
        required_scopes=args.required_scopes.split(),
        send_iss=not args.no_iss,
        revoke_reused_refresh_tokens=args.revoke_reused_refresh_tokens,
        cimd=args.cimd,
        stateless=args.stateless,
        extra_resources=tuple(args.extra_resource),
    )
    app = build_app(options, deny=args.deny)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))

    async def announce_when_ready() -> None:
        while not server.started:
            if server.should_exit:
                return
            await anyio.sleep(0.02)
        print(f"oauth_server: pid {os.getpid()}, {options.mcp_url}", file=sys.stderr, flush=True)
        print(options.mcp_url, flush=True)

    async def serve() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(announce_when_ready)
            await server.serve(sockets=[sock])

    anyio.run(serve)


if __name__ == "__main__":
    main()
