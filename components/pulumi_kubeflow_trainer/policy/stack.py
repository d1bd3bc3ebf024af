"""The stack's resources, as the engine shows them to the pack, read into an Inventory.

- A JobSet whose parent is a TrainJob component is that TrainJob, rendered here (default mode); which
  runtime it uses and its runtime patches come from the component's input `record`.
- A TrainJob object (controller mode) is judged by the JobSet the controller will make of it: the
  component's prediction (the `expected` property of its `ControllerPrediction` child) when a TrainJob
  component registered it, else the object rendered here against the runtimes the pack knows.
- Any other JobSet is a workload of its own.

Runtimes are looked up by kind, namespace and name: first those the stack declares (runtime
components' output `manifest`, runtime objects), then the runtimes bundled with the library.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

from ..api import constants as c
from ..blueprints import bundled_runtimes
from ..framework.errors import TrainerError
from ..rendering import render
from ..ssh import SSHKeyPair
from .inventory import UNKNOWN_NAMESPACE, Inventory, KnownRuntime, RuntimeRef, StackResource, Workload, is_unknown
from .pods import items, mapping, pod_templates, text

TRAINJOB_COMPONENT = "kubeflow:trainer:TrainJob"
RUNTIME_COMPONENTS = {f"kubeflow:trainer:{kind}" for kind in (c.CLUSTER_TRAINING_RUNTIME_KIND, c.TRAINING_RUNTIME_KIND)}
JOBSET = f"kubernetes:{c.JOBSET_API_VERSION}:JobSet"
TRAINJOB_OBJECTS = {f"kubernetes:{version}:{c.TRAINJOB_KIND}" for version in c.API_VERSIONS}
RUNTIME_OBJECTS = {f"kubernetes:{version}:{kind}" for version in c.API_VERSIONS
                   for kind in (c.CLUSTER_TRAINING_RUNTIME_KIND, c.TRAINING_RUNTIME_KIND)}
PREDICTION = "pulumi-python:dynamic/kubeflow:ControllerPrediction"  # controller mode: the component's prediction
INPUTS_POLICY = "kubeflow-trainer-inputs"  # pack.py's resource policy that keeps the TrainJob components' inputs
_NO_KEY = SSHKeyPair("not generated: rendered by the policy pack", "not generated\n")


def inventory(resources: Sequence[StackResource]) -> Inventory:
    by_urn = {resource.urn: resource for resource in resources}
    predictions = {resource.parent: items(resource.props.get("expected")) for resource in resources
                   if resource.type == PREDICTION and resource.parent}
    known = Inventory([], runtimes(resources))
    for resource in resources:
        parent = by_urn.get(resource.parent) if resource.parent else None
        trainjob_parent = parent if parent is not None and parent.type == TRAINJOB_COMPONENT else None
        if resource.type == JOBSET:
            known.workloads.append(_jobset(resource, trainjob_parent))
        elif resource.type in TRAINJOB_OBJECTS:
            prediction = predictions.get(trainjob_parent.urn, []) if trainjob_parent is not None else []
            known.workloads.append(_trainjob_object(resource, trainjob_parent, prediction, known))
    known.workloads.sort(key=lambda workload: (workload.namespace, workload.kind, workload.name))  # not the engine's order
    return known


def runtimes(resources: Sequence[StackResource]) -> dict[tuple[str, str, str], KnownRuntime]:
    found: dict[tuple[str, str, str], KnownRuntime] = {}
    declared = [(r.props.get("manifest"), f"runtime component {r.urn.split('::')[-1]}") for r in resources if r.type in RUNTIME_COMPONENTS]
    declared += [(r.props, f"runtime object {r.urn.split('::')[-1]}") for r in resources if r.type in RUNTIME_OBJECTS]
    declared += [(runtime.to_manifest(), "bundled with pulumi-kubeflow-trainer") for runtime in bundled_runtimes()]
    for manifest, source in declared:
        runtime = _known_runtime(manifest, source)
        if runtime is not None:
            found.setdefault((runtime.kind, runtime.namespace, runtime.name), runtime)
    return found


def _known_runtime(manifest: object, source: str) -> KnownRuntime | None:
    manifest = mapping(manifest)
    metadata = mapping(manifest.get("metadata"))
    kind, name = manifest.get("kind"), metadata.get("name")
    if kind not in (c.CLUSTER_TRAINING_RUNTIME_KIND, c.TRAINING_RUNTIME_KIND) or not isinstance(name, str):
        return None
    namespace = metadata.get("namespace") if kind == c.TRAINING_RUNTIME_KIND else ""
    labels = {key: value for key, value in mapping(metadata.get("labels")).items() if isinstance(value, str)}
    return KnownRuntime(str(kind), namespace if isinstance(namespace, str) else "default", name, labels, manifest, source)


def _namespace(metadata: Mapping[str, Any]) -> str:
    namespace = metadata.get("namespace")
    if is_unknown(namespace):
        return UNKNOWN_NAMESPACE
    return namespace if isinstance(namespace, str) and namespace else "default"


def _jobset(resource: StackResource, trainjob: StackResource | None) -> Workload:
    metadata = mapping(resource.props.get("metadata"))
    name = text(metadata.get("name"), resource.urn.split("::")[-1])
    labels = mapping(metadata.get("labels"))
    if trainjob is None:
        return Workload("JobSet", _namespace(metadata), name, resource.urn, labels, "JobSet", pods=pod_templates(resource.props))
    record = mapping(mapping(trainjob.inputs).get("record"))
    ref = RuntimeRef.of(record.get("runtimeRef"))
    return Workload(c.TRAINJOB_KIND, _namespace(metadata), name, trainjob.urn, labels, "JobSet", ref,
                    items(record.get("runtimePatches")), pod_templates(resource.props), runtime_unknown=_why_no_ref(ref, record))


def _why_no_ref(ref: RuntimeRef | None, record: Mapping[str, Any]) -> str | None:
    if ref is not None:
        return None
    if record:
        return "its TrainJob component's input record has no runtimeRef (written by an older pulumi-kubeflow-trainer)"
    return f"the pack did not see its TrainJob component's inputs (is the policy {INPUTS_POLICY} disabled?)"


def _trainjob_object(resource: StackResource, component: StackResource | None, prediction: list[Any],
                     known: Inventory) -> Workload:
    metadata, spec = mapping(resource.props.get("metadata")), mapping(resource.props.get("spec"))
    name = text(metadata.get("name"), resource.urn.split("::")[-1])
    namespace, ref = _namespace(metadata), RuntimeRef.of(spec.get("runtimeRef"))
    urn = component.urn if component is not None else resource.urn
    expected = [m for m in prediction if isinstance(m, Mapping) and m.get("kind") == "JobSet"]
    jobset, problem = (expected[0], None) if expected else _render(resource.props, ref, namespace, known)
    return Workload(c.TRAINJOB_KIND, namespace, name, urn, mapping(metadata.get("labels")), c.TRAINJOB_KIND, ref,
                    items(spec.get("runtimePatches")), pod_templates(jobset) if jobset else [], problem,
                    None if ref is not None else "its spec.runtimeRef is not known")


def _render(trainjob: Mapping[str, Any], ref: RuntimeRef | None, namespace: str, known: Inventory) -> tuple[Mapping[str, Any] | None, str | None]:
    """The JobSet the controller would make of a TrainJob object, or why it cannot be told (None when
    a value is not known yet: judged at `pulumi up`)."""
    if _has_unknown(trainjob):
        return None, None
    runtime = known.runtime(ref, namespace) if ref is not None else None
    if runtime is None:
        return None, f"its runtime {ref or '(none)'} is neither declared in the stack nor bundled with the library"
    objects = [{key: value for key, value in trainjob.items() if key != "status"}, runtime.manifest]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            children = render(objects, key_generator=lambda _key: _NO_KEY, curve_key_generator=lambda _key: bytes(32))
    except TrainerError as error:
        return None, f"it does not render: {str(error).splitlines()[0]}"
    jobsets = [child for child in children if child.get("kind") == "JobSet"]
    return (jobsets[0], None) if jobsets else (None, "it renders no JobSet")


def _has_unknown(value: object) -> bool:
    if is_unknown(value):
        return True
    if isinstance(value, Mapping):
        return any(_has_unknown(item) for item in value.values())
    if isinstance(value, list):
        return any(_has_unknown(item) for item in value)
    return False
