"""Helpers for tests against the OAuth-protected peer (``servers/oauth_server.py``).

- starting and stopping the peer (``start_oauth_server`` / ``OAuthServer``, or the ``oauth_server`` fixture:
  import it into a test module and call ``oauth_server(access_token_ttl=5)``);
- steering it and reading what it saw (``OAuthServer.stats()``, ``.secrets()``, ``.revoke_refresh_tokens()``,
  ``.revoke_client_tokens()``, ``.expire_access_tokens()``, ``.set_deny()``);
- a scripted browser (``browser_sign_in``): opens an authorization URL and follows the redirects the way a
  browser does after the user clicked "Allow", optionally stopping before it reaches the client's
  ``redirect_uri``, so a test can deliver that callback itself, late or altered (``with_query``,
  ``open_in_browser``).

Nothing here knows the gateway; it drives the peer as a user and an operator would.
"""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

import httpx2
import pytest

from harness import INTEROP_DIR, PYTHON, clean_env

OAUTH_SERVER = INTEROP_DIR / "servers" / "oauth_server.py"
READY_TIMEOUT = 30.0
STOP_TIMEOUT = 10.0
BROWSER_TIMEOUT = 30.0
MAX_BROWSER_HOPS = 10
SIGN_IN_LINK_PATH = "/oauth/sign-in/"
BROWSER_USER_AGENT = "yrden-interop-browser/1.0"

LIVE_OAUTH_SERVERS: list[OAuthServer] = []
"""Peers started and not yet stopped."""


# ---------------------------------------------------------------------------
# The peer process


