"""The container files in deploy/: they parse, agree with each other, and really start the gateway.

The image itself is built and run by test_container.py (podman, compose, kube play). Here, fast and without an
engine, what a container would do is done with the real binary instead: the command line and environment of the
image (``docker run``), of the compose service and of the Kubernetes Deployment, read from those files, with
only the listen port changed, container paths mapped into a temporary directory and ``/usr/local/bin/yrden``
mapped to ``$YRDEN_BIN``. Their seeding step (compose's one-shot service, the initContainer) runs the shipped
script, the probes' paths are polled, and compose's health check runs under bash.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import pytest
import yaml

import harness
from harness import Gateway, clean_env, free_port

DEPLOY = harness.REPO_ROOT / "deploy"
K8S = DEPLOY / "k8s"
DOCKERFILE = DEPLOY / "Dockerfile"
COMPOSE = DEPLOY / "docker-compose.yml"

K8S_KINDS = {
    "configmap.yaml": "ConfigMap",
    "secret.yaml": "Secret",
    "pvc.yaml": "PersistentVolumeClaim",
    "deployment.yaml": "Deployment",
    "service.yaml": "Service",
}
SHUTDOWN_BOUND_SECONDS = 20  # how long yrden drains calls in flight after SIGTERM (YrdenApplication.shutdownBound)
START_TIMEOUT = 15.0
ADMIN_TOKEN = "test-admin-token-0123456789abcdef"


# ---------------------------------------------------------------------------
# Reading the files


def yaml_documents(path: Path) -> list[Any]:
    return [doc for doc in yaml.safe_load_all(path.read_text()) if doc is not None]


def k8s_object(kind: str) -> dict[str, Any]:
    for name, expected in K8S_KINDS.items():
        if expected == kind:
            (document,) = yaml_documents(K8S / name)
            return document
    raise KeyError(kind)


def compose() -> dict[str, Any]:
    (document,) = yaml_documents(COMPOSE)
    return document


@dataclass
class Dockerfile:
    """The runtime (last) stage of deploy/Dockerfile, as far as the checks here need it."""

    entrypoint: list[str]
    cmd: list[str]
    env: dict[str, str]
    expose: list[int]
    volumes: list[str]
    user: str
    copies: dict[str, str] = field(default_factory=dict)  # destination -> source ("build:" for the build stage)

    @classmethod
    def parse(cls, path: Path) -> Dockerfile:
        lines: list[str] = []
        pending = ""
        for raw in path.read_text().splitlines():
            if raw.lstrip().startswith("#"):
                continue
            if raw.rstrip().endswith("\\"):
                pending += raw.rstrip()[:-1] + " "
                continue
            lines.append(pending + raw)
            pending = ""
        # A stage FROM an earlier stage starts with that stage's instructions (the last stage is the runtime
        # stage plus the built binary).
        stages: list[list[tuple[str, str]]] = []
        names: dict[str, int] = {}
        for line in lines:
            if not line.strip():
                continue
            instruction, _, rest = line.strip().partition(" ")
            instruction = instruction.upper()
            if instruction == "FROM":
                words = rest.split()
                parent = names.get(words[0].lower())
                stages.append(list(stages[parent]) if parent is not None else [])
                if len(words) == 3 and words[1].upper() == "AS":
                    names[words[2].lower()] = len(stages) - 1
            if instruction == "COPY" and stages:
                # A whole earlier stage's root laid out by slim-root (COPY --from=built-root /image /) brings the
                # files that stage copied in: slim-root keeps each of them (the binary, the seed script, the config).
                words = rest.split()
                source_stage = next((w.split("=", 1)[1].lower() for w in words if w.startswith("--from=")), None)
                if source_stage in names and words[-1] == "/":
                    stages[-1] += [step for step in stages[names[source_stage]] if step[0] == "COPY"]
                    continue
            if stages:
                stages[-1].append((instruction, rest.strip()))
        runtime = stages[-1]
        found = cls(entrypoint=[], cmd=[], env={}, expose=[], volumes=[], user="")
        for instruction, rest in runtime:
            if instruction == "ENTRYPOINT":
                found.entrypoint = json.loads(rest)
            elif instruction == "CMD":
                found.cmd = json.loads(rest)
            elif instruction == "ENV":
                for pair in shlex.split(rest):
                    key, _, value = pair.partition("=")
                    found.env[key] = value
            elif instruction == "EXPOSE":
                found.expose += [int(port.split("/")[0]) for port in rest.split()]
            elif instruction == "VOLUME":
                found.volumes += json.loads(rest) if rest.startswith("[") else rest.split()
            elif instruction == "USER":
                found.user = rest
            elif instruction == "COPY":
                words = rest.split()
                flags = [w for w in words if w.startswith("--")]
                source, destination = [w for w in words if not w.startswith("--")]
                from_build = any(flag.startswith("--from=") for flag in flags)
                found.copies[destination] = f"build:{source}" if from_build else source
        return found

    def destination_of(self, source: str) -> str:
        """Where the image puts ``source`` (a path in the build context)."""
        (destination,) = [d for d, s in self.copies.items() if s == source]
        return destination


def option(argv: list[str], name: str) -> str:
    assert name in argv, f"{name} missing from {argv}"
    return argv[argv.index(name) + 1]


def listen_port(argv: list[str]) -> int:
    return int(option(argv, "--listen").rsplit(":", 1)[1])


def main_container() -> dict[str, Any]:
    (container,) = k8s_object("Deployment")["spec"]["template"]["spec"]["containers"]
    return container


def named_port(container: dict[str, Any], port: int | str) -> int:
    if isinstance(port, int):
        return port
    (found,) = [p["containerPort"] for p in container["ports"] if p.get("name") == port]
    return found


def interpolate_compose(text: str, environment: dict[str, str]) -> str:
    """Compose's ``${VAR}``, ``${VAR:-default}`` and ``${VAR:?message}`` (``$$`` is a literal ``$``)."""

    def substitute(match: re.Match[str]) -> str:
        if match.group(0) == "$$":
            return "$"
        name, operator, argument = match.group(1), match.group(2), match.group(3)
        value = environment.get(name, "")
        if operator == ":?" and not value:
            raise LookupError(f"compose would stop: {argument}")
        if operator == ":-" and not value:
            return argument
        return value

    return re.sub(r"\$\$|\$\{(\w+)(?:(:[-?])([^}]*))?\}", substitute, text)


