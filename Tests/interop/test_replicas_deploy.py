"""The replica deployment files say what deploy/README.md says: deploy/haproxy.cfg takes its replicas from the
environment and refuses to start without one; deploy/k8s-replicas runs several replicas on the store, with no
volume they would have to share and every secret from the Secret."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness import REPO_ROOT, clean_env
from replicas import HAPROXY_CONFIG, MAX_REPLICAS

K8S_REPLICAS = REPO_ROOT / "deploy" / "k8s-replicas"


def haproxy_check(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    binary = shutil.which("haproxy") or "/usr/sbin/haproxy"
    if not Path(binary).exists():
        pytest.fail("no haproxy: install it (`make service-deps`)", pytrace=False)
    base = {k: v for k, v in os.environ.items() if not k.startswith("YRDEN_")}
    return subprocess.run(
        [binary, "-c", "-f", str(HAPROXY_CONFIG)], env={**base, **env}, capture_output=True, text=True, timeout=30
    )


def test_haproxy_cfg_takes_up_to_five_replicas_from_the_environment() -> None:
    replicas = {f"YRDEN_REPLICA_{i}": f"127.0.0.1:{9000 + i}" for i in range(1, MAX_REPLICAS + 1)}
    checked = haproxy_check({**replicas, "YRDEN_LB_BIND": "127.0.0.1:9999"})
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_haproxy_cfg_without_a_replica_says_which_variable_to_set() -> None:
    checked = haproxy_check({})
    assert checked.returncode != 0
    assert "YRDEN_REPLICA_1" in checked.stdout + checked.stderr


def k8s_objects() -> dict[str, list[dict[str, Any]]]:
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for path in sorted(K8S_REPLICAS.glob("*.yaml")):
        for document in yaml.safe_load_all(path.read_text()):
            if document:
                by_kind.setdefault(document["kind"], []).append(document | {"_file": path.name})
    return by_kind


def test_k8s_replicas_run_several_replicas_on_the_store_without_a_shared_volume(yrden: Path, tmp_path: Path) -> None:
    objects = k8s_objects()
    (kustomization,) = objects["Kustomization"]
    on_disk = {p.name for p in K8S_REPLICAS.glob("*.yaml")} - {"kustomization.yaml"}
    # Every manifest is applied except the Ingress example, which its own comment says to add by hand.
    assert set(kustomization["resources"]) == on_disk - {"ingress.yaml"}
    assert "PersistentVolumeClaim" not in objects

    (deployment,) = objects["Deployment"]
    spec = deployment["spec"]
    assert spec["replicas"] >= 2
    pod = spec["template"]["spec"]
    assert not [v for v in pod["volumes"] if "persistentVolumeClaim" in v]
    (container,) = pod["containers"]
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"

    # The config the pods run from is the ConfigMap's, mounted where --config points.
    config_path = Path(container["args"][container["args"].index("--config") + 1])
    mounts = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}
    volumes = {v["name"]: v for v in pod["volumes"]}
    (config_volume,) = [name for name, path in mounts.items() if path == str(config_path.parent)]
    (config_map,) = objects["ConfigMap"]
    assert volumes[config_volume]["configMap"]["name"] == config_map["metadata"]["name"]
    config_text = config_map["data"][config_path.name]
    config = json.loads(config_text)
    assert config["store"] == {"postgres": "${YRDEN_STORE_URL}"}

    # Every secret comes from the Secret, which has each key.
    (secret,) = objects["Secret"]
    from_secret = {
        e["name"]: e["valueFrom"]["secretKeyRef"] for e in container["env"] if "secretKeyRef" in e.get("valueFrom", {})
    }
    assert set(from_secret) == {"YRDEN_ADMIN_TOKEN", "YRDEN_SECRET_KEY", "YRDEN_STORE_URL"}
    for name, ref in from_secret.items():
        assert ref["name"] == secret["metadata"]["name"] and ref["key"] in secret["stringData"], name
        assert not ref.get("optional"), f"{name} must be set on every replica"

    # The gateway accepts that config once the store URL is in the environment, and names the variable when not.
    path = tmp_path / "yrden.json"
    path.write_text(config_text)
    env = clean_env({"YRDEN_STORE_URL": "postgres://yrden:secret@postgres.example:5432/yrden"})
    check = [str(yrden), "check-config", str(path)]
    accepted = subprocess.run(check, env=env, capture_output=True, text=True, timeout=30)
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    refused = subprocess.run(check, env=clean_env(), capture_output=True, text=True, timeout=30)
    assert refused.returncode == 2 and "YRDEN_STORE_URL" in refused.stdout + refused.stderr