@dataclass
class OAuthServer:
    """A running ``oauth_server.py``: its URLs, its control endpoints, its log."""

    proc: subprocess.Popen[bytes]
    url: str  # the MCP endpoint, http://127.0.0.1:PORT/mcp; also the RFC 8707 resource
    workdir: Path
    log_path: Path
    _log_file: Any = field(default=None, repr=False)

    @property
    def base(self) -> str:
        """``http://127.0.0.1:PORT``: the issuer of the authorization server."""
        return self.url.removesuffix("/mcp")

    @property
    def issuer(self) -> str:
        return self.base

    @property
    def port(self) -> int:
        return urlsplit(self.url).port or 0

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def resource_metadata_url(self) -> str:
        return f"{self.base}/.well-known/oauth-protected-resource/mcp"

    @property
    def authorization_server_metadata_url(self) -> str:
        return f"{self.base}/.well-known/oauth-authorization-server"

    def log_text(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    # -- control (see the docstring of oauth_server.py)

    def _control(self, method: str, path: str, body: Any = None) -> Any:
        with httpx2.Client(timeout=10.0) as http:
            response = http.request(method, f"{self.base}/control/{path}", json=body)
        assert response.status_code == 200, f"{method} /control/{path}: HTTP {response.status_code}: {response.text}"
        return response.json()

    def stats(self) -> dict[str, Any]:
        """What the peer saw: registrations, authorizations, PKCE methods, resources, scopes, token grants,
        refreshes, and the kind of Authorization header each /mcp request carried (counts and last values)."""
        return self._control("GET", "stats")

    def secrets(self) -> dict[str, list[str]]:
        """Every secret the peer minted: ``access_tokens``, ``refresh_tokens``, ``codes``, ``client_secrets``."""
        return self._control("GET", "secrets")

    def all_secret_values(self) -> list[str]:
        return [value for values in self.secrets().values() for value in values]

    def revoke_refresh_tokens(self) -> int:
        """Every refresh token stops working; returns how many were live."""
        return self._control("POST", "revoke-refresh-tokens")["revoked"]

    def revoke_client_tokens(self, client_id: str, *, refresh: bool = False) -> int:
        """One client's access tokens stop working (and its refresh tokens when ``refresh``); returns how many."""
        return self._control("POST", "revoke-client-tokens", {"client_id": client_id, "refresh": refresh})["revoked"]

    def expire_access_tokens(self) -> int:
        """Every access token expires now (the next /mcp request with one gets 401); returns how many were live."""
        return self._control("POST", "expire-access-tokens")["expired"]

    def end_sessions(self, client_id: str) -> int:
        """The MCP sessions one client's tokens used end now, as when the server drops them; returns how many."""
        return self._control("POST", "end-sessions", {"client_id": client_id})["ended"]

    def set_deny(self, deny: bool) -> None:
        """From now on the user clicks "Deny" (True) or "Allow" (False)."""
        self._control("POST", "deny", {"deny": deny})

    def stop(self, timeout: float = STOP_TIMEOUT) -> int:
        """SIGTERM, then SIGKILL after ``timeout`` s. Returns the exit status."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        if self._log_file is not None and not self._log_file.closed:
            self._log_file.close()
        if self in LIVE_OAUTH_SERVERS:
            LIVE_OAUTH_SERVERS.remove(self)
        assert self.proc.returncode is not None
        return self.proc.returncode


def oauth_server_args(
    *,
    access_token_ttl: int | None = None,
    deny: bool = False,
    scopes: str | None = None,
    required_scopes: str | None = None,
    iss: bool = True,
    revoke_reused_refresh_tokens: bool = False,
    cimd: bool = False,
    stateless: bool = False,
    extra_resources: tuple[str, ...] = (),
    port: int = 0,
) -> list[str]:
    """The command line of ``oauth_server.py`` for these knobs (defaults: the server's own)."""
    args = [PYTHON, str(OAUTH_SERVER), "--port", str(port)]
    if access_token_ttl is not None:
        args += ["--access-token-ttl", str(access_token_ttl)]
    if deny:
        args.append("--deny")
    if scopes is not None:
        args += ["--scopes", scopes]
    if required_scopes is not None:
        args += ["--required-scopes", required_scopes]
    if not iss:
        args.append("--no-iss")
    if revoke_reused_refresh_tokens:
        args.append("--revoke-reused-refresh-tokens")
    if cimd:
        args.append("--cimd")
    if stateless:
        args.append("--stateless")
    for resource in extra_resources:
        args += ["--extra-resource", resource]
    return args


def start_oauth_server(
    workdir: Path,
    *,
    access_token_ttl: int | None = None,
    deny: bool = False,
    scopes: str | None = None,
    required_scopes: str | None = None,
    iss: bool = True,
    revoke_reused_refresh_tokens: bool = False,
    cimd: bool = False,
    stateless: bool = False,
    extra_resources: tuple[str, ...] = (),
    port: int = 0,
    ready_timeout: float = READY_TIMEOUT,
) -> OAuthServer:
    """Start the peer (on a free port unless ``port`` says otherwise) and wait until it prints its URL.

    ``access_token_ttl``: seconds an access token lives; ``deny``: the user clicks "Deny"; ``scopes``:
    ``scopes_supported`` ("mcp:read mcp:write" by default); ``required_scopes``: what /mcp demands;
    ``iss=False``: no RFC 9207 ``iss``; ``revoke_reused_refresh_tokens``: a rotated refresh token presented
    again revokes every token issued from it since; ``cimd``: it takes client ID metadata documents; ``stateless``: /mcp keeps no sessions;
    ``extra_resources``: other resource servers it issues tokens for (they check them at /control/introspect). Its stdout (the URL) and stderr go to files in ``workdir``.
    """
    workdir.mkdir(parents=True, exist_ok=True)
    out_path = workdir / "oauth_server.out"
    log_path = workdir / "oauth_server.log"
    argv = oauth_server_args(
        access_token_ttl=access_token_ttl,
        deny=deny,
        scopes=scopes,
        required_scopes=required_scopes,
        iss=iss,
        revoke_reused_refresh_tokens=revoke_reused_refresh_tokens,
        cimd=cimd,
        stateless=stateless,
        extra_resources=extra_resources,
        port=port,
    )
    log_file = open(log_path, "wb")
    with open(out_path, "wb") as out_file:
        proc = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=out_file, stderr=log_file, cwd=workdir, env=clean_env()
        )
    server = OAuthServer(proc=proc, url="", workdir=workdir, log_path=log_path, _log_file=log_file)
    LIVE_OAUTH_SERVERS.append(server)
    try:
        server.url = _wait_for_url(proc, out_path, log_path, ready_timeout)
    except BaseException:
        server.stop()
        raise
    return server


def _wait_for_url(proc: subprocess.Popen[bytes], out_path: Path, log_path: Path, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    while True:
        lines = out_path.read_text(errors="replace").splitlines()
        if lines and lines[0].startswith("http://"):
            return lines[0].strip()
        if proc.poll() is not None:
            raise RuntimeError(
                f"oauth_server.py exited with status {proc.returncode} before it was ready\n"
                f"--- log ---\n{log_path.read_text(errors='replace')}"
            )
        if time.monotonic() >= deadline:
            raise TimeoutError(
                f"oauth_server.py printed no URL within {timeout:.0f}s\n--- log ---\n"
                f"{log_path.read_text(errors='replace')}"
            )
        time.sleep(0.05)


OAuthServerFactory = Callable[..., OAuthServer]


@pytest.fixture
def oauth_server(tmp_path: Path) -> Iterator[OAuthServerFactory]:
    """Factory: ``oauth_server(**knobs of start_oauth_server) -> OAuthServer``; all stopped at teardown."""
    started: list[OAuthServer] = []

    def factory(**knobs: Any) -> OAuthServer:
        server = start_oauth_server(tmp_path / f"oauth{len(started)}", **knobs)
        started.append(server)
        return server

    yield factory
    for server in started:
        server.stop()


# ---------------------------------------------------------------------------
# The scripted browser


@dataclass(frozen=True)
class BrowserVisit:
    """What the browser went through, from the authorization URL to the page it ended on."""

    redirect_url: str | None  # where the authorization server sent the browser back to the client, if it did
    hops: list[str]  # every URL the browser opened, in order
    final_url: str  # the last URL opened
    final_status: int  # the status of the page the browser ended on (a 3xx when it stopped before the client)
    final_text: str

    @property
    def params(self) -> dict[str, str]:
        """The query of ``redirect_url`` (``code``, ``state``, ``iss``, or ``error``, ``error_description``)."""
        return dict(parse_qsl(urlsplit(self.redirect_url).query)) if self.redirect_url else {}

    @property
    def code(self) -> str | None:
        return self.params.get("code")

    @property
    def state(self) -> str | None:
        return self.params.get("state")

    @property
    def iss(self) -> str | None:
        return self.params.get("iss")

    @property
    def error(self) -> str | None:
        return self.params.get("error")

    @property
    def reached_client(self) -> bool:
        """The browser opened ``redirect_url`` (the client's callback)."""
        return self.redirect_url is not None and self.redirect_url in self.hops


def _origin(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts.scheme.lower(), parts.netloc.lower()


async def browser_sign_in(
    authorization_url: str,
    *,
    follow_to_client: bool = True,
    timeout: float = BROWSER_TIMEOUT,
    max_hops: int = MAX_BROWSER_HOPS,
) -> BrowserVisit:
    """Open ``authorization_url`` as a browser would and follow the redirect chain.

    The peer approves at once ("Allow"), so the chain is: the authorization endpoint, then a redirect to
    the client's ``redirect_uri`` with ``code``/``state``/``iss`` (or ``error``). The first redirect that
    leaves the authorization server's origin is the client's callback: it is ``redirect_url`` in the result.
    With ``follow_to_client=False`` the browser stops there without opening it (the test can alter it and
    deliver it with ``open_in_browser``); otherwise it opens it and follows any further redirects, and the
    result's ``final_*`` describe the page the client showed.

    A gateway's own sign-in link (``/oauth/sign-in/…``, what a per-user server's call is answered with) is
    opened first, and must redirect to the authorization URL, where the chain above starts.
    """
    hops: list[str] = []
    redirect_url: str | None = None
    url = authorization_url
    async with httpx2.AsyncClient(
        timeout=timeout, follow_redirects=False, headers={"User-Agent": BROWSER_USER_AGENT}
    ) as http:
        if urlsplit(url).path.startswith(SIGN_IN_LINK_PATH):
            link = await http.get(url)
            hops.append(url)
            assert link.status_code == 302 and "location" in link.headers, (
                f"the sign-in link answered HTTP {link.status_code}: {link.text[:300]}"
            )
            url = urljoin(url, link.headers["location"])
        auth_origin = _origin(url)
        while True:
            response = await http.get(url)
            hops.append(url)
            location = response.headers.get("location")
            if not (response.is_redirect and location):
                break
            if len(hops) >= max_hops:
                raise AssertionError(f"the browser gave up after {max_hops} redirects: {hops}")
            target = urljoin(url, location)
            if redirect_url is None and _origin(target) != auth_origin:
                redirect_url = target
                if not follow_to_client:
                    break
            url = target
    return BrowserVisit(
        redirect_url=redirect_url,
        hops=hops,
        final_url=url,
        final_status=response.status_code,
        final_text=response.text,
    )


async def open_in_browser(url: str, *, timeout: float = BROWSER_TIMEOUT) -> httpx2.Response:
    """Open ``url`` (typically a callback URL from ``browser_sign_in(..., follow_to_client=False)``) and follow
    redirects; returns the page the browser ends on."""
    async with httpx2.AsyncClient(
        timeout=timeout, follow_redirects=True, headers={"User-Agent": BROWSER_USER_AGENT}
    ) as http:
        return await http.get(url)


def with_query(url: str, **changes: str | None) -> str:
    """``url`` with query parameters replaced (``state="forged"``) or removed (``code=None``)."""
    parts = urlsplit(url)
    params = dict(parse_qsl(parts.query))
    for key, value in changes.items():
        if value is None:
            params.pop(key, None)
        else:
            params[key] = value
    return urlunsplit(parts._replace(query=urlencode(params)))


def leaked_secrets(text: str, secrets: list[str]) -> list[str]:
    """Which of ``secrets`` appear in ``text`` (shortened, so a failure message does not leak them further)."""
    return [f"{s[:12]}…" for s in secrets if s and s in text]