# ---------------------------------------------------------------------------
# The container's filesystem, mapped into a temporary directory


class ContainerPaths:
    """Container paths and where they are here: the image's binary and script, and one directory per mount."""

    def __init__(self, root: Path, yrden: Path, dockerfile: Dockerfile):
        self.root = root
        self.files = {
            dockerfile.entrypoint[0]: yrden,
            dockerfile.destination_of("deploy/seed-config.sh"): DEPLOY / "seed-config.sh",
        }
        self.directories: dict[str, Path] = {}

    def mount(self, container_directory: str) -> Path:
        host = self.root / container_directory.strip("/").replace("/", "_")
        host.mkdir(parents=True, exist_ok=True)
        self.directories[container_directory] = host
        return host

    def rewrite(self, text: str) -> str:
        """Every container path in ``text`` replaced by its place here (one pass, longest match first)."""
        places = {**{k: str(v) for k, v in self.files.items()}, **{k: str(v) for k, v in self.directories.items()}}
        alternatives = "|".join(re.escape(p) for p in sorted(places, key=len, reverse=True))
        return re.sub(f"(?:{alternatives})(?![\\w.-])", lambda match: places[match.group(0)], text)

    def place_file(self, container_path: str, contents: str) -> Path:
        """Writes ``contents`` (container paths rewritten) at ``container_path`` inside a mounted directory."""
        host = Path(self.rewrite(container_path))
        assert self.root in host.parents, f"{container_path} is not inside a mounted directory"
        host.write_text(self.rewrite(contents))
        return host


@dataclass
class Launch:
    """One documented way to start the container: the seeding step (if any), then the gateway."""

    name: str
    seed_argv: list[str] | None
    argv: list[str]
    environment: dict[str, str]
    paths: ContainerPaths
    liveness: str = "/healthz"
    readiness: str = "/readyz"
    healthcheck: list[str] | None = None  # compose's health check, as a command line

    def host_argv(self, argv: list[str], port: int | None = None) -> list[str]:
        out = [self.paths.rewrite(word) for word in argv]
        if port is not None:
            index = out.index("--listen") + 1
            out[index] = f"{out[index].rsplit(':', 1)[0]}:{port}"
        return out

    def host_environment(self, *, without: tuple[str, ...] = ()) -> dict[str, str]:
        keep = {k: self.paths.rewrite(v) for k, v in self.environment.items() if k not in without}
        return clean_env(keep)


