"""watch/kubeclient.py: which cluster, context and credentials KubeAPI uses, from recorded kubeconfig
files and contents, as the kubernetes provider takes them (`kubeconfig` path or contents, `context`,
`cluster`), falling back to $KUBECONFIG, ~/.kube/config and the in-cluster service account; exec
credential plugins run (and run again once their token expires); reads go to a loopback server
answering recorded responses (recorded_api.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml

from pulumi_kubeflow_trainer.watch.kubeclient import KubeAPI, KubeAPIError, KubeconfigSettings

from .recorded_api import kubeconfig_for, serving

# Two clusters and users as kubectl writes them; `dev` is current.
KUBECONFIG = {
    "apiVersion": "v1", "kind": "Config", "current-context": "dev",
    "clusters": [
        {"name": "dev-cluster", "cluster": {"server": "https://127.0.0.1:6443/", "insecure-skip-tls-verify": True}},
        {"name": "gpu-cluster", "cluster": {"server": "https://gpu.example:443", "insecure-skip-tls-verify": True,
                                            "proxy-url": "http://proxy.example:3128"}},
    ],
    "users": [
        {"name": "dev-user", "user": {"token": "dev-token"}},
        {"name": "gpu-user", "user": {"tokenFile": "gpu.token"}},
    ],
    "contexts": [
        {"name": "dev", "context": {"cluster": "dev-cluster", "user": "dev-user"}},
        {"name": "gpu", "context": {"cluster": "gpu-cluster", "user": "gpu-user", "namespace": "team-a"}},
    ],
}


@pytest.fixture
def kubeconfig_file(tmp_path: Path) -> Path:
    (tmp_path / "gpu.token").write_text("gpu-token\n")
    path = tmp_path / "config"
    path.write_text(yaml.safe_dump(KUBECONFIG))
    return path


@pytest.fixture(autouse=True)
def _no_ambient_kubeconfig(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)


def described(api: KubeAPI) -> tuple[str, str, str | None]:
    return api.server, api.namespace, api.authorization()


@pytest.mark.parametrize(("settings", "expected"), [
    ({}, ("https://127.0.0.1:6443", "default", "Bearer dev-token")),
    ({"context": "gpu"}, ("https://gpu.example:443", "team-a", "Bearer gpu-token")),
    ({"cluster": "gpu-cluster"}, ("https://gpu.example:443", "default", "Bearer dev-token")),
], ids=["the current context by default", "a context given overrides the current one",
        "a cluster given overrides the context's cluster"])
def test_a_kubeconfig_path_as_the_provider_takes_it(kubeconfig_file: Path, settings, expected):
    assert described(KubeAPI(kubeconfig=str(kubeconfig_file), **settings)) == expected
    assert described(KubeconfigSettings(kubeconfig=str(kubeconfig_file), **settings).api()) == expected


@pytest.mark.parametrize("dump", [yaml.safe_dump, json.dumps], ids=["YAML contents", "JSON contents"])
def test_kubeconfig_contents_as_the_provider_takes_them(dump, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)  # relative paths in contents are relative to the working directory
    (tmp_path / "gpu.token").write_text("gpu-token")
    assert described(KubeAPI(kubeconfig=dump(KUBECONFIG), context="gpu")) == ("https://gpu.example:443", "team-a", "Bearer gpu-token")


def test_a_home_relative_kubeconfig_path_is_expanded(kubeconfig_file: Path, tmp_path: Path):
    home = tmp_path / "home"
    (home / ".kube").mkdir(parents=True)
    (home / ".kube" / "gpu").write_text(kubeconfig_file.read_text())
    (home / ".kube" / "gpu.token").write_text("gpu-token")
    assert described(KubeAPI(kubeconfig="~/.kube/gpu", context="gpu"))[2] == "Bearer gpu-token"


def test_without_settings_kubeconfig_then_home_is_read(kubeconfig_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    home_config = tmp_path / "home" / ".kube" / "config"
    home_config.parent.mkdir(parents=True)
    home_config.write_text(yaml.safe_dump({**KUBECONFIG, "current-context": "gpu"}))
    (home_config.parent / "gpu.token").write_text("gpu-token")
    assert described(KubeAPI())[0] == "https://gpu.example:443", "~/.kube/config without $KUBECONFIG"
    assert described(KubeconfigSettings().api())[0] == "https://gpu.example:443", "empty settings: the ambient kubeconfig"
    monkeypatch.setenv("KUBECONFIG", f"{kubeconfig_file}:{home_config}")
    assert described(KubeAPI())[0] == "https://127.0.0.1:6443", "$KUBECONFIG's first file sets the current context"
    assert described(KubeAPI(kubeconfig_file))[0] == "https://127.0.0.1:6443", "the path argument, as before"


def test_kubeconfig_files_are_merged_as_kubectl_merges_them(kubeconfig_file: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    other = tmp_path / "other" / "config"
    other.parent.mkdir()
    other.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "Config",
                                     "clusters": [{"name": "edge", "cluster": {"server": "https://edge.example"}}],
                                     "users": [{"name": "edge-user", "user": {"tokenFile": "edge.token"}}],
                                     "contexts": [{"name": "edge", "context": {"cluster": "edge", "user": "edge-user"}}]}))
    (other.parent / "edge.token").write_text("edge-token")
    monkeypatch.setenv("KUBECONFIG", f"{kubeconfig_file}:{other}")
    assert described(KubeAPI(context="edge")) == ("https://edge.example", "default", "Bearer edge-token"), \
        "a context of the second file, its token file relative to that file"


def test_the_cluster_s_proxy_url_is_used(kubeconfig_file: Path):
    assert KubeAPI(kubeconfig=str(kubeconfig_file), context="gpu").configuration.proxy == "http://proxy.example:3128"


def exec_plugin(tmp_path: Path, body: str) -> dict[str, object]:
    """A kubeconfig `exec` user running a Python script (the ExecCredential protocol, as
    aws eks get-token or gke-gcloud-auth-plugin speak it)."""
    script = tmp_path / "credential.py"
    script.write_text(body)
    return {"exec": {"apiVersion": "client.authentication.k8s.io/v1", "command": sys.executable, "args": [str(script)],
                     "interactiveMode": "Never"}}


TOKEN_PLUGIN = """
import json, pathlib, sys
calls = pathlib.Path(sys.argv[0]).with_suffix(".calls")
count = int(calls.read_text()) + 1 if calls.exists() else 1
calls.write_text(str(count))
print(json.dumps({"apiVersion": "client.authentication.k8s.io/v1", "kind": "ExecCredential",
                  "status": {"token": f"exec-token-{count}", "expirationTimestamp": "%s"}}))
