"""allowed-runtimes and deprecated-runtimes: which runtimes the stack's TrainJobs use."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..api import constants as c
from .inventory import Inventory, Violation, Workload

ALLOWED = "allowed-runtimes"
DEPRECATED = "deprecated-runtimes"


def allowed_runtimes(stack: Inventory, config: Mapping[str, Any]) -> list[Violation]:
    """A TrainJob's runtime must be named in `names` or carry every label of `labels`; with neither
    configured, every runtime is allowed."""
    names, labels = list(config["names"]), dict(config["labels"])
    if not names and not labels:
        return []
    allowed = " or ".join(part for part in (
        f"the runtimes named {', '.join(names)}" if names else "",
        f"runtimes labelled {', '.join(f'{key}={value}' for key, value in labels.items())}" if labels else "",
    ) if part)
    found = []
    for workload in stack.workloads:
        problem = _disallowed(stack, workload, names, labels)
        if problem:
            found.append(Violation(f"{workload.subject}: spec.runtimeRef: {problem}; allowed are {allowed} (policy {ALLOWED})", workload.urn))
    return found


def _disallowed(stack: Inventory, workload: Workload, names: list[str], labels: dict[str, str]) -> str | None:
    if workload.kind != c.TRAINJOB_KIND:
        return None  # a plain JobSet names no runtime
    ref = workload.runtime_ref
    if ref is None:
        return f"the pack cannot tell which runtime it uses: {workload.runtime_unknown}"
    if ref.name in names:
        return None
    if not labels:
        return f"{ref} is not an allowed runtime"
    runtime = stack.runtime(ref, workload.namespace)
    if runtime is None:
        return f"{ref} is not allowed by name, and its labels are unknown: it is neither declared in the stack nor bundled with the library"
    if all(runtime.labels.get(key) == value for key, value in labels.items()):
        return None
    return f"{ref} is not an allowed runtime"


def deprecated_runtimes(stack: Inventory, config: Mapping[str, Any]) -> list[Violation]:
    """A TrainJob whose runtime carries upstream's deprecation label (`trainer.kubeflow.org/support:
    deprecated`), as the Trainer webhook warns."""
    found = []
    for workload in stack.workloads:
        runtime = stack.runtime(workload.runtime_ref, workload.namespace) if workload.runtime_ref else None
        if runtime is not None and runtime.labels.get(c.LABEL_SUPPORT) == c.SUPPORT_DEPRECATED:
            found.append(Violation(
                f"{workload.subject}: spec.runtimeRef: {runtime.kind} {runtime.name} is deprecated "
                f"(label {c.LABEL_SUPPORT}={c.SUPPORT_DEPRECATED}) and will be removed; move to a supported runtime, "
                f"see {c.DEPRECATION_POLICY_URL} (policy {DEPRECATED})",
                workload.urn,
            ))
    return found
