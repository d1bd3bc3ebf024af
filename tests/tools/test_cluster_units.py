"""tools/localcluster without any cluster binary: port picking, the PKI's paths, templates, processes
started and stopped by pid file (with /bin/sleep), the component list, and the package's shape."""

from __future__ import annotations

import ast
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from tests.toolchain import CLUSTER_BINARIES

TOOLS = Path(__file__).resolve().parents[2] / "tools"
PACKAGE = TOOLS / "localcluster"
sys.path.insert(0, str(TOOLS))
try:
    import localcluster.components
    from localcluster import network, pki, processes, templates
    from localcluster.layout import Layout
finally:
    sys.path.remove(str(TOOLS))

NAMES = ("a", "b", "c", "d")


def test_picked_ports_are_distinct_free_loopback_ports():
    ports = network.pick_ports(NAMES)
    assert list(ports) == list(NAMES)
    assert len(set(ports.values())) == len(NAMES)
    assert all(network.port_is_free(port) for port in ports.values())


def test_the_previous_ports_are_kept_while_they_are_free():
    previous = network.pick_ports(NAMES)
    assert network.pick_ports(NAMES, previous) == previous


def test_all_ports_are_picked_again_when_one_is_taken_or_the_names_change():
    previous = network.pick_ports(NAMES)
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", previous["b"]))
        holder.listen()
        assert not network.port_is_free(previous["b"])
        again = network.pick_ports(NAMES, previous)
    assert again != previous and previous["b"] not in again.values()
    assert set(network.pick_ports((*NAMES, "e"), previous)) == {*NAMES, "e"}


def test_the_component_ports_are_the_names_the_cluster_json_records():
    names = localcluster.components.port_names(localcluster.components.load())
    assert len(names) == len(set(names))
    assert names == ["etcd_client", "etcd_peer", "apiserver", "controller_manager", "scheduler", "scheduler_plugins",
                     "kwok", "jobset_webhook", "jobset_metrics", "jobset_health", "kueue_webhook", "kueue_metrics",
                     "kueue_health"]


def test_up_needs_the_binaries_the_tests_look_for():
    assert sorted(localcluster.components.binaries(localcluster.components.load())) == sorted(CLUSTER_BINARIES)


def test_pki_paths(tmp_path: Path):
    layout = Layout(tmp_path / "c")
    assert layout.root == (tmp_path / "c").resolve()
    assert pki.webhook_cert_dir(layout, "jobset") == layout.root / "pki" / "jobset-webhook"
    layout.make()
    assert {path.name for path in layout.root.iterdir()} == {"pki", "pids", "logs", "config", "etcd", "run"}
    assert layout.pki.stat().st_mode & 0o777 == layout.etcd.stat().st_mode & 0o777 == 0o700
    (layout.pki / "tokens.csv").write_text('abc123,kubeflow-trainer-admin,kubeflow-trainer-admin,"system:masters"\n')
    assert pki.read_token(layout) == "abc123"


@pytest.mark.skipif(shutil.which("openssl") is None, reason="no openssl")
def test_the_real_pki_signs_the_webhook_cert_for_loopback(tmp_path: Path):
    layout = Layout(tmp_path / "c")
    layout.make()
    pki.make_pki(layout, ("jobset", "other"))
    for server in ("jobset", "other"):
        cert = pki.webhook_cert_dir(layout, server) / "tls.crt"
        assert cert.read_bytes() == (layout.pki / "webhook.crt").read_bytes()
    verify = subprocess.run(["openssl", "verify", "-CAfile", "webhook-ca.crt", "webhook.crt"], cwd=layout.pki,
                            capture_output=True, text=True)
    assert verify.returncode == 0, verify.stderr
    text = subprocess.run(["openssl", "x509", "-in", "apiserver.crt", "-noout", "-text"], cwd=layout.pki,
                          capture_output=True, text=True, check=True).stdout
    assert "IP Address:127.0.0.1" in text and "IP Address:10.96.0.1" in text and "DNS:kubernetes.default.svc" in text


def test_a_template_value_that_is_not_plain_goes_in_quoted(tmp_path: Path):
    odd = tmp_path / "a dir: with # and 'quotes'" / "kubeconfig"
    for name in ("scheduler.yaml", "scheduler-plugins.yaml"):
        config = yaml.safe_load(templates.render(name, kubeconfig=odd))
        assert config["clientConnection"]["kubeconfig"] == str(odd)
    jobset = yaml.safe_load(templates.render("jobset.yaml", webhook_port=1, cert_dir=odd, metrics_port=2, health_port=3))
    assert jobset["webhook"] == {"host": "127.0.0.1", "port": 1, "certDir": str(odd)}
    assert jobset["health"] == {"healthProbeBindAddress": "127.0.0.1:3"}
    with pytest.raises(KeyError):
        templates.render("jobset.yaml", webhook_port=1)