def image_environment(dockerfile: Dockerfile) -> dict[str, str]:
    """The image's ENV that matters to the gateway (PATH and HOME stay this machine's)."""
    return {k: v for k, v in dockerfile.env.items() if k.startswith("YRDEN_")}


def docker_run_launch(tmp: Path, yrden: Path) -> Launch:
    """``docker run -e YRDEN_ADMIN_TOKEN yrden:local``: the image's own ENTRYPOINT, CMD and config."""
    dockerfile = Dockerfile.parse(DOCKERFILE)
    paths = ContainerPaths(tmp, yrden, dockerfile)
    for volume in dockerfile.volumes:
        paths.mount(volume)
    config_path = dockerfile.destination_of("deploy/yrden.json")
    paths.mount(str(Path(config_path).parent))
    paths.place_file(config_path, (DEPLOY / "yrden.json").read_text())
    environment = {**image_environment(dockerfile), "YRDEN_ADMIN_TOKEN": ADMIN_TOKEN}
    return Launch("docker run", None, dockerfile.entrypoint + dockerfile.cmd, environment, paths)


def compose_launch(tmp: Path, yrden: Path) -> Launch:
    """``docker compose up``: yrden-init seeds the volume, then the yrden service starts."""
    dockerfile = Dockerfile.parse(DOCKERFILE)
    paths = ContainerPaths(tmp, yrden, dockerfile)
    document = json.loads(interpolate_compose(json.dumps(compose()), {"YRDEN_ADMIN_TOKEN": ADMIN_TOKEN}))
    services = document["services"]
    init, service = services["yrden-init"], services["yrden"]
    for volume in init["volumes"] + service["volumes"]:
        source, target = volume.split(":")[:2]
        if source.startswith("."):  # a bind mount of a file next to the compose file
            paths.mount(str(Path(target).parent))
            paths.place_file(target, (COMPOSE.parent / source).read_text())
        else:
            paths.mount(target)
    environment = {**image_environment(dockerfile), **service["environment"]}
    healthcheck = service["healthcheck"]["test"]
    assert healthcheck[0] == "CMD", healthcheck
    return Launch(
        "compose",
        init["entrypoint"] + init["command"],
        dockerfile.entrypoint + service["command"],
        environment,
        paths,
        readiness="/readyz",
        healthcheck=healthcheck[1:],
    )


def kubernetes_launch(tmp: Path, yrden: Path) -> Launch:
    """``kubectl apply -k deploy/k8s``: the initContainer seeds the PVC, then the container starts."""
    dockerfile = Dockerfile.parse(DOCKERFILE)
    paths = ContainerPaths(tmp, yrden, dockerfile)
    pod = k8s_object("Deployment")["spec"]["template"]["spec"]
    volumes = {v["name"]: v for v in pod["volumes"]}
    config_map = k8s_object("ConfigMap")
    secret = k8s_object("Secret")
    (init,) = pod["initContainers"]
    container = main_container()
    for mount in init["volumeMounts"] + container["volumeMounts"]:
        if mount["mountPath"] in paths.directories:
            continue
        paths.mount(mount["mountPath"])
        volume = volumes[mount["name"]]
        if "configMap" in volume:  # the kubelet writes each key as a file
            assert volume["configMap"]["name"] == config_map["metadata"]["name"]
            for key, contents in config_map["data"].items():
                paths.place_file(f"{mount['mountPath']}/{key}", contents)
    environment = image_environment(dockerfile)
    for variable in container.get("env", []):
        if "value" in variable:
            environment[variable["name"]] = variable["value"]
        else:
            reference = variable["valueFrom"]["secretKeyRef"]
            assert reference["name"] == secret["metadata"]["name"], reference
            if reference["key"] in secret["stringData"] or not reference.get("optional", False):
                environment[variable["name"]] = secret["stringData"][reference["key"]]
    assert "command" not in container, "the container should keep the image's entrypoint"
    probe_path = {
        kind: container[kind]["httpGet"]["path"] for kind in ("startupProbe", "livenessProbe", "readinessProbe")
    }
    assert probe_path["startupProbe"] == probe_path["livenessProbe"]
    return Launch(
        "kubernetes",
        init["command"] + init.get("args", []),
        dockerfile.entrypoint + container["args"],
        environment,
        paths,
        liveness=probe_path["livenessProbe"],
        readiness=probe_path["readinessProbe"],
    )


