"""The local control plane itself (tools/cluster): the JobSet webhooks are in the API server's path,
kwok runs Pods to completion or fails them on request, and `status` reports a healthy cluster."""

from __future__ import annotations

import json
import subprocess

import pytest

from .conftest import TOOLS, Cluster

pytestmark = pytest.mark.cluster


def jobset(name: str, pod_metadata: dict | None = None, env: list | None = None) -> dict:
    container = {"name": "main", "image": "busybox:1.37", **({"env": env} if env else {})}
    return {
        "apiVersion": "jobset.x-k8s.io/v1alpha2",
        "kind": "JobSet",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"replicatedJobs": [{"name": "main", "replicas": 1, "template": {"spec": {
            "backoffLimit": 0,
            "template": {"metadata": pod_metadata or {}, "spec": {"restartPolicy": "Never", "containers": [container]}},
        }}}]},
    }


def test_status_reports_a_healthy_cluster(cluster: Cluster):
    result = subprocess.run([str(TOOLS / "cluster"), "status", "--dir", str(cluster.root)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "healthy" in result.stdout and "nodes ready              2/2" in result.stdout


def test_the_jobset_webhooks_are_in_the_api_servers_path(cluster: Cluster):
    cluster.kubectl("create", "-f", "-", stdin=json.dumps(jobset("webhook-probe", env=[{"name": "KWOK_FAIL", "value": "1"}])))
    try:
        live = cluster.get("jobsets.jobset.x-k8s.io", "webhook-probe")
        # Set by the mutating webhook (JobSet's Default()), not by the CRD's schema defaults.
        assert live["spec"]["replicatedJobs"][0]["template"]["spec"]["completionMode"] == "Indexed"
        patch = json.dumps([{"op": "replace", "path": "/spec/replicatedJobs/0/replicas", "value": 2}])
        result = cluster.kubectl("patch", "jobsets.jobset.x-k8s.io", "webhook-probe", "--type=json", "-p", patch, check=False)
        assert result.returncode != 0
        # The validating webhook's ValidateUpdate (the CRD's own CEL rules say "Value is immutable").
        assert "spec.replicatedJobs: Invalid value" in result.stderr and "field is immutable" in result.stderr, result.stderr
    finally:
        cluster.kubectl("delete", "jobsets.jobset.x-k8s.io", "webhook-probe", "--wait=true")


@pytest.mark.parametrize("how", ["label", "annotation", "env", "none"])
def test_kwok_completes_pods_or_fails_them_on_request(how: str, cluster: Cluster):
    name = f"kwok-{how}"
    marker = {"kwok.kubeflow-trainer.test/fail": "true"}
    spec = {
        "label": jobset(name, {"labels": marker}),
        "annotation": jobset(name, {"annotations": marker}),
        "env": jobset(name, env=[{"name": "OTHER", "value": "x"}, {"name": "KWOK_FAIL", "value": "1"}]),
        "none": jobset(name, env=[{"name": "OTHER", "value": "x"}]),
    }[how]
    cluster.kubectl("create", "-f", "-", stdin=json.dumps(spec))
    try:
        expected = "Completed" if how == "none" else "Failed"
        cluster.wait(f"JobSet {name} to be {expected}", lambda: cluster.jobset_condition(name, expected), timeout=90)
        pods = cluster.list("pods", selector=f"jobset.sigs.k8s.io/jobset-name={name}")
        assert [pod["status"]["phase"] for pod in pods] == ["Succeeded" if how == "none" else "Failed"]
    finally:
        cluster.kubectl("delete", "jobsets.jobset.x-k8s.io", name, "--wait=true")
