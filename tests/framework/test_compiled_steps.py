"""Plugins' compiled steps (`compile(compiled)`) render exactly what their general methods render.

Every bundled runtime, and a few made for the purpose, against TrainJobs that differ in each field
that can change the output: both ways must give the same children (keys and their order too), the
same warnings and the same errors."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest

from pulumi_kubeflow_trainer.blueprints import bundled_runtimes
from pulumi_kubeflow_trainer.framework.compiled import CompiledRuntime
from pulumi_kubeflow_trainer.framework.context import RenderContext
from pulumi_kubeflow_trainer.framework.errors import TrainJobInvalidError
from pulumi_kubeflow_trainer.framework.framework import Framework
from pulumi_kubeflow_trainer.loading import load
from pulumi_kubeflow_trainer.plugins import default_framework, default_registry
from pulumi_kubeflow_trainer.rendering import Renderer
from pulumi_kubeflow_trainer.ssh import seeded_key_generator
from tests.builders import container, make_runtime

GENERAL = Framework(default_registry(), compile_steps=False)


def _runtimes() -> list[dict[str, Any]]:
    env = [{"name": "PET_NNODES", "value": "9"}, {"name": "A", "value": "runtime"}]
    made = [
        make_runtime("torch-with-env").torch().trainer(container("node", env=env, ports=[{"containerPort": 29500, "name": "old"}])),
        make_runtime("torch-no-node-container").torch().trainer(container("other")),
        make_runtime("torch-no-image").torch().trainer(container("node", image=None)),
        make_runtime("torch-initializers").torch().initializers().trainer(),
    ]
    return [runtime.to_manifest() for runtime in bundled_runtimes()] + [runtime.obj() for runtime in made]


RUNTIMES = _runtimes()
NAMES = [runtime["metadata"]["name"] for runtime in RUNTIMES]


def trainjob(runtime: str, spec: dict[str, Any] | None = None, **metadata: Any) -> dict[str, Any]:
    return {
        "apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "TrainJob",
        "metadata": {"name": "job", "namespace": "team", **metadata},
        "spec": {"runtimeRef": {"name": runtime}, **(spec or {})},
    }


PATCH = {"manager": "acme.io/tool", "trainingRuntimeSpec": {"template": {
    "metadata": {"labels": {"patched": "yes"}},
    "spec": {"replicatedJobs": [{"name": "node", "template": {"spec": {"template": {"spec": {
        "containers": [{"name": "node", "volumeMounts": [{"name": "v", "mountPath": "/v"}]}], "nodeSelector": {"pool": "a"}}}}}}]},
}}}


@dataclass(frozen=True)
class Variant:
    name: str
    spec: dict[str, Any]
    metadata: dict[str, Any]


VARIANTS = [
    Variant("a TrainJob with no trainer", {}, {}),
    Variant("an empty trainer", {"trainer": {}}, {}),
    Variant("a node count", {"trainer": {"numNodes": 3}}, {}),
    Variant("a negative node count", {"trainer": {"numNodes": -1}}, {}),
    Variant("processes per node", {"trainer": {"numProcPerNode": 2}}, {}),
    Variant("no process per node", {"trainer": {"numProcPerNode": 0}}, {}),
    Variant("an image, a command and args", {"trainer": {"image": "me/train:1", "command": ["python"], "args": ["t.py"]}}, {}),
    Variant("an empty command and args", {"trainer": {"command": [], "args": []}}, {}),
    Variant("the tune run command", {"trainer": {"command": ["tune", "run"], "args": ["model.lora_attn_modules=[q_proj]"]}}, {}),
    Variant("env", {"trainer": {"env": [{"name": "A", "value": "1"}, {"name": "B", "valueFrom": {"fieldRef": {"fieldPath": "x"}}}]}}, {}),
    Variant("reserved env", {"trainer": {"env": [{"name": "PET_NNODES", "value": "1"}, {"name": "OMPI_MCA_x", "value": "1"}]}}, {}),
    Variant("GPU resources", {"trainer": {"numNodes": 2, "resourcesPerNode": {"requests": {"cpu": "4", "nvidia.com/gpu": "2"}}}}, {}),
    Variant("CPU limits", {"trainer": {"resourcesPerNode": {"limits": {"cpu": "3", "memory": "1Gi"}}}}, {}),
    Variant("resource claims", {"trainer": {"resourcesPerNode": {"claims": [{"name": "gpu"}]}}}, {}),
    Variant("a runtime patch", {"runtimePatches": [PATCH]}, {}),
    Variant("an initializer", {"initializer": {"dataset": {"storageUri": "hf://d", "env": [{"name": "X", "value": "1"}]},
                                               "model": {"storageUri": "hf://m"}}}, {}),
    Variant("suspend", {"suspend": True}, {}),
    Variant("suspend false, given", {"suspend": False}, {}),
    Variant("a deadline", {"activeDeadlineSeconds": 60}, {}),
    Variant("managed by MultiKueue", {"managedBy": "kueue.x-k8s.io/multikueue"}, {}),
    Variant("Kueue labels and other metadata", {}, {"labels": {"kueue.x-k8s.io/queue-name": "q", "team": "a"},
                                                    "annotations": {"note": "x"}, "uid": "0b6e-uid"}),
]


def outcome(framework: Framework | None, runtime: dict[str, Any], manifest: dict[str, Any], multikueue: bool) -> str:
    """Children, warnings and errors of one render, as JSON text (key order counts)."""
    models = load([runtime, manifest])
    context = RenderContext(key_generator=seeded_key_generator("compiled"), multikueue_jobset=multikueue)
    try:
        renderer = Renderer([models[0]], context=context)
        if framework is not None:
            renderer.framework = framework
        children: Any = renderer.render(models[1])  # type: ignore[arg-type]
        warnings = renderer.warnings
    except TrainJobInvalidError as invalid:
        children, warnings = [str(invalid)], list(invalid.warnings)
    return json.dumps({"children": children, "warnings": [str(item) for item in warnings]}, indent=1)


@pytest.mark.parametrize("variant", VARIANTS, ids=[variant.name for variant in VARIANTS])
@pytest.mark.parametrize("runtime", RUNTIMES, ids=NAMES)
def test_compiled_steps_render_what_the_general_methods_render(runtime: dict[str, Any], variant: Variant) -> None:
    manifest = trainjob(runtime["metadata"]["name"], variant.spec, **variant.metadata)
    for multikueue in (False, True):
        assert outcome(None, runtime, manifest, multikueue) == outcome(GENERAL, runtime, manifest, multikueue)


def test_the_general_framework_compiles_no_step() -> None:
    """The comparison above means something only if the two frameworks act differently."""
    runtime = load([RUNTIMES[NAMES.index("torch-distributed")]])[0]
    compiled = CompiledRuntime.of(runtime)  # type: ignore[arg-type]
    general = GENERAL.plan(compiled).phases.enforce_ml_policy
    fast = default_framework().plan(compiled).phases.enforce_ml_policy
    assert [getattr(step, "__self__", None) is not None for step in general] == [True]
    assert [getattr(step, "__self__", None) is not None for step in fast] == [False]
