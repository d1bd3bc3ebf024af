"""The kwok nodes kwok-node-0..N-1 and the default StorageClass, as `up --nodes N` applies them."""

from __future__ import annotations

import json
from typing import Any

from .kubectl import Kubectl

NODE_LABEL = ("kwok.x-k8s.io/node", "fake")
NODE_SELECTOR = f"{NODE_LABEL[0]}={NODE_LABEL[1]}"  # the nodes kwok manages
NODE_CAPACITY = {"cpu": "32", "memory": "256Gi", "pods": "110", "nvidia.com/gpu": "8", "ephemeral-storage": "1Ti"}


def node(name: str) -> dict[str, Any]:
    labels = {
        NODE_LABEL[0]: NODE_LABEL[1],
        "type": "kwok",
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "node.kubernetes.io/instance-type": "kwok-gpu",
    }
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels,
                     "annotations": {NODE_LABEL[0]: NODE_LABEL[1], "node.alpha.kubernetes.io/ttl": "0"}},
        "spec": {},
        "status": {"allocatable": dict(NODE_CAPACITY), "capacity": dict(NODE_CAPACITY)},
    }


def storage_class() -> dict[str, Any]:
    """PVCs get hostPath PVs from kube-controller-manager's --enable-hostpath-provisioner."""
    return {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": "kwok-hostpath", "annotations": {"storageclass.kubernetes.io/is-default-class": "true"}},
        "provisioner": "kubernetes.io/host-path",
        "reclaimPolicy": "Delete",
        "volumeBindingMode": "Immediate",
    }


def nodes_manifest(count: int) -> dict[str, Any]:
    """A List of the `count` nodes, then the StorageClass."""
    return {"apiVersion": "v1", "kind": "List",
            "items": [*(node(f"kwok-node-{index}") for index in range(count)), storage_class()]}


def create_nodes(kubectl: Kubectl, count: int, timeout: float) -> None:
    manifest = nodes_manifest(count)
    kubectl.apply("-f", "-", stdin=json.dumps(manifest))
    # The status given at create time is kept; on a restart, re-assert it.
    for item in manifest["items"][:count]:
        kubectl("patch", "node", item["metadata"]["name"], "--subresource=status", "--type=merge",
                "-p", json.dumps({"status": item["status"]}))
    kubectl("wait", "--for=condition=Ready", "node", "-l", NODE_SELECTOR, f"--timeout={timeout}s")
