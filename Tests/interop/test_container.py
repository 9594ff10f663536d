"""The container image, built and run: deploy/Dockerfile's image serves MCP as the README says, in every way
deploy/ runs it (``podman run``, stdio, compose, ``podman kube play``).

The image is built once for this module by ``deploy/image.sh`` (``make image``'s script) from the binary under
test (the debug build in ``make test``; deploy/README.md says which binary each image has). The module runs in
one worker (``pytestmark`` below), so the build happens once. Every wait is on an event or a lasting state:
``/readyz`` answering 200, ``podman wait``, a process's exit (pidfd), the admin API's event stream.
"""

from __future__ import annotations

import fcntl
import os
import select
import struct
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx2
import pytest
import yaml
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

import harness
from containers import (
    ADMIN_TOKEN,
    CONTAINER_PORT,
    Container,
    Image,
    build_image,
    host_processes_of,
    pidfd,
    run_detached,
)
from harness import mcp_session, text_of, wait_for_server_state

TAG = "localhost/yrden:interop"
DEPLOY = harness.REPO_ROOT / "deploy"
K8S = DEPLOY / "k8s"
PODMAN_COMPOSE = Path(sys.executable).with_name("podman-compose")  # Tests/interop/requirements.txt pins it
READY_WITHIN = 30.0
DRAIN_SECONDS = 20  # the drain the Dockerfile and deploy/README.md document for SIGTERM (YrdenApplication)
AUTH = {"Authorization": f"Bearer {ADMIN_TOKEN}"}

# One worker for the whole module, so the image is built once: `--dist loadfile` (make interop) does it by file,
# and this group does it under `--dist loadgroup` too.
pytestmark = pytest.mark.xdist_group("container-image")


@pytest.fixture(scope="module")
def image(yrden: Path) -> Image:
    return build_image(TAG, yrden)


@pytest.fixture
def containers(image: Image) -> Iterator[list[Container]]:
    """Containers a test started; each is removed at teardown whatever happened."""
    started: list[Container] = []
    yield started
    for container in started:
        container.remove()


def start(image: Image, started: list[Container], **options) -> Container:
    container = run_detached(image.engine, image.tag, **options)
    started.append(container)
    return container


async def assert_serves_mcp(url: str) -> None:
    """An SDK client initializes, lists the demo server's tools and calls one."""
    async with mcp_session(url, mode="legacy") as session:
        assert "demo__echo" in await session.tool_names()
        result = await session.client.call_tool("demo__echo", {"message": "from the container"})
        assert text_of(result) == "from the container"


# ---------------------------------------------------------------------------
# podman run


async def test_podman_run_serves_readyz_and_mcp_within_30_s(image, containers):
    container = start(image, containers)
    ready_after = container.wait_ready(READY_WITHIN)
    await assert_serves_mcp(f"{container.base}/mcp")
    print(f"ready {ready_after:.2f} s after podman run ({image.tag}, image built in {image.build_seconds:.0f} s)")


def test_the_gateway_and_its_children_run_as_the_unprivileged_user(image, containers):
    container = start(image, containers)
    container.wait_ready(READY_WITHIN)
    assert container.exec("id", "-u").stdout.strip() == "10001"
    # Every process of the container, the gateway and its stdio server included, as the host sees it.
    processes = host_processes_of(container)
    commands = {p.command for p in processes}
    assert any("yrden serve" in c for c in commands) and any("demo-server" in c for c in commands), commands
    for process in processes:
        uid = int(Path(f"/proc/{process.pid}/status").read_text().split("\nUid:")[1].split()[0])
        assert uid == 10001, f"{process.command} runs as uid {uid}"


async def test_a_read_only_root_with_a_tmpfs_for_tmp(image, containers):
    container = start(image, containers, options=["--read-only", "--tmpfs", "/tmp"])
    container.wait_ready(READY_WITHIN)
    await assert_serves_mcp(f"{container.base}/mcp")
    refused = container.exec("sh", "-c", "echo x > /etc/yrden/written", check=False)
    assert refused.returncode != 0 and "Read-only file system" in refused.stderr, refused
    assert container.exec("sh", "-c", "echo x > /tmp/written && cat /tmp/written").stdout.strip() == "x"