LAUNCHES = {"docker run": docker_run_launch, "compose": compose_launch, "kubernetes": kubernetes_launch}


def run(argv: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL, **kwargs)


def start(launch: Launch, port: int) -> Gateway:
    workdir = launch.paths.root
    log_path = workdir / f"yrden-{port}.log"
    log_file = open(log_path, "wb")
    proc = subprocess.Popen(
        launch.host_argv(launch.argv, port),
        stdin=subprocess.DEVNULL,
        stdout=log_file,
        stderr=subprocess.STDOUT,
        cwd=workdir,
        env=launch.host_environment(),
    )
    config = Path(launch.paths.rewrite(option(launch.argv, "--config")))
    gw = Gateway(proc=proc, port=port, workdir=workdir, config_path=config, log_path=log_path, _log_file=log_file)
    harness.LIVE_GATEWAYS.append(gw)
    return gw


def wait_for_200(gw: Gateway, path: str) -> httpx2.Response:
    deadline = time.monotonic() + START_TIMEOUT
    last = "no answer yet"
    with httpx2.Client(timeout=2.0) as http:
        while time.monotonic() < deadline:
            assert gw.proc.poll() is None, f"yrden exited with {gw.proc.returncode}:\n{gw.log_text()}"
            try:
                response = http.get(f"{gw.base}{path}")
                if response.status_code == 200:
                    return response
                last = f"HTTP {response.status_code}: {response.text[:300]}"
            except httpx2.TransportError as error:
                last = repr(error)
            time.sleep(0.1)
    raise AssertionError(f"GET {path} did not answer 200 within {START_TIMEOUT}s (last: {last})\n{gw.log_text()}")


# ---------------------------------------------------------------------------
# The files parse and describe what the README says


def test_every_yaml_file_parses():
    files = sorted([*DEPLOY.rglob("*.yaml"), *DEPLOY.rglob("*.yml")])
    assert {f.name for f in files} >= {*K8S_KINDS, "kustomization.yaml", "docker-compose.yml"}, files
    for path in files:
        documents = yaml_documents(path)
        assert documents, f"{path} holds no YAML document"
        assert all(isinstance(d, dict) for d in documents), f"{path}: every document should be a mapping"


def test_k8s_objects_have_the_kinds_listed_and_kustomize_applies_them_all():
    for name, kind in K8S_KINDS.items():
        documents = yaml_documents(K8S / name)
        assert [d["kind"] for d in documents] == [kind], name
        assert documents[0]["metadata"]["name"], name
        assert "namespace" not in documents[0]["metadata"], f"{name}: the manifests are namespace-less"
    (kustomization,) = yaml_documents(K8S / "kustomization.yaml")
    assert kustomization["kind"] == "Kustomization"
    on_disk = {p.name for p in K8S.glob("*.yaml")} - {"kustomization.yaml"}
    assert sorted(kustomization["resources"]) == sorted(on_disk) == sorted(K8S_KINDS)


def test_shipped_configs_pass_check_config(yrden, tmp_path):
    config_map_json = k8s_object("ConfigMap")["data"]["yrden.json"]
    (tmp_path / "configmap-yrden.json").write_text(config_map_json)
    for path in (DEPLOY / "yrden.json", tmp_path / "configmap-yrden.json"):
        proc = run([str(yrden), "check-config", str(path)], cwd=tmp_path, env=clean_env())
        assert proc.returncode == 0, f"{path}: exit {proc.returncode}\n{proc.stdout}{proc.stderr}"
        assert "demo" in proc.stdout, proc.stdout
    assert json.loads(config_map_json) == json.loads((DEPLOY / "yrden.json").read_text()), (
        "the ConfigMap's yrden.json and deploy/yrden.json should be the same default"
    )


