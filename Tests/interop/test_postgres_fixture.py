"""The PostgreSQL fixture the shared-store tests stand on (``postgres.py``): it must be a real, password-guarded
server that stops and starts on demand and leaves nothing running behind it."""

from __future__ import annotations

import os
import pwd
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from harness import children_of, is_running, wait_until
from postgres import PostgresServer, postgres  # noqa: F401  (the fixture)


def _psql_as(server: PostgresServer, password: str) -> subprocess.CompletedProcess[bytes]:
    """``SELECT 1`` as ``yrden`` over TCP with ``password``, the way a client with the URL connects."""
    return subprocess.run(
        [str(server.bin / "psql"), "-X", "-At", "-h", "127.0.0.1", "-p", str(server.port), "-U", "yrden",
         "-d", "yrden", "-c", "SELECT current_user"],
        capture_output=True, timeout=30, env={"PATH": os.environ.get("PATH", "/usr/bin"), "PGPASSWORD": password},
    )  # fmt: skip


def test_url_names_a_password_guarded_database(postgres: PostgresServer) -> None:
    parts = urlsplit(postgres.url)
    assert (parts.scheme, parts.hostname, parts.port, parts.path) == ("postgres", "127.0.0.1", postgres.port, "/yrden")
    assert (parts.username, parts.password) == ("yrden", postgres.password)

    good = _psql_as(postgres, postgres.password)
    assert good.returncode == 0, good.stderr.decode()
    assert good.stdout.decode().strip() == "yrden"

    bad = _psql_as(postgres, postgres.password + "x")
    assert bad.returncode != 0
    assert "password authentication failed" in bad.stderr.decode()
    # Stored as a SCRAM verifier, as a real deployment's is.
    assert postgres.psql("SELECT rolpassword LIKE 'SCRAM-SHA-256$%' FROM pg_authid WHERE rolname = 'yrden'",
                         superuser=True).strip() == "t"  # fmt: skip


def test_runs_as_a_user_other_than_root(postgres: PostgresServer) -> None:
    """PostgreSQL refuses root; CI runs as root, so the fixture must have switched to the `postgres` user."""
    assert postgres.pid is not None
    owner = Path(f"/proc/{postgres.pid}").stat().st_uid
    assert owner != 0
    if os.geteuid() == 0:
        assert owner == pwd.getpwnam("postgres").pw_uid


def test_stop_and_start_keep_the_port_and_the_data(postgres: PostgresServer) -> None:
    postgres.psql("CREATE TABLE kept (v text); INSERT INTO kept VALUES ('before the restart')")
    pid = postgres.pid
    port = postgres.port

    postgres.stop()
    assert not is_running(pid)
    refused = _psql_as(postgres, postgres.password)
    assert refused.returncode != 0, "psql still got an answer after stop()"

    postgres.start()
    assert postgres.port == port
    assert postgres.psql("SELECT v FROM kept") == "before the restart\n"


def test_psql_reports_sql_errors(postgres: PostgresServer) -> None:
    with pytest.raises(RuntimeError, match="no_such_table"):
        postgres.psql("SELECT * FROM no_such_table")


def test_close_leaves_no_process_and_no_data(tmp_path: Path) -> None:
    server = PostgresServer(tmp_path)
    # A backend of its own, busy, as a gateway's open connections would be when a test ends.
    busy = subprocess.Popen(
        [str(server.bin / "psql"), "-X", "-h", "127.0.0.1", "-p", str(server.port), "-U", "yrden", "-d", "yrden",
         "-c", "SELECT pg_sleep(60)"],
        env={"PATH": os.environ.get("PATH", "/usr/bin"), "PGPASSWORD": server.password},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        postmaster = server.pid
        assert postmaster is not None
        wait_until(
            lambda: server.psql("SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep%'") == "1\n",
            30,
            "the busy session to be running",
        )
        processes = [postmaster, *(p.pid for p in children_of(postmaster))]
        server.close()
        left = [p for p in processes if is_running(p)]
        assert not left, f"postgres processes outlived close(): {left}"
        assert not server.root.exists()
        assert busy.wait(timeout=30) != 0  # its session was ended, not waited out
    finally:
        busy.kill()
        busy.wait()
        server.close()