async def test_a_server_added_over_the_admin_api_survives_a_new_container_on_the_volume(image, containers):
    engine = image.engine
    volume = f"yrden-interop-{os.getpid()}-{time.monotonic_ns()}"
    engine.run("volume", "create", volume)
    try:
        mount = ["-v", f"{volume}:/var/lib/yrden"]
        # The config lives in the volume, seeded once, as compose and Kubernetes run it (deploy/README.md).
        seed = ["--entrypoint", "/usr/local/bin/yrden-seed-config", image.tag]
        engine.run("run", "--rm", *mount, *seed, "/etc/yrden/yrden.json", "/var/lib/yrden/yrden.json")
        serve = ["serve", "--config", "/var/lib/yrden/yrden.json", "--listen", "0.0.0.0:8750"]
        first = start(image, containers, options=mount, args=serve)
        first.wait_ready(READY_WITHIN)
        entry = {"command": "/usr/local/bin/yrden", "args": ["demo-server"]}
        async with httpx2.AsyncClient(headers=AUTH, timeout=30) as http:
            added = await http.post(f"{first.base}/api/v1/servers", json={"id": "second", "config": entry})
            assert added.status_code == 201, added.text
        await wait_for_server_state(first, "second", "connected", 30, token=ADMIN_TOKEN)
        first.remove()

        second = start(image, containers, options=mount, args=serve)
        second.wait_ready(READY_WITHIN)
        async with httpx2.AsyncClient(headers=AUTH, timeout=30) as http:
            listed = (await http.get(f"{second.base}/api/v1/servers")).json()
        ids = [s["id"] for s in (listed["servers"] if isinstance(listed, dict) else listed)]
        assert ids == ["demo", "second"], listed
        async with mcp_session(f"{second.base}/mcp", mode="legacy") as session:
            result = await session.client.call_tool("second__echo", {"message": "kept"})
            assert text_of(result) == "kept"
    finally:
        for container in containers:
            container.remove()
        engine.run("volume", "rm", "-f", volume, check=False)


# ---------------------------------------------------------------------------
# SIGTERM

PIDFD_INFO_EXIT = 1 << 3
PIDFD_INFO_SIZE = 64  # struct pidfd_info up to exit_code (PIDFD_INFO_SIZE_VER0)
PIDFD_GET_INFO = (3 << 30) | (PIDFD_INFO_SIZE << 16) | (0xFF << 8) | 11  # _IOWR(PIDFS_IOCTL_MAGIC, 11, ...)


def exit_status_of(fd: int) -> int | None:
    """The wait status a reaped process ended with, read from its pidfd (Linux 6.15's PIDFD_INFO_EXIT), or None
    where the kernel cannot say."""
    buffer = bytearray(PIDFD_INFO_SIZE)
    struct.pack_into("=Q", buffer, 0, PIDFD_INFO_EXIT)
    try:
        fcntl.ioctl(fd, PIDFD_GET_INFO, buffer)
    except OSError:
        return None
    (mask,) = struct.unpack_from("=Q", buffer, 0)
    return struct.unpack_from("=i", buffer, 60)[0] if mask & PIDFD_INFO_EXIT else None


async def test_sigterm_ends_the_container_within_the_drain_and_the_gateway_stops_its_children(image, containers):
    container = start(image, containers)
    container.wait_ready(READY_WITHIN)
    async with mcp_session(f"{container.base}/mcp", mode="legacy") as session:
        assert "demo__echo" in await session.tool_names()
    processes = host_processes_of(container)
    children = [p for p in processes if "demo-server" in p.command]
    assert len(children) == 1, processes
    watched = {p.pid: pidfd(p.pid) for p in processes}
    try:
        signalled = time.monotonic()
        container.engine.run("kill", "--signal", "TERM", container.id)
        status = container.wait_exit(timeout=DRAIN_SECONDS + 10)
        took = time.monotonic() - signalled
        assert status == 0, f"exit status {status} after SIGTERM:\n{container.logs()[-3000:]}"
        assert took <= DRAIN_SECONDS, f"SIGTERM took {took:.1f} s, past the documented {DRAIN_SECONDS} s drain"
        # No process of the container is left on the host, the stdio server included.
        still = [pid for pid, fd in watched.items() if not select.select([fd], [], [], 5)[0]]
        assert not still, f"left running after the container ended: {[harness.proc_info(p) for p in still]}"
        # The end of the container's pid namespace would kill a leftover child with SIGKILL too: that the child
        # ended otherwise shows the gateway stopped it (it closes the child's stdin, then signals it if need be).
        (child,) = children
        ended = exit_status_of(watched[child.pid])
        if ended is not None:
            assert ended != 9, f"the stdio server was killed with SIGKILL (wait status {ended}), not stopped by yrden"
    finally:
        for fd in watched.values():
            os.close(fd)


# ---------------------------------------------------------------------------
# stdio