"""


@pytest.mark.parametrize(("expiry", "runs_per_request"), [
    ("2999-01-01T00:00:00Z", 0),
    ("2000-01-01T00:00:00Z", 1),
], ids=["a token that has not expired is reused", "an expired token is fetched again before every request"])
def test_exec_credential_plugins_run_and_refresh(tmp_path: Path, expiry: str, runs_per_request: int):
    user = exec_plugin(tmp_path, TOKEN_PLUGIN % expiry)
    api = KubeAPI(kubeconfig=yaml.safe_dump(kubeconfig_for("https://eks.example", user)))
    first = api.authorization()
    assert first is not None and first.startswith("Bearer exec-token-")
    assert api.authorization() == f"Bearer exec-token-{int(first.rsplit('-', 1)[1]) + runs_per_request}"


def test_a_failing_exec_plugin_is_an_error_naming_it(tmp_path: Path):
    user = exec_plugin(tmp_path, "import sys\nprint('token expired, run aws sso login', file=sys.stderr)\nsys.exit(3)\n")
    with pytest.raises(KubeAPIError, match=r"exec credential plugin .* gave no credentials: .*returned 3.*aws sso login"):
        KubeAPI(kubeconfig=yaml.safe_dump(kubeconfig_for("https://eks.example", user)))


def test_inside_a_pod_the_service_account_is_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from kubernetes.config import incluster_config

    (tmp_path / "token").write_text("sa-token")
    (tmp_path / "ca.crt").write_text("-----BEGIN CERTIFICATE-----\n")
    monkeypatch.setattr(incluster_config, "SERVICE_TOKEN_FILENAME", str(tmp_path / "token"))
    monkeypatch.setattr(incluster_config, "SERVICE_CERT_FILENAME", str(tmp_path / "ca.crt"))
    monkeypatch.setenv("KUBERNETES_SERVICE_HOST", "10.96.0.1")
    monkeypatch.setenv("KUBERNETES_SERVICE_PORT", "443")
    api = KubeAPI()
    assert (api.server, api.authorization()) == ("https://10.96.0.1:443", "bearer sa-token")


@pytest.mark.parametrize(("arguments", "message"), [
    ({"kubeconfig": "/no/such/kubeconfig"}, "neither a kubeconfig file nor kubeconfig contents"),
    ({"kubeconfig": "clusters: [unclosed"}, "cannot parse the kubeconfig given"),
    ({"context": "prod"}, "no context 'prod'"),
    ({"cluster": "prod-cluster"}, "no cluster 'prod-cluster'"),
], ids=["a path that names no file", "contents that are not YAML", "an unknown context", "an unknown cluster"])
def test_what_cannot_be_used_is_a_kubeapi_error(kubeconfig_file: Path, arguments, message):
    arguments = {"kubeconfig": str(kubeconfig_file), **arguments}
    with pytest.raises(KubeAPIError, match=message):
        KubeAPI(**arguments)


def test_no_kubeconfig_anywhere_is_an_error():
    with pytest.raises(KubeAPIError, match=r"no kubeconfig file \(~/.kube/config\) and no in-cluster service account"):
        KubeAPI()


def test_a_path_and_settings_together_are_refused(kubeconfig_file: Path):
    with pytest.raises(KubeAPIError, match="not both"):
        KubeAPI(kubeconfig_file, kubeconfig=str(kubeconfig_file))


WORKLOAD = {"kind": "Workload", "metadata": {"name": "jobset-mnist-1a2b3"}}


def test_get_and_list_ask_the_context_s_server_and_say_none_for_404():
    answers = {
        "/apis/kueue.x-k8s.io/v1beta2/namespaces/team-a/workloads/jobset-mnist-1a2b3": (200, WORKLOAD),
        "/api/v1/namespaces/team-a/pods": (200, {"items": [{"metadata": {"name": "p-0"}}]}),
        "/apis/trainer.kubeflow.org/v1alpha1/trainjobs": (200, {"items": [{"metadata": {"name": "t"}}]}),
    }
    with serving(answers) as server:
        api = KubeAPI(kubeconfig=yaml.safe_dump(kubeconfig_for(server.url)))
        assert api.get("kueue.x-k8s.io/v1beta2", "Workload", "team-a", "jobset-mnist-1a2b3") == WORKLOAD
        assert api.get("kueue.x-k8s.io/v1beta2", "LocalQueue", "team-a", "missing") is None
        assert api.list("v1", "Pod", "team-a", label_selector="a=b") == [{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p-0"}}]
        assert [item["metadata"]["name"] for item in api.list("trainer.kubeflow.org/v1alpha1", "TrainJob", None)] == ["t"]
    assert [(path, {k.lower(): v for k, v in headers.items()}.get("authorization")) for path, headers in server.requests] == [
        ("/apis/kueue.x-k8s.io/v1beta2/namespaces/team-a/workloads/jobset-mnist-1a2b3", "Bearer recorded-token"),
        ("/apis/kueue.x-k8s.io/v1beta2/namespaces/team-a/localqueues/missing", "Bearer recorded-token"),
        ("/api/v1/namespaces/team-a/pods?labelSelector=a%3Db", "Bearer recorded-token"),
        ("/apis/trainer.kubeflow.org/v1alpha1/trainjobs", "Bearer recorded-token"),
    ]


def test_a_log_is_read_line_by_line_with_the_kubelet_options():
    path = "/api/v1/namespaces/team-a/pods/mnist-node-0-0-x/log"
    with serving({path: (200, "epoch 1 loss 0.9\nepoch 2 loss 0.5\nlast line without newline")}) as server:
        api = KubeAPI(kubeconfig=yaml.safe_dump(kubeconfig_for(server.url)))
        lines = list(api.pod_log("team-a", "mnist-node-0-0-x", "node", previous=True, tail_lines=3))
    assert lines == ["epoch 1 loss 0.9", "epoch 2 loss 0.5", "last line without newline"]
    assert server.requests[0][0].lower() == f"{path}?container=node&follow=false&previous=true&taillines=3".lower()


def test_an_api_error_says_the_server_s_message():
    path = "/api/v1/namespaces/team-a/pods/p/log"
    status = {"kind": "Status", "code": 400, "message": 'container "node" in pod "p" is waiting to start: ContainerCreating'}
    with serving({path: (400, status)}) as server:
        api = KubeAPI(kubeconfig=yaml.safe_dump(kubeconfig_for(server.url)))
        with pytest.raises(KubeAPIError, match='HTTP 400 .*container "node" in pod "p" is waiting to start'):
            list(api.pod_log("team-a", "p", "node"))
