"""no-host-access: no privileged container, hostPath volume or host networking, whether a runtime patch
adds it or the rendered pod spec has it (from the runtime, or from a JobSet written by hand).

A finding is reported once, where it comes from: a runtime patch's field when a patch adds it, else the
rendered pod spec's.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from .inventory import Inventory, Violation, Workload, unjudged
from .pods import POD_SPEC, containers, items, mapping, text

NO_HOST_ACCESS = "no-host-access"
PATCH_JOBS = "trainingRuntimeSpec.template.spec.replicatedJobs"


@dataclass(frozen=True)
class Finding:
    key: tuple[str, str, str]  # (replicated job, what, container or volume name): one finding per key
    path: str
    what: str  # privileged / hostPath / hostNetwork
    text: str


def pod_findings(job: str, pod_spec: Mapping[str, Any], path: str) -> Iterator[Finding]:
    if pod_spec.get("hostNetwork") is True:
        yield Finding((job, "hostNetwork", ""), f"{path}.hostNetwork", "hostNetwork", "true: host networking")
    for volume in items(pod_spec.get("volumes")):
        host_path = mapping(volume.get("hostPath"))
        if host_path:
            name = text(volume.get("name"), "?")
            yield Finding((job, "hostPath", name), f"{path}.volumes[{name}].hostPath", "hostPath",
                          f'path "{host_path.get("path")}": a hostPath volume')
    for item in containers(pod_spec, path):
        if mapping(item.container.get("securityContext")).get("privileged") is True:
            yield Finding((job, "privileged", item.name), f"{item.path}.securityContext.privileged", "privileged",
                          "true: a privileged container")


def patch_findings(workload: Workload) -> Iterator[tuple[Finding, str]]:
    """Findings in the TrainJob's runtime patches, with the manager that owns the patch."""
    for index, patch in enumerate(workload.runtime_patches):
        spec = mapping(mapping(patch.get("trainingRuntimeSpec")).get("template")).get("spec")
        for job in items(mapping(spec).get("replicatedJobs")):
            name = text(job.get("name"), "?")
            pod_spec = mapping(mapping(mapping(mapping(job.get("template")).get("spec")).get("template")).get("spec"))
            path = f"spec.runtimePatches[{index}].{PATCH_JOBS}[{name}].{POD_SPEC}"
            for finding in pod_findings(name, pod_spec, path):
                yield finding, str(patch.get("manager"))


def no_host_access(stack: Inventory, config: Mapping[str, Any]) -> list[Violation]:
    allowed = {what for what, key in (("privileged", "allowPrivileged"), ("hostPath", "allowHostPath"),
                                      ("hostNetwork", "allowHostNetwork")) if config[key]}
    found = []
    for workload in stack.workloads:
        reported: set[tuple[str, str, str]] = set()
        for finding, manager in patch_findings(workload):
            if finding.what not in allowed and finding.key not in reported:
                reported.add(finding.key)
                found.append(_violation(workload, finding, f" added by the runtime patch of {manager}"))
        for template in workload.pods:
            for finding in pod_findings(template.job, template.spec, template.path):
                if finding.what not in allowed and finding.key not in reported:
                    reported.add(finding.key)
                    found.append(_violation(workload, finding, ""))
    return found + unjudged(stack, NO_HOST_ACCESS)


def _violation(workload: Workload, finding: Finding, source: str) -> Violation:
    return Violation(f"{workload.subject}: {finding.path}: {finding.text}{source} is not allowed (policy {NO_HOST_ACCESS})", workload.urn)
