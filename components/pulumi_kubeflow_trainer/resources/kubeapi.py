"""A minimal read-only Kubernetes API client: controller mode's live check (controller_check.py),
the wait for Kueue's Workload (kueue.py) and the `admission` output (admission.py).

These run where no kubernetes provider can be asked (a resource hook, an Output's apply in the
program, the engine's dynamic-provider process): they read objects themselves. Which cluster:
`KubeAPI(kubeconfig=..., context=..., cluster=...)` takes what a kubernetes provider is configured
with (`kubeconfig` is a path or the contents, as the provider takes it; `context` and `cluster`
override the kubeconfig's current context and its cluster); without them, $KUBECONFIG (its first
path), else ~/.kube/config, and its current context. `cluster_access.provider_settings` finds a
resource's provider settings in a program. Standard library only. Auth: bearer token (`token`,
`tokenFile`) and client certificates (files or `-data`); exec and auth-provider plugins are not run
(KubeAPIError: callers then say so and go on).
"""

from __future__ import annotations

import base64
import json
import os
import ssl
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

_PLURALS = {"JobSet": "jobsets", "PodGroup": "podgroups", "ConfigMap": "configmaps", "Secret": "secrets",
            "TrainJob": "trainjobs", "Workload": "workloads", "LocalQueue": "localqueues"}


class KubeAPIError(Exception):
    """The API server could not be asked (no kubeconfig, unsupported auth, connection refused, ...)."""


@dataclass(frozen=True)
class KubeconfigSettings:
    """What a kubernetes provider is configured with; None: not set (the ambient kubeconfig)."""

    kubeconfig: str | None = None  # a path or the contents (YAML or JSON), as the provider's `kubeconfig`
    context: str | None = None
    cluster: str | None = None

    def api(self) -> KubeAPI:
        return KubeAPI(kubeconfig=self.kubeconfig, context=self.context, cluster=self.cluster)


def kubeconfig_path() -> Path:
    first = (os.environ.get("KUBECONFIG") or "").split(os.pathsep)[0]
    return Path(first) if first else Path.home() / ".kube" / "config"


class KubeAPI:
    """GET of single objects through a context of a kubeconfig (the module docstring says which)."""

    def __init__(self, path: Path | None = None, *, kubeconfig: str | None = None, context: str | None = None,
                 cluster: str | None = None) -> None:
        if path is not None and kubeconfig:
            raise KubeAPIError("KubeAPI: give a kubeconfig path or kubeconfig settings, not both")
        config, base = _load(kubeconfig) if kubeconfig else _read(path or kubeconfig_path())
        context_entry = _named(config, "contexts", context or config.get("current-context"))
        cluster_entry = _named(config, "clusters", cluster or context_entry.get("cluster"))
        user = _named(config, "users", context_entry.get("user"))
        if not cluster_entry.get("server"):
            raise KubeAPIError(f"kubeconfig: cluster {cluster or context_entry.get('cluster')!r} has no server")
        self.server = cluster_entry["server"].rstrip("/")
        self.namespace = context_entry.get("namespace") or "default"
        self._headers = {"Accept": "application/json", **_auth_header(user, base)}
        self._ssl = _ssl_context(cluster_entry, user, base)

    def get(self, api_version: str, kind: str, namespace: str, name: str) -> dict[str, Any] | None:
        """The object, or None when the API server says 404."""
        base = f"/api/{api_version}" if "/" not in api_version else f"/apis/{api_version}"
        plural = _PLURALS.get(kind) or kind.lower() + "s"
        url = f"{self.server}{base}/namespaces/{urllib.parse.quote(namespace)}/{plural}/{urllib.parse.quote(name)}"
        request = urllib.request.Request(url, headers=self._headers)
        try:
            with urllib.request.urlopen(request, timeout=10, context=self._ssl) as response:
                found: dict[str, Any] = json.loads(response.read())
                return found
        except urllib.error.HTTPError as error:
            if error.code == 404:
                return None
            raise KubeAPIError(f"GET {url}: HTTP {error.code}") from None
        except (urllib.error.URLError, OSError) as error:
            raise KubeAPIError(f"GET {url}: {error}") from None


def _read(path: Path) -> tuple[dict[str, Any], Path]:
    """A kubeconfig file and the directory its relative paths are relative to."""
    try:
        text = path.read_text()
    except OSError as error:
        raise KubeAPIError(f"cannot read kubeconfig {path}: {error}") from None
    return _parsed(text, str(path)), path.parent


def _load(path_or_contents: str) -> tuple[dict[str, Any], Path]:
    """As pulumi-kubernetes reads its `kubeconfig` (parseKubeconfigString): `~` expanded, a path to an
    existing file is read, anything else is the contents (relative paths then relative to the cwd)."""
    candidate = Path(path_or_contents).expanduser() if "\n" not in path_or_contents else None
    if candidate is not None and candidate.is_file():
        return _read(candidate)
    return _parsed(path_or_contents, "the kubeconfig given"), Path.cwd()


def _parsed(text: str, where: str) -> dict[str, Any]:
    try:
        config = yaml.safe_load(text) or {}
    except yaml.YAMLError as error:
        raise KubeAPIError(f"cannot parse {where}: {error}") from None
    if not isinstance(config, dict):
        raise KubeAPIError(f"{where} is neither a kubeconfig file nor kubeconfig contents")
    return config


def _named(config: dict[str, Any], section: str, name: str | None) -> dict[str, Any]:
    for entry in config.get(section) or []:
        if entry.get("name") == name:
            return entry.get(section[:-1]) or {}
    raise KubeAPIError(f"kubeconfig: no {section[:-1]} {name!r}")


def _auth_header(user: dict[str, Any], base: Path) -> dict[str, str]:
    if user.get("exec") or user.get("auth-provider"):
        raise KubeAPIError("kubeconfig: exec and auth-provider credentials are not supported by the live check")
    token = user.get("token")
    if not token and user.get("tokenFile"):
        token = (base / user["tokenFile"]).read_text().strip()
    return {"Authorization": f"Bearer {token}"} if token else {}


def _material(entry: dict[str, Any], key: str, base: Path, directory: str) -> str | None:
    """A file path for `key` (a path) or `key-data` (base64, written to a private temp file)."""
    if entry.get(f"{key}-data"):
        target = Path(directory) / key
        target.write_bytes(base64.b64decode(entry[f"{key}-data"]))
        return str(target)
    return str(base / entry[key]) if entry.get(key) else None


def _ssl_context(cluster: dict[str, Any], user: dict[str, Any], base: Path) -> ssl.SSLContext:
    with tempfile.TemporaryDirectory(prefix="kft-kubeapi-") as directory:
        ca = _material(cluster, "certificate-authority", base, directory)
        context = ssl.create_default_context(cafile=ca)
        if cluster.get("insecure-skip-tls-verify"):
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        cert = _material(user, "client-certificate", base, directory)
        key = _material(user, "client-key", base, directory)
        if cert:
            context.load_cert_chain(cert, key)
        return context