async def test_podman_run_i_stdio_answers_an_sdk_host(image, tmp_path):
    engine = image.engine
    name = f"yrden-interop-stdio-{os.getpid()}-{time.monotonic_ns()}"
    argv = ["run", "--rm", "-i", "--init", "--name", name, image.tag, "stdio", "--config", "/etc/yrden/yrden.json"]
    params = StdioServerParameters(command=engine.name, args=argv, env=engine.env)
    try:
        with open(tmp_path / "stderr.log", "w") as stderr:
            async with Client(stdio_client(params, errlog=stderr), mode="legacy", cache=None) as client:
                with anyio.fail_after(READY_WITHIN):
                    while "demo__echo" not in {t.name for t in (await client.list_tools()).tools}:
                        await anyio.sleep(0.2)
                    result = await client.call_tool("demo__echo", {"message": "over stdio"})
        assert text_of(result) == "over stdio"
    finally:
        engine.run("rm", "-f", name, check=False)


# ---------------------------------------------------------------------------
# podman-compose


def compose_copy(directory: Path, port: int) -> Path:
    """deploy/docker-compose.yml beside deploy/yrden.json in ``directory``, changed only where a test must: the
    image under test instead of yrden:local and its build (nothing compiles here), and a free loopback port
    instead of 8750."""
    document = yaml.safe_load((DEPLOY / "docker-compose.yml").read_text())
    for service in document["services"].values():
        service["image"] = TAG
        service.pop("build", None)
    (published,) = document["services"]["yrden"]["ports"]
    assert published == f"127.0.0.1:{CONTAINER_PORT}:{CONTAINER_PORT}", published
    document["services"]["yrden"]["ports"] = [f"127.0.0.1:{port}:{CONTAINER_PORT}"]
    (directory / "yrden.json").write_text((DEPLOY / "yrden.json").read_text())
    path = directory / "docker-compose.yml"
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return path


async def test_docker_compose_yml_comes_up_with_podman_compose_and_serves(image, tmp_path):
    assert PODMAN_COMPOSE.exists(), f"no {PODMAN_COMPOSE}: `make venv` installs Tests/interop/requirements.txt"
    port = harness.free_port()
    compose_file = compose_copy(tmp_path, port)
    project = f"yrden-interop-{os.getpid()}-{time.monotonic_ns()}"
    env = {**image.engine.env, "YRDEN_ADMIN_TOKEN": ADMIN_TOKEN}

    def compose(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        argv = [str(PODMAN_COMPOSE), "-f", str(compose_file), "-p", project, *args]
        return subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=timeout)

    try:
        up = compose("up", "-d")
        assert up.returncode == 0, up.stdout + up.stderr
        gateway = Container(image.engine, f"{project}_yrden_1", port, time.monotonic())
        gateway.wait_ready(READY_WITHIN)
        await assert_serves_mcp(f"{gateway.base}/mcp")
        # The one-shot service seeded the live config into the volume, and the gateway runs from it.
        seeded = image.engine.run("logs", f"{project}_yrden-init_1")
        assert "copied /etc/yrden/yrden.json to /var/lib/yrden/yrden.json" in seeded.stdout + seeded.stderr
        assert gateway.inspect("{{.Config.Cmd}}").count("/var/lib/yrden/yrden.json") == 1
        # The compose file's own health check (bash's /dev/tcp asking /readyz) passes in the image.
        health = image.engine.run("healthcheck", "run", gateway.id, check=False)
        assert health.returncode == 0, f"the health check failed: {health.stdout}{health.stderr}"
    finally:
        down = compose("down", "-v", "-t", "30")
        assert down.returncode == 0, down.stdout + down.stderr


# ---------------------------------------------------------------------------
# podman kube play
#
# What podman 4.3's `kube play` cannot play of deploy/k8s, and what the test does instead (real Kubernetes needs
# none of this):
# - the initContainer: played as a "once" init container it races its own removal ("cannot remove container
#   ... as it is running") and the main container never starts. The test runs the same command with the same
#   mounts (the ConfigMap's file, the claim's volume) with `podman run` first, then plays the pod without it.
# - secretKeyRef to the Secret: a Secret in the played file is refused ("secret ... is not valid JSON"); the
#   played copy has the values inline.
# - the Service: kube play has no Services; the test reaches the pod at its own address, as the Service would.
# - the probes: the liveness probe becomes a health check that runs curl in the container (the image has none)
#   on port 0 (the named port "http" is not resolved), run only by systemd timers (none here); startup and
#   readiness probes are not played. The test asks /readyz itself. The claim becomes a named volume.
# Names (the Deployment, the claim, the ConfigMap: each becomes a volume) are made unique so runs never meet, and
# the image is the one under test.