def test_ports_commands_and_paths_agree():
    dockerfile = Dockerfile.parse(DOCKERFILE)
    deployment = k8s_object("Deployment")
    pod = deployment["spec"]["template"]["spec"]
    container = main_container()
    service = k8s_object("Service")
    services = compose()["services"]

    # One port everywhere: EXPOSE == containerPort == Service targetPort == every --listen == compose's port.
    (exposed,) = dockerfile.expose
    (container_port,) = [p["containerPort"] for p in container["ports"]]
    (service_port,) = service["spec"]["ports"]
    assert exposed == container_port == named_port(container, service_port["targetPort"])
    assert exposed == listen_port(dockerfile.cmd) == listen_port(container["args"])
    assert exposed == listen_port(services["yrden"]["command"])
    (published,) = services["yrden"]["ports"]
    assert published.startswith("127.0.0.1:"), "compose should publish on the host's loopback only"
    assert int(published.rsplit(":", 1)[1]) == exposed
    for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
        assert named_port(container, container[probe]["httpGet"]["port"]) == exposed, probe
    assert option(dockerfile.cmd, "--listen").startswith("0.0.0.0:"), "the container must listen beyond loopback"

    # The binary, the seed script and the default config are where the commands look for them.
    assert dockerfile.copies[dockerfile.entrypoint[0]].startswith("build:"), "ENTRYPOINT is the built binary"
    assert option(dockerfile.cmd, "--config") == dockerfile.destination_of("deploy/yrden.json")
    seed_script = dockerfile.destination_of("deploy/seed-config.sh")
    (init,) = pod["initContainers"]
    seed_k8s = init["command"] + init.get("args", [])
    seed_compose = services["yrden-init"]["entrypoint"] + services["yrden-init"]["command"]
    assert seed_k8s[0] == seed_compose[0] == seed_script

    # The data directory: VOLUME == YRDEN_DATA_DIR == the PVC's mount; the live config is seeded into it.
    (data_dir,) = dockerfile.volumes
    assert dockerfile.env["YRDEN_DATA_DIR"] == data_dir
    volumes = {v["name"]: v for v in pod["volumes"]}
    mounts = {m["mountPath"]: volumes[m["name"]] for m in container["volumeMounts"]}
    claim = mounts[data_dir]["persistentVolumeClaim"]["claimName"]
    assert claim == k8s_object("PersistentVolumeClaim")["metadata"]["name"]
    env = {v["name"]: v for v in container["env"]}
    assert env["YRDEN_DATA_DIR"]["value"] == data_dir
    for seed, main_args in ((seed_k8s, container["args"]), (seed_compose, services["yrden"]["command"])):
        assert seed[2] == option(main_args, "--config"), "the gateway must run the config that was seeded"
        assert Path(seed[2]).parent == Path(data_dir), "the live config must be on the data volume"
    init_mounts = {m["mountPath"]: volumes[m["name"]] for m in init["volumeMounts"]}
    config_mount = str(Path(seed_k8s[1]).parent)
    assert init_mounts[config_mount]["configMap"]["name"] == k8s_object("ConfigMap")["metadata"]["name"]
    assert Path(seed_k8s[1]).name in k8s_object("ConfigMap")["data"]
    assert init_mounts[data_dir] == mounts[data_dir]
    assert f"./yrden.json:{seed_compose[1]}:ro" in services["yrden-init"]["volumes"]
    assert any(v.endswith(f":{data_dir}") for v in services["yrden-init"]["volumes"])
    assert any(v.endswith(f":{data_dir}") for v in services["yrden"]["volumes"])

    # Secrets, names and labels line up; the Secret holds every key the Deployment needs.
    secret = k8s_object("Secret")
    for variable in container["env"]:
        if "valueFrom" in variable:
            reference = variable["valueFrom"]["secretKeyRef"]
            assert reference["name"] == secret["metadata"]["name"]
            assert reference.get("optional", False) or reference["key"] in secret["stringData"], reference
    assert "YRDEN_ADMIN_TOKEN" in env and "optional" not in env["YRDEN_ADMIN_TOKEN"]["valueFrom"]["secretKeyRef"]
    assert services["yrden"]["environment"]["YRDEN_ADMIN_TOKEN"].startswith("${YRDEN_ADMIN_TOKEN:?")
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert service["spec"]["selector"].items() <= labels.items()
    assert deployment["spec"]["selector"]["matchLabels"].items() <= labels.items()
    assert init["image"] == container["image"] == services["yrden"]["image"] == services["yrden-init"]["image"]


