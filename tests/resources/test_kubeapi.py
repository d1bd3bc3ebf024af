"""resources/kubeapi.py: which cluster, context and credentials KubeAPI uses, from recorded kubeconfig
files and contents, as the kubernetes provider takes them (`kubeconfig` path or contents, `context`,
`cluster`), falling back to $KUBECONFIG and ~/.kube/config. No network: `get` is checked with a
recorded response."""

from __future__ import annotations

import io
import json
import urllib.error
from pathlib import Path

import pytest
import yaml

from pulumi_kubeflow_trainer.resources import kubeapi
from pulumi_kubeflow_trainer.resources.kubeapi import KubeAPI, KubeAPIError, KubeconfigSettings

# Two clusters and users as kubectl writes them; `dev` is current.
KUBECONFIG = {
    "apiVersion": "v1", "kind": "Config", "current-context": "dev",
    "clusters": [
        {"name": "dev-cluster", "cluster": {"server": "https://127.0.0.1:6443/", "insecure-skip-tls-verify": True}},
        {"name": "gpu-cluster", "cluster": {"server": "https://gpu.example:443", "insecure-skip-tls-verify": True}},
    ],
    "users": [
        {"name": "dev-user", "user": {"token": "dev-token"}},
        {"name": "gpu-user", "user": {"tokenFile": "gpu.token"}},
        {"name": "sso-user", "user": {"exec": {"command": "sso-login"}}},
    ],
    "contexts": [
        {"name": "dev", "context": {"cluster": "dev-cluster", "user": "dev-user"}},
        {"name": "gpu", "context": {"cluster": "gpu-cluster", "user": "gpu-user", "namespace": "team-a"}},
        {"name": "sso", "context": {"cluster": "gpu-cluster", "user": "sso-user"}},
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


def described(api: KubeAPI) -> tuple[str, str, str | None]:
    return api.server, api.namespace, api._headers.get("Authorization")  # noqa: SLF001 - what a request would send


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
    assert described(KubeAPI())[0] == "https://127.0.0.1:6443", "$KUBECONFIG's first path"
    assert described(KubeAPI(kubeconfig_file))[0] == "https://127.0.0.1:6443", "the path argument, as before"


@pytest.mark.parametrize(("arguments", "message"), [
    ({"kubeconfig": "/no/such/kubeconfig"}, "neither a kubeconfig file nor kubeconfig contents"),
    ({"kubeconfig": "clusters: [unclosed"}, "cannot parse the kubeconfig given"),
    ({"context": "prod"}, "no context 'prod'"),
    ({"cluster": "prod-cluster"}, "no cluster 'prod-cluster'"),
    ({"context": "sso"}, "exec and auth-provider credentials are not supported"),
], ids=["a path that names no file", "contents that are not YAML", "an unknown context", "an unknown cluster",
        "exec credentials"])
def test_what_cannot_be_used_is_a_kubeapi_error(kubeconfig_file: Path, arguments, message):
    arguments = {"kubeconfig": str(kubeconfig_file), **arguments}
    with pytest.raises(KubeAPIError, match=message):
        KubeAPI(**arguments)


def test_a_path_and_settings_together_are_refused(kubeconfig_file: Path):
    with pytest.raises(KubeAPIError, match="not both"):
        KubeAPI(kubeconfig_file, kubeconfig=str(kubeconfig_file))


def test_get_asks_the_context_s_server_and_says_none_for_404(kubeconfig_file: Path, monkeypatch: pytest.MonkeyPatch):
    asked: list[tuple[str, str | None]] = []
    workload = {"kind": "Workload", "metadata": {"name": "jobset-mnist-1a2b3"}}

    def urlopen(request, timeout, context):
        asked.append((request.full_url, request.get_header("Authorization")))
        if "missing" in request.full_url:
            raise urllib.error.HTTPError(request.full_url, 404, "Not Found", {}, None)  # type: ignore[arg-type]
        return io.BytesIO(json.dumps(workload).encode())

    monkeypatch.setattr(kubeapi.urllib.request, "urlopen", urlopen)
    api = KubeAPI(kubeconfig=str(kubeconfig_file), context="gpu")
    assert api.get("kueue.x-k8s.io/v1beta2", "Workload", "team-a", "jobset-mnist-1a2b3") == workload
    assert api.get("kueue.x-k8s.io/v1beta2", "LocalQueue", "team-a", "missing") is None
    assert asked == [
        ("https://gpu.example:443/apis/kueue.x-k8s.io/v1beta2/namespaces/team-a/workloads/jobset-mnist-1a2b3", "Bearer gpu-token"),
        ("https://gpu.example:443/apis/kueue.x-k8s.io/v1beta2/namespaces/team-a/localqueues/missing", "Bearer gpu-token"),
    ]