def kube_copy(directory: Path, suffix: str, admin_token: str) -> tuple[Path, Path, dict]:
    """The played copies: the claim alone (played first, so the seed step has its volume), and the ConfigMap
    with the Deployment. Returns both paths and the initContainer that the test runs itself."""
    (configmap,) = yaml.safe_load_all((K8S / "configmap.yaml").read_text())
    (claim,) = yaml.safe_load_all((K8S / "pvc.yaml").read_text())
    (deployment,) = yaml.safe_load_all((K8S / "deployment.yaml").read_text())
    (secret,) = yaml.safe_load_all((K8S / "secret.yaml").read_text())
    for document in (claim, deployment, configmap):
        document["metadata"]["name"] = f"{document['metadata']['name']}-{suffix}"
    pod = deployment["spec"]["template"]["spec"]
    (init,) = pod.pop("initContainers")
    for volume in pod["volumes"]:
        if "persistentVolumeClaim" in volume:
            volume["persistentVolumeClaim"]["claimName"] = claim["metadata"]["name"]
        if "configMap" in volume:
            volume["configMap"]["name"] = configmap["metadata"]["name"]
    values = {**secret["stringData"], "YRDEN_ADMIN_TOKEN": admin_token, "YRDEN_SECRET_KEY": ""}
    for container in [init, *pod["containers"]]:
        container["image"] = TAG
        for variable in container.get("env", []):
            if reference := variable.get("valueFrom", {}).get("secretKeyRef"):
                assert reference["name"] == secret["metadata"]["name"], reference
                variable.pop("valueFrom")
                variable["value"] = values[reference["key"]]
    claim_path = directory / "claim.yaml"
    claim_path.write_text(yaml.safe_dump(claim, sort_keys=False))
    played = directory / "played.yaml"
    played.write_text(yaml.safe_dump_all([configmap, deployment], sort_keys=False))
    return claim_path, played, {"init": init, "pod": pod, "configmap": configmap, "claim": claim}


def run_init_container(image: Image, directory: Path, parts: dict) -> str:
    """The initContainer's command with its mounts: the ConfigMap's files and the claim's volume."""
    volumes = {v["name"]: v for v in parts["pod"]["volumes"]}
    init = parts["init"]
    mounts: list[str] = []
    for mount in init["volumeMounts"]:
        volume = volumes[mount["name"]]
        if "configMap" in volume:
            assert volume["configMap"]["name"] == parts["configmap"]["metadata"]["name"]
            files = directory / "configmap"
            files.mkdir(exist_ok=True)
            for name, text in parts["configmap"]["data"].items():
                (files / name).write_text(text)
            mounts += ["-v", f"{files}:{mount['mountPath']}:ro"]
        else:
            mounts += ["-v", f"{volume['persistentVolumeClaim']['claimName']}:{mount['mountPath']}"]
    command = init["command"] + init.get("args", [])
    proc = image.engine.run("run", "--rm", *mounts, "--entrypoint", command[0], TAG, *command[1:])
    return proc.stdout


async def test_deploy_k8s_runs_under_podman_kube_play(image, tmp_path):
    engine = image.engine
    suffix = f"{os.getpid()}-{time.monotonic_ns()}"
    claim_path, played, parts = kube_copy(tmp_path, suffix, ADMIN_TOKEN)
    try:
        engine.run("kube", "play", str(claim_path))
        seeded = run_init_container(image, tmp_path, parts)
        assert "copied /etc/yrden/yrden.json to /var/lib/yrden/yrden.json" in seeded, seeded
        play = engine.run("kube", "play", str(played), timeout=120)
        pod_id = play.stdout.split("Pod:\n", 1)[1].split()[0]
        infra = engine.run("pod", "inspect", "--format", "{{.InfraContainerID}}", pod_id).stdout.strip()
        address = engine.run(
            "inspect", "--format", "{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}", infra
        ).stdout.strip()
        (main,) = parts["pod"]["containers"]
        (port,) = [p["containerPort"] for p in main["ports"]]
        name = engine.run("pod", "inspect", "--format", "{{.Name}}", pod_id).stdout.strip()
        gateway = Container(engine, f"{name}-{main['name']}", port, time.monotonic(), host=address)
        gateway.wait_ready(READY_WITHIN)
        await assert_serves_mcp(f"{gateway.base}/mcp")
        # As the Deployment asks: uid 10001, a read-only root, the pause process as PID 1 (shareProcessNamespace,
        # it reaps orphans), the gateway running the config the init step seeded into the claim's volume.
        assert gateway.exec("id", "-u").stdout.strip() == "10001"
        refused = gateway.exec("sh", "-c", "echo x > /written", check=False)
        assert refused.returncode != 0 and "Read-only file system" in refused.stderr, refused
        top = engine.run("top", gateway.id, "pid,args").stdout.splitlines()[1:]
        first = {line.split(None, 1)[0]: line.split(None, 1)[1] for line in top}["1"]
        assert "catatonit" in first or "pause" in first, top
        assert any("serve --config /var/lib/yrden/yrden.json" in line for line in top), top
    finally:
        engine.run("kube", "down", str(played), check=False, timeout=120)
        for volume in (parts["claim"]["metadata"]["name"], parts["configmap"]["metadata"]["name"]):
            engine.run("volume", "rm", "-f", volume, check=False)
