"""no-host-access: privileged containers, hostPath volumes and host networking, from runtime patches or
in the rendered pod specs, each reported once where it comes from."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from pulumi_kubeflow_trainer.policy.host_access import no_host_access
from pulumi_kubeflow_trainer.policy.rules import RULES
from tests.builders import PolicyStackBuilder, container, gpu_runtime, gpu_trainjob, make_runtime, make_trainjob, policy_stack

SETTINGS = next(rule for rule in RULES if rule.name == "no-host-access").settings
POD = "spec.replicatedJobs[node].template.spec.template.spec"
PATCH = "spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs[node].template.spec.template.spec"
PRIVILEGED = {"securityContext": {"privileged": True}}
HOST_VOLUME = {"name": "data", "hostPath": {"path": "/mnt/data"}}


def patched(**pod: Any) -> PolicyStackBuilder:
    """A TrainJob whose runtime patch (manager acme.io/debug) changes the node job's pod spec."""
    job = {"name": "node", "template": {"spec": {"template": {"spec": pod}}}}
    return policy_stack().trainjob(gpu_trainjob("job").runtime_patch("acme.io/debug", jobs=[job]), gpu_runtime())


def from_runtime(**pod: Any) -> PolicyStackBuilder:
    runtime = make_runtime("host").torch().trainer(container(image="ghcr.io/acme/torch:2", **pod.pop("node", {})), **pod)
    return policy_stack().trainjob(make_trainjob("team-a", "job").runtime_ref("host"), runtime)


@dataclass
class Case:
    name: str
    stack: PolicyStackBuilder
    config: dict[str, Any] = field(default_factory=dict)
    expected: list[str] = field(default_factory=list)


CASES = [
    Case("a runtime patch that makes a container privileged is reported with its manager",
         patched(containers=[{"name": "node", **PRIVILEGED}]),
         expected=[f"TrainJob team-a/job: {PATCH}.containers[node].securityContext.privileged: true: a privileged container added by "
                   "the runtime patch of acme.io/debug is not allowed (policy no-host-access)"]),
    Case("a runtime patch that adds a hostPath volume is reported with its manager", patched(volumes=[HOST_VOLUME]),
         expected=[f'TrainJob team-a/job: {PATCH}.volumes[data].hostPath: path "/mnt/data": a hostPath volume added by the runtime '
                   "patch of acme.io/debug is not allowed (policy no-host-access)"]),
    Case("a runtime with host networking is reported in the rendered pod spec", from_runtime(hostNetwork=True),
         expected=[f"TrainJob team-a/job: {POD}.hostNetwork: true: host networking is not allowed (policy no-host-access)"]),
    Case("a runtime with a privileged container is reported in the rendered pod spec", from_runtime(node=PRIVILEGED),
         expected=[f"TrainJob team-a/job: {POD}.containers[node].securityContext.privileged: true: a privileged container is not "
                   "allowed (policy no-host-access)"]),
    Case("a privileged init container counts", from_runtime(initContainers=[container("setup", "ghcr.io/acme/x:1", **PRIVILEGED)]),
         expected=[f"TrainJob team-a/job: {POD}.initContainers[setup].securityContext.privileged: true: a privileged container is "
                   "not allowed (policy no-host-access)"]),
    Case("a plain JobSet's pod spec is judged too", policy_stack().jobset({
        "apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "raw", "namespace": "ops"},
        "spec": {"replicatedJobs": [{"name": "w", "template": {"spec": {"template": {"spec": {
            "containers": [container("w", "ghcr.io/acme/x:1")], "volumes": [HOST_VOLUME]}}}}}]}}),
         expected=['JobSet ops/raw: spec.replicatedJobs[w].template.spec.template.spec.volumes[data].hostPath: path "/mnt/data": '
                   "a hostPath volume is not allowed (policy no-host-access)"]),
    Case("what is allowed in the config is not reported", from_runtime(hostNetwork=True, node=PRIVILEGED),
         {"allowHostNetwork": True, "allowPrivileged": True}),
    Case("one allowance leaves the others judged", patched(volumes=[HOST_VOLUME], containers=[{"name": "node", **PRIVILEGED}]),
         {"allowHostPath": True},
         [f"TrainJob team-a/job: {PATCH}.containers[node].securityContext.privileged: true: a privileged container added by the runtime "
          "patch of acme.io/debug is not allowed (policy no-host-access)"]),
    Case("a privileged: false container passes", from_runtime(node={"securityContext": {"privileged": False}})),
]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_no_host_access(case: Case) -> None:
    found = no_host_access(case.stack.inventory(), SETTINGS(case.config))
    assert [violation.message for violation in found] == case.expected


def test_what_a_patch_adds_is_reported_once_at_the_patch_not_again_in_the_rendered_pod() -> None:
    (workload,) = patched(containers=[{"name": "node", **PRIVILEGED}]).inventory().workloads
    rendered = workload.pods[0].spec["containers"][0]
    assert rendered["securityContext"] == {"privileged": True}, "the rendered pod has it too"
    assert len(no_host_access(patched(containers=[{"name": "node", **PRIVILEGED}]).inventory(), SETTINGS({}))) == 1