def test_kwok_yaml_fails_pods_by_the_documented_markers():
    from localcluster.components import kwok

    stages = {doc["metadata"]["name"]: doc for doc in yaml.safe_load_all(templates.text("kwok.yaml")) if doc["kind"] == "Stage"}
    keys = [expression["key"] for name in ("pod-fail-by-label", "pod-fail-by-annotation", "pod-fail-by-env")
            for expression in stages[name]["spec"]["selector"]["matchExpressions"]]
    assert f'.metadata.labels["{kwok.FAIL_KEY}"]' in keys and f'.metadata.annotations["{kwok.FAIL_KEY}"]' in keys
    assert any(f'select(.name == "{kwok.FAIL_ENV}")' in key for key in keys)
    oom = stages["pod-oom-by-env"]
    assert any(f'select(.name == "{kwok.OOM_ENV}")' in e["key"] for e in oom["spec"]["selector"]["matchExpressions"])
    assert "reason: OOMKilled" in oom["spec"]["next"]["statusTemplate"]
    pull = stages["pod-image-pull-by-env"]
    assert any(f'select(.name == "{kwok.IMAGE_PULL_ENV}")' in e["key"] for e in pull["spec"]["selector"]["matchExpressions"])
    assert any(f'select(.name == "{kwok.IMAGE_PULL_ENV}")' in e["key"] and e["operator"] == "DoesNotExist"
               for e in stages["pod-ready"]["spec"]["selector"]["matchExpressions"]), "such a Pod never becomes Running"
    complete = [e["key"] for e in stages["pod-complete"]["spec"]["selector"]["matchExpressions"] if e["operator"] == "DoesNotExist"]
    assert all(any(f'select(.name == "{env}")' in key for key in complete) for env in (kwok.OOM_ENV, kwok.KEEP_RUNNING_ENV))


def test_kwok_serves_the_log_files_for_every_pod(tmp_path: Path):
    from localcluster.components import kwok

    logs = yaml.safe_load(templates.render("kwok-logs.yaml", logs_file=tmp_path / "a.log", previous_logs_file=tmp_path / "b.log"))
    assert logs["kind"] == "ClusterLogs" and logs["spec"]["selector"] == {}
    assert logs["spec"]["logs"] == [{"logsFile": str(tmp_path / "a.log"), "previousLogsFile": str(tmp_path / "b.log")}]
    for name in kwok.LOG_FILES:  # the CRI log format the kubelet (and so kwok) reads: time, stream, tag, text
        for line in templates.text(name).splitlines():
            moment, stream, tag, _text = line.split(" ", 3)
            assert moment.endswith("Z") and stream in ("stdout", "stderr") and tag == "F", line


def _sleeper(layout: Layout, name: str) -> int:
    return processes.start(layout, name, [shutil.which("sleep") or "/bin/sleep", "300"])


def test_processes_are_stopped_by_pid_in_reverse_order_and_strays_too(tmp_path: Path, capsys: pytest.CaptureFixture):
    layout = Layout(tmp_path / "c")
    layout.make()
    pids = {name: _sleeper(layout, name) for name in ("first", "second", "stray")}
    assert all(processes.running_pid(layout, name) == pid for name, pid in pids.items())
    assert _sleeper(layout, "first") == pids["first"]  # already running: not started twice
    capsys.readouterr()
    processes.stop_all(layout, ["first", "second"])
    stopped = [line.split()[2] for line in capsys.readouterr().err.splitlines() if "] stopped " in line]
    assert stopped == ["second", "first", "stray"]
    assert not list(layout.pids.iterdir())
    assert all(processes.running_pid(layout, name) is None for name in pids)


def test_a_pid_running_another_binary_is_never_signalled(tmp_path: Path):
    layout = Layout(tmp_path / "c")
    layout.make()
    other = subprocess.Popen(["sleep", "300"])
    try:
        processes.pid_file(layout, "etcd").write_text(f"{other.pid}\n{tmp_path / 'etcd'}\n")
        assert processes.running_pid(layout, "etcd") is None
        processes.stop_all(layout, ["etcd"])
        assert other.poll() is None  # still running
        assert not processes.pid_file(layout, "etcd").exists()
    finally:
        other.kill()
        other.wait()


def test_wait_for_reports_the_exited_component_with_its_log(tmp_path: Path):
    layout = Layout(tmp_path / "c")
    layout.make()
    processes.start(layout, "quick", [shutil.which("sh") or "/bin/sh", "-c", "echo bye from quick"])
    time.sleep(0.5)
    with pytest.raises(localcluster.errors.ClusterError, match="(?s)quick exited while waiting for x:.*bye from quick"):
        processes.wait_for("x", lambda: False, 10, layout, "quick")
    with pytest.raises(localcluster.errors.ClusterError, match="timed out after 0s waiting for y\nlast error: no"):
        processes.wait_for("y", lambda: (_ for _ in ()).throw(OSError("no")), 0.3, layout)


def _functions(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node


def test_no_function_of_the_package_is_longer_than_60_lines():
    long = {f"{path.relative_to(PACKAGE)}:{node.name}": node.end_lineno - node.lineno + 1
            for path in [*PACKAGE.rglob("*.py"), TOOLS / "cluster"]
            for node in _functions(ast.parse(path.read_text()))
            if node.end_lineno - node.lineno + 1 > 60}
    assert not long


def test_no_yaml_is_built_in_code():
    """The YAML lives in files/: no module holds a multi-line string with `apiVersion:` or `kind:`."""
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.Constant, ast.JoinedStr)) and not isinstance(getattr(node, "value", None), bytes):
                text = ast.unparse(node)
                assert not ("\\n" in text and ("apiVersion:" in text or "kind:" in text)), f"{path}: {text[:80]}"
