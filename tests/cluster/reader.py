"""Reads of the local cluster through the official Kubernetes Python client, for the tests' assertions
and waits: one HTTP request per read instead of a `kubectl` process (~0.1-0.2 s of CPU each, polled
every half second while a test waits).

Resources are named as kubectl names them (`pods`, `jobs`, `node`, `configmap`,
`jobsets.jobset.x-k8s.io`, `workloads.v1beta2.kueue.x-k8s.io`, `jobset.v1alpha2.jobset.x-k8s.io`) and
resolved the way kubectl resolves them, by the API server's discovery: a plain name is looked up in the
core group first, then in every group's preferred version; `<name>.<group>` takes the group's preferred
version, `<name>.<version>.<group>` that version. Objects come back as the API server sends them
(managedFields included), list items with their apiVersion and kind as `kubectl get -o json` gives them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TIMEOUT_SECONDS = 30


@dataclass(frozen=True)
class Resource:
    """One served resource: where it lives and what it is."""

    group_version: str  # "v1", "batch/v1", "jobset.x-k8s.io/v1alpha2"
    plural: str
    kind: str
    namespaced: bool

    def path(self, namespace: str | None, name: str | None = None) -> str:
        root = "/api/v1" if self.group_version == "v1" else f"/apis/{self.group_version}"
        scope = f"/namespaces/{namespace}" if self.namespaced and namespace else ""
        return f"{root}{scope}/{self.plural}" + (f"/{name}" if name else "")


class ClusterReader:
    """GET requests to one API server with the credentials of its kubeconfig."""

    def __init__(self, kubeconfig: Path) -> None:
        from kubernetes import config

        self._client = config.new_client_from_config(config_file=str(kubeconfig))
        self._served: dict[str, list[tuple[str, dict[str, Any]]]] | None = None  # group -> [(version, APIResource)]
        self._preferred: dict[str, str] = {}

    def close(self) -> None:
        self._client.close()

    def get(self, resource: str, name: str, namespace: str | None) -> dict[str, Any] | None:
        """The object, or None when the API server says 404."""
        status, found = self._request(self.resolve(resource).path(namespace, name))
        if status == 404:
            return None
        return found

    def list(self, resource: str, namespace: str | None, selector: str | None = None) -> list[dict[str, Any]]:
        """The objects of `namespace` (None: of all namespaces; ignored for a cluster-scoped resource)."""
        served = self.resolve(resource)
        status, found = self._request(served.path(namespace), {"labelSelector": selector} if selector else {})
        if status == 404:
            raise AssertionError(f"the API server does not serve {resource} ({served.path(namespace)})")
        return [{"apiVersion": served.group_version, "kind": served.kind, **item} for item in found.get("items") or []]

    def resolve(self, resource: str) -> Resource:
        """kubectl's resolution of a resource name (module docstring); a name not yet known is looked up
        again once, as CRDs are installed while the cluster runs."""
        for refresh in (False, True):
            if refresh or self._served is None:
                self._discover()
            found = self._match(resource)
            if found is not None:
                return found
        raise AssertionError(f"the API server serves no resource named {resource!r}")

    def _match(self, resource: str) -> Resource | None:
        name, _, qualifier = resource.partition(".")
        version, _, group = qualifier.partition(".")
        if qualifier and group in (self._served or {}) and any(v == version for v, _ in self._served[group]):
            return self._find(name, [group], version)
        if qualifier:
            return self._find(name, [qualifier], None)
        groups = ["", *sorted(group for group in self._served or {} if group)]
        return self._find(name, groups, None)

    def _find(self, name: str, groups: list[str], version: str | None) -> Resource | None:
        for group in groups:
            wanted = version or self._preferred.get(group)
            for served_version, api_resource in (self._served or {}).get(group, []):
                names = {api_resource["name"], api_resource.get("singularName"), api_resource["kind"].lower(),
                         *(api_resource.get("shortNames") or [])}
                if served_version == wanted and name in names:
                    group_version = f"{group}/{served_version}" if group else served_version
                    return Resource(group_version, api_resource["name"], api_resource["kind"], api_resource["namespaced"])
        return None

    def _discover(self) -> None:
        served: dict[str, list[tuple[str, dict[str, Any]]]] = {"": self._resources("/api/v1", "v1")}
        self._preferred = {"": "v1"}
        for group in self._request("/apis")[1].get("groups") or []:
            self._preferred[group["name"]] = group["preferredVersion"]["version"]
            for version in group["versions"]:
                served.setdefault(group["name"], []).extend(self._resources(f"/apis/{version['groupVersion']}", version["version"]))
        self._served = served

    def _resources(self, path: str, version: str) -> list[tuple[str, dict[str, Any]]]:
        listed = self._request(path)[1].get("resources") or []
        return [(version, api_resource) for api_resource in listed if "/" not in api_resource["name"]]  # no subresources

    def _request(self, path: str, query: dict[str, str] | None = None) -> tuple[int, dict[str, Any]]:
        from kubernetes.client.exceptions import ApiException

        try:
            response = self._client.call_api(
                path, "GET", query_params=list((query or {}).items()), header_params={"Accept": "application/json"},
                auth_settings=["BearerToken"], _preload_content=False, _return_http_data_only=True,
                _request_timeout=TIMEOUT_SECONDS)
        except ApiException as error:
            if error.status == 404:
                return 404, {}
            raise AssertionError(f"GET {path}: HTTP {error.status} {error.reason}: {error.body!r}") from None
        return response.status, json.loads(response.data)
