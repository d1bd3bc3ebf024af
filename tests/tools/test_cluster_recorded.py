"""tools/localcluster (the package behind tools/cluster) generates what the single-file tools/cluster
generated: the kwok configuration, the JobSet webhook configurations, the nodes and StorageClass, the
other configs, every component's command line and the PKI's openssl commands are equal, as parsed
YAML/JSON, to the recordings in tests/tools/recorded/cluster/ (captured from that script; see its
README.md). No binaries, no openssl: the fixed inputs are the recordings' own."""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

TOOLS = Path(__file__).resolve().parents[2] / "tools"
RECORDED = Path(__file__).resolve().parent / "recorded" / "cluster"
sys.path.insert(0, str(TOOLS))
try:
    import localcluster.cli
    import localcluster.components
    from localcluster import kubeconfig, nodes, pki, templates
    from localcluster.context import Cluster
    from localcluster.layout import Layout
finally:
    sys.path.remove(str(TOOLS))

RECORDING = json.loads((RECORDED / "components.json").read_text())
DIR, BIN = "/CLUSTER_DIR", "/CLUSTER_BIN"


def recorded(name: str) -> Any:
    text = (RECORDED / name).read_text()
    return json.loads(text) if name.endswith(".json") else list(yaml.safe_load_all(text))


def parsed(text: str) -> list[Any]:
    return list(yaml.safe_load_all(text))


@pytest.fixture
def cluster(tmp_path: Path) -> Cluster:
    """A cluster with the recording's ports, token and (fake) CA certificates; configured, not started."""
    layout = Layout(tmp_path / "c")
    layout.make()
    (layout.pki / "ca.crt").write_text(RECORDING["ca.crt"])
    (layout.pki / "webhook-ca.crt").write_text(RECORDING["webhook-ca.crt"])
    kubeconfig.write_kubeconfig(layout, RECORDING["ports"], RECORDING["token"])
    cluster = Cluster(layout, tmp_path / "bin", dict(RECORDING["ports"]), RECORDING["token"], 1.0)
    for component in localcluster.components.load():
        component.configure(cluster)
    return cluster


def placeholders(cluster: Cluster, text: str) -> str:
    return text.replace(str(cluster.layout.root), DIR).replace(str(cluster.bin_dir), BIN)


def config(cluster: Cluster, name: str) -> list[Any]:
    return parsed(placeholders(cluster, (cluster.layout.config / name).read_text()))


def test_the_kwok_configuration_is_the_recorded_one(cluster: Cluster):
    assert config(cluster, "kwok.yaml") == recorded("kwok.yaml")


def test_the_jobset_webhook_configurations_are_the_recorded_ones(cluster: Cluster):
    # The old script wrote DIR/config/webhooks.json; the package renders files/jobset-webhooks.yaml.
    assert config(cluster, "jobset-webhooks.yaml") == [recorded("webhooks.json")]


@pytest.mark.parametrize("name", ["scheduler.yaml", "scheduler-plugins.yaml", "jobset.yaml"])
def test_the_component_configs_are_the_recorded_ones(cluster: Cluster, name: str):
    assert config(cluster, name) == recorded(name)


def test_the_kubeconfig_is_the_recorded_one(cluster: Cluster):
    assert parsed(placeholders(cluster, cluster.layout.kubeconfig.read_text())) == recorded("kubeconfig")
    assert cluster.layout.kubeconfig.stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("count", [2, 3])
def test_the_nodes_and_the_storage_class_are_the_recorded_ones(count: int):
    assert nodes.nodes_manifest(count) == recorded(f"nodes-{count}.json")
    assert nodes.storage_class() == recorded("storage-class.json")


def test_the_webhook_probe_is_the_recorded_jobset():
    assert parsed(templates.text("jobset-probe.yaml")) == [recorded("probe-jobset.json")]


def test_every_component_starts_with_the_recorded_command_line(cluster: Cluster):
    parts = localcluster.components.load()
    started = [{"name": part.name, "argv": [placeholders(cluster, arg) for arg in
                                            [cluster.binary(part.binary), *part.args(cluster)]],
                "env": {key: placeholders(cluster, value) for key, value in part.env(cluster).items()}}
               for part in parts]
    assert started == RECORDING["started"]
    assert localcluster.components.names(parts) == RECORDING["start_order"]
    assert localcluster.components.port_names(parts) == list(RECORDING["ports"])


def test_the_pki_runs_the_recorded_openssl_commands(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    want = recorded("pki.json")
    calls: list[list[str]] = []

    def fake_openssl(*args: str, cwd: Path) -> None:
        calls.append(list(args))
        for flag in ("-out", "-keyout"):
            if flag in args:
                (cwd / args[args.index(flag) + 1]).write_text("fake\n")

    monkeypatch.setattr(pki, "openssl", fake_openssl)
    monkeypatch.setattr(pki.secrets, "token_hex", lambda n: "f" * (2 * n))
    layout = Layout(tmp_path / "c")
    layout.make()
    umask = os.umask(0o022)  # as when recorded: the copied webhook cert keeps the mode openssl gave it
    try:
        token = pki.make_pki(layout, ("jobset",))
        files = {str(path.relative_to(layout.pki)): {"mode": oct(path.stat().st_mode & 0o777),
                                                    **({"text": path.read_text()} if path.suffix in (".ext", ".csv") else {})}
                 for path in sorted(layout.pki.rglob("*")) if path.is_file()}
        first = len(calls)
        assert pki.make_pki(layout, ("jobset",)) == token
    finally:
        os.umask(umask)
    assert token == want["token"]
    assert calls[:first] == want["openssl"]
    assert len(calls) - first == want["second_run_openssl"] == 0
    assert files == want["files"]
    assert oct(layout.pki.stat().st_mode & 0o777) == want["dir_mode"]


def test_the_subcommands_take_the_recorded_options(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("COLUMNS", "80")
    helps = {}
    for command in ("up", "down", "status", "env", "kubectl"):
        out = io.StringIO()
        with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
            localcluster.cli.main([command, "--help"])
        helps[command] = out.getvalue()
    assert helps == recorded("cli-help.json")