def test_security_and_shutdown_settings():
    dockerfile = Dockerfile.parse(DOCKERFILE)
    deployment = k8s_object("Deployment")
    pod = deployment["spec"]["template"]["spec"]
    assert deployment["spec"]["replicas"] == 1
    assert deployment["spec"]["strategy"]["type"] == "Recreate", "a ReadWriteOnce volume cannot roll"
    assert k8s_object("PersistentVolumeClaim")["spec"]["accessModes"] == ["ReadWriteOnce"]
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert str(pod["securityContext"]["runAsUser"]) == dockerfile.user.split(":")[0], "the image's USER"
    assert pod["securityContext"]["fsGroup"]
    for container in pod["initContainers"] + pod["containers"]:
        context = container["securityContext"]
        assert context["readOnlyRootFilesystem"] is True, container["name"]
        assert context["capabilities"]["drop"] == ["ALL"], container["name"]
        assert context["allowPrivilegeEscalation"] is False, container["name"]
    assert pod["enableServiceLinks"] is False, "service links would inject YRDEN_* variables"
    assert k8s_object("Service")["spec"]["type"] == "ClusterIP"
    # Room for the gateway's drain (20 s) plus stopping its children.
    assert pod["terminationGracePeriodSeconds"] >= SHUTDOWN_BOUND_SECONDS + 10
    assert compose()["services"]["yrden"]["stop_grace_period"] == f"{pod['terminationGracePeriodSeconds']}s"


def test_build_context_filter_lets_through_what_the_dockerfile_copies():
    ignore = (DEPLOY / "Dockerfile.dockerignore").read_text().splitlines()
    patterns = [line.strip() for line in ignore if line.strip() and not line.startswith("#")]
    assert patterns[0] == "*", "the filter should start by leaving everything out"
    included = {p[1:] for p in patterns if p.startswith("!")}
    text = DOCKERFILE.read_text().replace("\\\n", " ")
    sources = []
    for line in text.splitlines():
        words = line.split()
        if words[:1] == ["COPY"] and not any(w.startswith("--from=") for w in words):
            sources += [w for w in words[1:-1] if not w.startswith("--")]
    assert "Package.swift" in sources and "Sources" in sources, sources
    for source in sources:
        if source.startswith("${"):
            continue  # from-binary's BINARY_ROOT: deploy/image.sh builds that stage from a context of its own
        parts = Path(source).parts
        assert any("/".join(parts[:n]) in included for n in range(1, len(parts) + 1)), (
            f"COPY {source}: left out of the build context by Dockerfile.dockerignore"
        )


def copy_instructions() -> list[tuple[list[str], list[str]]]:
    """Every COPY of the Dockerfile as (flags, sources), continuation lines joined and comments dropped."""
    lines = [line for line in DOCKERFILE.read_text().splitlines() if not line.lstrip().startswith("#")]
    copies = []
    for line in "\n".join(lines).replace("\\\n", " ").splitlines():
        words = line.split()
        if words[:1] == ["COPY"]:
            flags = [w for w in words[1:] if w.startswith("--")]
            copies.append((flags, [w for w in words[1:-1] if not w.startswith("--")]))
    return copies


def test_every_copy_source_is_in_a_clone_or_an_earlier_stage():
    """A user builds the image from a fresh clone: what git does not track (Package.resolved, .build) is not there."""
    tracked = subprocess.run(
        ["git", "ls-files"], cwd=harness.REPO_ROOT, capture_output=True, text=True, check=True
    ).stdout.splitlines()
    stages = [
        line.split()[-1].lower()
        for line in DOCKERFILE.read_text().splitlines()
        if line.upper().startswith("FROM ") and " AS " in line.upper()
    ]
    checked = 0
    for flags, sources in copy_instructions():
        stage = next((f.split("=", 1)[1].lower() for f in flags if f.startswith("--from=")), None)
        if stage is not None:
            assert stage in stages, f"COPY --from={stage}: no earlier stage has that name ({stages})"
            continue
        for source in sources:
            if source.startswith("${"):
                continue  # a build argument's path (from-binary's BINARY_ROOT): the builder brings it
            present = source in tracked or any(path.startswith(source.rstrip("/") + "/") for path in tracked)
            assert present, f"COPY {source}: not in a clone of the repository (git does not track it)"
            checked += 1
    assert checked >= 4, "the Dockerfile should copy the manifest, Sources, Tests and the deploy files"


