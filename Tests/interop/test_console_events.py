"""The web console's live event stream across a dropped connection, in headless Chromium.

The console reads ``GET /api/v1/events`` with fetch (EventSource cannot send the admin token), so it sends
``Last-Event-ID`` itself when it reconnects: the gateway replays what happened meanwhile and the console does not
read every server again. The connection is dropped by a relay between the browser and the gateway, as a lost
network would, while the gateway keeps running.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest
from selenium.webdriver.common.by import By

from console_driver import Console, browser, wait_for  # noqa: F401 (browser is a fixture)
from harness import Gateway

# Every fetch the page makes, with the Last-Event-ID it sent: installed before the console's scripts run.
FETCH_LOG = """
window.yrdenFetches = [];
const originalFetch = window.fetch;
window.fetch = (input, init = {}) => {
  const headers = new Headers(init.headers || {});
  window.yrdenFetches.push({url: String(input), lastEventId: headers.get('Last-Event-ID')});
  return originalFetch(input, init);
};
"""


class Relay:
    """Relays TCP connections from a port of its own to the gateway's; ``cut`` closes every open connection and
    refuses new ones until ``restore``."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.lock = threading.Lock()
        self.open: list[socket.socket] = []
        self.refusing = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            with self.lock:
                if self.refusing:
                    client.close()
                    continue
                upstream = socket.create_connection(("127.0.0.1", self.target_port), timeout=10)
                upstream.settimeout(None)
                self.open += [client, upstream]
            threading.Thread(target=self._pump, args=(client, upstream), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        try:
            while chunk := source.recv(65536):
                sink.sendall(chunk)
        except OSError:
            pass
        for end in (source, sink):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self) -> None:
        with self.lock:
            self.refusing = True
            for end in self.open:
                try:
                    end.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                end.close()
            self.open = []

    def restore(self) -> None:
        with self.lock:
            self.refusing = False

    def close(self) -> None:
        self.cut()
        self.listener.close()


@pytest.fixture
def relay() -> Iterator[Any]:
    started: list[Relay] = []

    def factory(gw: Gateway) -> Relay:
        started.append(Relay(gw.port))
        return started[-1]

    yield factory
    for each in started:
        each.close()


def post(gw: Gateway, path: str) -> None:
    with httpx2.Client(timeout=10.0) as http:
        answer = http.post(f"{gw.base}/api/v1{path}")
    assert answer.status_code == 202, answer.text


def server_state(gw: Gateway, server_id: str) -> str:
    with httpx2.Client(timeout=10.0) as http:
        return http.get(f"{gw.base}/api/v1/servers/{server_id}").json()["state"]


def test_a_dropped_event_stream_resumes_after_the_last_event_it_saw(gateway, yrden: Path, browser, relay) -> None:
    gw = gateway({"mcpServers": {"demo": {"command": str(yrden), "args": ["demo-server"]}}})
    through = relay(gw)
    browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": FETCH_LOG})
    console = Console(browser, gw)
    console.base = through.url
    console.open()
    console.wait_state("demo", lambda s: s == "connected", "connected")
    status = browser.find_element(By.ID, "live-status")
    # Events the console sees, so it has an id to resume after (a stream that ends before its first event is
    # opened afresh, and the state read again, since nothing says where it stood).
    post(gw, "/servers/demo/disconnect")
    console.wait_state("demo", lambda s: s == "disconnected", "disconnected")
    post(gw, "/servers/demo/connect")
    console.wait_state("demo", lambda s: s == "connected", "connected again")

    through.cut()
    wait_for(lambda: status.get_attribute("data-state") == "reconnecting", "the console to see the stream drop")
    # While the console cannot reach the gateway, the server goes down: only a resumed stream can tell it.
    post(gw, "/servers/demo/disconnect")
    wait_for(lambda: server_state(gw, "demo") == "disconnected", "the gateway to disconnect demo")
    through.restore()

    console.wait_state("demo", lambda s: s == "disconnected", "shown disconnected after the reconnect")
    fetches = console.script("return window.yrdenFetches")
    streams = [f for f in fetches if f["url"].endswith("/api/v1/events")]
    assert streams[0]["lastEventId"] is None, streams
    resumed = [f for f in streams[1:] if f["lastEventId"] is not None]
    assert resumed and resumed[0]["lastEventId"].isdigit(), streams
    reads = [f for f in fetches if f["url"].endswith("/api/v1/servers")]
    assert len(reads) == 1, f"the servers were read again after the reconnect: {fetches}"
    assert status.get_attribute("data-state") == "live"
