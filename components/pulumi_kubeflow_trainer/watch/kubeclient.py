"""Reading a cluster through the official Kubernetes Python client (`kubernetes`, a dependency).

Every cluster read of the library goes through `KubeAPI`: the `admission` output, the Workload wait
and the queued-timeout message (resources/), controller mode's drift check, and the `trainjob
list|get|logs|wait` commands and `TrainerClient` (this package). The client does the parts that
differ between clusters: exec credential plugins (EKS, GKE, AKS, OIDC helpers; token or client
certificate, refreshed when it expires), auth-provider tokens, tokens and token files, client
certificates, `proxy-url`, `tls-server-name`, and the in-cluster service account.

Which cluster: `KubeAPI(kubeconfig=..., context=..., cluster=...)` takes what a kubernetes provider is
configured with (`kubeconfig` is a path or the contents, as pulumi-kubernetes takes it; `context` and
`cluster` override the kubeconfig's current context and that context's cluster). Without a
`kubeconfig`: the files of $KUBECONFIG, merged as kubectl merges them, else ~/.kube/config, else the
in-cluster service account. Failures are KubeAPIError, a TrainerError: the CLI prints one line.

The `kubernetes` package is imported when a cluster is first read (about half a second), never by
`render` or `validate`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .kubeconfig import KubeAPIError, configure, token_key

__all__ = ["KubeAPI", "KubeAPIError", "KubeconfigSettings"]

TIMEOUT_SECONDS = 10  # connect and read, per request (a followed log: connect only)
_CORE_KINDS = {"Pod": "pod", "Event": "event", "ConfigMap": "config_map", "Secret": "secret", "Node": "node"}
_PLURALS = {"JobSet": "jobsets", "PodGroup": "podgroups", "TrainJob": "trainjobs", "Workload": "workloads",
            "LocalQueue": "localqueues", "ClusterQueue": "clusterqueues", "TrainingRuntime": "trainingruntimes",
            "ClusterTrainingRuntime": "clustertrainingruntimes"}


@dataclass(frozen=True)
class KubeconfigSettings:
    """What a kubernetes provider is configured with; None: not set (the ambient kubeconfig)."""

    kubeconfig: str | None = None  # a path or the contents (YAML or JSON), as the provider's `kubeconfig`
    context: str | None = None
    cluster: str | None = None

    def api(self) -> KubeAPI:
        return KubeAPI(kubeconfig=self.kubeconfig, context=self.context, cluster=self.cluster)


class KubeAPI:
    """Reads of one cluster (the module docstring says which); objects come back as plain dicts."""

    def __init__(self, path: Path | None = None, *, kubeconfig: str | None = None, context: str | None = None,
                 cluster: str | None = None) -> None:
        if path is not None and kubeconfig:
            raise KubeAPIError("KubeAPI: give a kubeconfig path or kubeconfig settings, not both")
        source = str(path) if path is not None else kubeconfig
        self.configuration, self.namespace, self.context = configure(source, context, cluster)
        self.server: str = self.configuration.host.rstrip("/")
        from kubernetes.client import ApiClient

        self._client = ApiClient(self.configuration)

    def authorization(self) -> str | None:
        """The Authorization header the next request sends (a refreshed exec token, say); None: a
        client certificate or nothing."""
        return self.configuration.get_api_key_with_prefix(token_key(self.configuration)) or None

    def get(self, api_version: str, kind: str, namespace: str | None, name: str) -> dict[str, Any] | None:
        """The object (namespace None: a cluster-scoped one), or None when the API server says 404."""
        group, version = _split(api_version)
        found: dict[str, Any]
        try:
            if not group:
                scope = "namespaced_" if namespace else ""
                found = self._json(getattr(self._core(), f"read_{scope}{_core_kind(kind)}"), name, *([namespace] if namespace else []))
            elif namespace:
                found = self._json(self._custom().get_namespaced_custom_object, group, version, namespace, _plural(kind), name)
            else:
                found = self._json(self._custom().get_cluster_custom_object, group, version, _plural(kind), name)
        except _NotFound:
            return None
        return found

    def list(self, api_version: str, kind: str, namespace: str | None, label_selector: str | None = None,
             field_selector: str | None = None) -> list[dict[str, Any]]:
        """The objects of one namespace, or of all (None) or a cluster-scoped kind; each with its kind."""
        group, version = _split(api_version)
        options = {key: value for key, value in (("label_selector", label_selector), ("field_selector", field_selector)) if value}
        try:
            if not group:
                method = f"list_namespaced_{_core_kind(kind)}" if namespace else f"list_{_core_kind(kind)}_for_all_namespaces"
                found = self._json(getattr(self._core(), method), *([namespace] if namespace else []), **options)
            elif namespace:
                found = self._json(self._custom().list_namespaced_custom_object, group, version, namespace, _plural(kind), **options)
            else:
                found = self._json(self._custom().list_cluster_custom_object, group, version, _plural(kind), **options)
        except _NotFound:
            return []  # the kind is not served (a CRD not installed): none of them
        return [{"apiVersion": api_version, "kind": kind, **item} for item in (found or {}).get("items") or []]

    def pod_log(self, namespace: str, pod: str, container: str | None = None, *, follow: bool = False,
                previous: bool = False, tail_lines: int | None = None) -> Iterator[str]:
        """The lines of a container's log, as the kubelet (here: kwok) serves them; `follow` streams."""
        options: dict[str, Any] = {"container": container, "follow": follow, "previous": previous}
        if tail_lines is not None:
            options["tail_lines"] = tail_lines
        timeout = (TIMEOUT_SECONDS, None) if follow else TIMEOUT_SECONDS
        try:
            response = self._call(self._core().read_namespaced_pod_log, pod, namespace, _request_timeout=timeout, **options)
        except _NotFound:
            raise KubeAPIError(f"no Pod {namespace}/{pod}") from None
        try:
            yield from _lines(response.stream(4096))
        finally:
            response.release_conn()

    def _core(self) -> Any:
        from kubernetes.client import CoreV1Api

        return CoreV1Api(self._client)

    def _custom(self) -> Any:
        from kubernetes.client import CustomObjectsApi

        return CustomObjectsApi(self._client)

    def _json(self, method: Any, *args: Any, **kwargs: Any) -> Any:
        response = self._call(method, *args, _request_timeout=TIMEOUT_SECONDS, **kwargs)
        return json.loads(response.data)

    def _call(self, method: Any, *args: Any, **kwargs: Any) -> Any:
        """The raw response (so objects stay dicts, as the API server sent them); errors as KubeAPIError."""
        from kubernetes.client.exceptions import ApiException
        from urllib3.exceptions import HTTPError

        try:
            return method(*args, _preload_content=False, **kwargs)
        except ApiException as error:
            if error.status == 404:
                raise _NotFound from None
            raise KubeAPIError(f"{self.server}: HTTP {error.status} {error.reason}: {_status_message(error.body)}") from None
        except (HTTPError, OSError) as error:
            raise KubeAPIError(f"{self.server}: {error}") from None


class _NotFound(Exception):
    pass


def _split(api_version: str) -> tuple[str, str]:
    group, _, version = api_version.rpartition("/")
    return group, version


def _core_kind(kind: str) -> str:
    if kind not in _CORE_KINDS:
        raise KubeAPIError(f"reading {kind} objects is not supported")
    return _CORE_KINDS[kind]


def _plural(kind: str) -> str:
    return _PLURALS.get(kind) or kind.lower() + "s"


def _status_message(body: Any) -> str:
    """The message of the API server's Status, else the body's text."""
    text = body.decode(errors="replace") if isinstance(body, bytes) else str(body or "")
    try:
        status = json.loads(text)
    except ValueError:
        return text.strip()[:500]
    return str(status.get("message") or text) if isinstance(status, dict) else str(text)


def _lines(chunks: Iterator[bytes]) -> Iterator[str]:
    pending = b""
    for chunk in chunks:
        pending += chunk
        *complete, pending = pending.split(b"\n")
        for line in complete:
            yield line.decode(errors="replace")
    if pending:
        yield pending.decode(errors="replace")