def test_readme_and_deploy_readme_build_the_image_the_manifests_run():
    image = compose()["services"]["yrden"]["image"]
    build = f"docker build -f deploy/Dockerfile -t {image} ."
    assert build in (DEPLOY / "README.md").read_text(), "deploy/README.md should build the image compose runs"
    assert build in DOCKERFILE.read_text(), "the Dockerfile's header should build the image compose runs"
    assert "deploy/" in (harness.REPO_ROOT / "README.md").read_text(), "the README should point at deploy/"


# ---------------------------------------------------------------------------
# The gateway, started as each recipe starts it


@pytest.mark.parametrize("name", list(LAUNCHES))
def test_gateway_starts_as_the_container_would(name, yrden, tmp_path):
    launch = LAUNCHES[name](tmp_path, yrden)
    seeded: Path | None = None
    if launch.seed_argv is not None:
        proc = run(launch.host_argv(launch.seed_argv), env=launch.host_environment())
        assert proc.returncode == 0, f"seeding failed ({proc.returncode}):\n{proc.stdout}{proc.stderr}"
        seeded = Path(launch.paths.rewrite(launch.seed_argv[-1]))
        assert seeded.read_text() == Path(launch.paths.rewrite(launch.seed_argv[-2])).read_text()
        assert seeded.stat().st_mode & 0o077 == 0, "the live config may hold tokens: mode 0600"

    gw = start(launch, free_port())
    try:
        wait_for_200(gw, launch.liveness)
        ready = wait_for_200(gw, launch.readiness).json()
        demo = ready["servers"]["demo"]
        assert demo["state"] == "connected", f"the default config's demo server is not up: {ready}"
        assert demo["tools"] > 0, ready
        if launch.healthcheck is not None:
            check = [launch.paths.rewrite(w) for w in launch.healthcheck]
            check[-1] = check[-1].replace(f"/{listen_port(launch.argv)}", f"/{gw.port}")
            proc = run(check)
            assert proc.returncode == 0, f"the compose health check failed on a ready gateway: {proc.stderr}"
        status = gw.stop(timeout=SHUTDOWN_BOUND_SECONDS + 10)
        assert status == 0, f"exit {status} after SIGTERM\n{gw.log_text()}"
    finally:
        gw.stop()
        harness.stop_quietly(gw.children_at_stop)

    if launch.healthcheck is not None:
        proc = run(check)
        assert proc.returncode != 0, "the compose health check passed with no gateway listening"

    if seeded is not None:
        # A restart must keep what the admin API wrote back: the seed step leaves an existing config alone.
        kept = json.loads(seeded.read_text())
        kept["mcpServers"]["added-at-runtime"] = {"command": "true"}
        seeded.write_text(json.dumps(kept))
        proc = run(launch.host_argv(launch.seed_argv), env=launch.host_environment())
        assert proc.returncode == 0, proc.stderr
        assert json.loads(seeded.read_text()) == kept, "seeding again overwrote the live config"


@pytest.mark.parametrize("name", ["docker run", "kubernetes"])
def test_gateway_refuses_to_listen_beyond_loopback_without_admin_token(name, yrden, tmp_path):
    launch = LAUNCHES[name](tmp_path, yrden)
    if launch.seed_argv is not None:
        assert run(launch.host_argv(launch.seed_argv), env=launch.host_environment()).returncode == 0
    proc = run(
        launch.host_argv(launch.argv, free_port()),
        env=launch.host_environment(without=("YRDEN_ADMIN_TOKEN",)),
        cwd=tmp_path,
    )
    assert proc.returncode == 2, f"exit {proc.returncode}\n{proc.stdout}{proc.stderr}"
    assert "YRDEN_ADMIN_TOKEN" in proc.stderr, proc.stderr
