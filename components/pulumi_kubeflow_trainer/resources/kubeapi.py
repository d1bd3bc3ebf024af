"""A minimal read-only Kubernetes API client for controller mode's live check (controller_check.py).

The check runs in the engine's dynamic-provider process, which has no kubernetes provider to ask:
it reads objects itself, with $KUBECONFIG (else ~/.kube/config) and its current context. Standard
library only. Auth: bearer token (`token`, `tokenFile`) and client certificates (files or `-data`);
exec and auth-provider plugins are not run (the check then says so and reports no drift).
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
from pathlib import Path
from typing import Any

import yaml

_PLURALS = {"JobSet": "jobsets", "PodGroup": "podgroups", "ConfigMap": "configmaps", "Secret": "secrets",
            "TrainJob": "trainjobs"}


class KubeAPIError(Exception):
    """The API server could not be asked (no kubeconfig, unsupported auth, connection refused, ...)."""


def kubeconfig_path() -> Path:
    first = (os.environ.get("KUBECONFIG") or "").split(os.pathsep)[0]
    return Path(first) if first else Path.home() / ".kube" / "config"


class KubeAPI:
    """GET of single objects through the current context of a kubeconfig."""

    def __init__(self, path: Path | None = None) -> None:
        path = path or kubeconfig_path()
        try:
            config = yaml.safe_load(path.read_text()) or {}
        except OSError as error:
            raise KubeAPIError(f"cannot read kubeconfig {path}: {error}") from None
        context = _named(config, "contexts", config.get("current-context"))
        cluster = _named(config, "clusters", context.get("cluster"))
        user = _named(config, "users", context.get("user"))
        self.server = cluster["server"].rstrip("/")
        self.namespace = context.get("namespace") or "default"
        self._headers = {"Accept": "application/json", **_auth_header(user, path.parent)}
        self._ssl = _ssl_context(cluster, user, path.parent)

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
