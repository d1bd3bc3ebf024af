"""The plugin registry and the framework's phases (SEMANTICS §2.2, §2.3)."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from pulumi_kubeflow_trainer.framework.context import RenderContext
from pulumi_kubeflow_trainer.framework.errors import PluginRegistrationError
from pulumi_kubeflow_trainer.framework.framework import Framework
from pulumi_kubeflow_trainer.framework.interfaces import (
    EXTENSION_POINTS,
    ComponentBuilderPlugin,
    CustomValidationPlugin,
    EnforceMLPolicyPlugin,
    EnforcePodGroupPolicyPlugin,
    EnforcePodSpecPlugin,
    PreBuildSyncPlugin,
    Verdict,
)
from pulumi_kubeflow_trainer.framework.registry import PluginRegistry
from pulumi_kubeflow_trainer.plugins import (
    BUILTIN_PLUGINS,
    CoSchedulingPlugin,
    FluxPlugin,
    JAXPlugin,
    JobSetPlugin,
    MPIPlugin,
    PlainMLPlugin,
    RuntimeSnapshotPlugin,
    TorchPlugin,
    VolcanoPlugin,
    XGBoostPlugin,
    default_registry,
)
from pulumi_kubeflow_trainer.rendering import Renderer
from tests.builders import make_runtime, make_trainjob

VALIDATE, ML, POD_GROUP, POD_SPEC, SYNC, BUILD = (
    CustomValidationPlugin,
    EnforceMLPolicyPlugin,
    EnforcePodGroupPolicyPlugin,
    EnforcePodSpecPlugin,
    PreBuildSyncPlugin,
    ComponentBuilderPlugin,
)

# Upstream's table (§2.2), with two differences of ours: JAX has no no-op validation, and the runtime
# snapshot, done by the upstream runtime core, is a builder plugin here.
EXTENSION_POINTS_OF = {
    TorchPlugin: {ML, VALIDATE},
    MPIPlugin: {ML, BUILD, VALIDATE},
    PlainMLPlugin: {ML},
    JAXPlugin: {ML},
    XGBoostPlugin: {ML, VALIDATE},
    FluxPlugin: {ML, BUILD, VALIDATE},
    CoSchedulingPlugin: {POD_GROUP, BUILD},
    VolcanoPlugin: {POD_GROUP, BUILD, VALIDATE},
    JobSetPlugin: {SYNC, BUILD, VALIDATE},
    RuntimeSnapshotPlugin: {BUILD},
}


@pytest.mark.parametrize("plugin", BUILTIN_PLUGINS, ids=lambda plugin: plugin.name)
def test_builtin_extension_points(plugin: type) -> None:
    instance = plugin()
    assert {point for point in EXTENSION_POINTS if isinstance(instance, point)} == EXTENSION_POINTS_OF[plugin]


def test_the_builtins_are_all_in_the_table_under_upstream_names() -> None:
    assert set(BUILTIN_PLUGINS) == set(EXTENSION_POINTS_OF)
    assert [plugin.name for plugin in BUILTIN_PLUGINS] == [
        "Torch", "MPI", "PlainML", "JAX", "XGBoost", "Flux", "CoScheduling", "Volcano", "JobSet", "RuntimeSnapshot",
    ]


def test_the_default_registry_holds_the_builtins_in_order() -> None:
    assert default_registry(include_entry_points=False).names == [plugin.name for plugin in BUILTIN_PLUGINS]


def test_plainml_acts_before_xgboost_so_user_env_comes_first() -> None:
    names = [plugin.name for plugin in Framework(default_registry(include_entry_points=False)).ml_policy_enforcers]
    assert names.index("PlainML") < names.index("XGBoost")


class Recorder:
    """A plugin at every extension point, writing down when each phase reaches it."""

    name: ClassVar[str] = "Recorder"
    calls: ClassVar[list[str]] = []

    def validate(self, info: Any, trainjob: Any, context: Any) -> Verdict:
        self.calls.append("validate")
        return Verdict(warnings=["recorded"])

    def enforce_ml_policy(self, info: Any, trainjob: Any) -> None:
        self.calls.append("enforce_ml_policy")

    def enforce_pod_group_policy(self, info: Any, trainjob: Any) -> None:
        self.calls.append("enforce_pod_group_policy")

    def enforce_pod_spec(self, info: Any, trainjob: Any) -> None:
        self.calls.append("enforce_pod_spec")

    def pre_build_sync(self, info: Any, trainjob: Any) -> None:
        self.calls.append(f"pre_build_sync:{[pod_set.endpoints for pod_set in info.pod_sets]}")

    def build(self, info: Any, trainjob: Any, context: Any) -> list[dict[str, Any]]:
        self.calls.append("build")
        return [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "recorded"}, "data": {}}]


def test_phases_run_in_upstream_order_after_the_builtins_of_each_phase() -> None:
    registry = default_registry(include_entry_points=False)
    registry.register(Recorder)
    Recorder.calls.clear()
    renderer = Renderer([make_runtime("rt").torch().trainer().build()], context=RenderContext(runtime_snapshot=False), registry=registry)
    manifests = renderer.render(make_trainjob("team", "job").runtime_ref("rt").num_nodes(1).build())
    # The JobSet plugin's pre-build sync ran before ours (endpoints filled); ours builds last, sorted by kind.
    assert Recorder.calls == [
        "validate",
        "enforce_ml_policy",
        "enforce_pod_group_policy",
        "enforce_pod_spec",
        "pre_build_sync:[['job-node-0-0.job']]",
        "build",
    ]
    assert [manifest["kind"] for manifest in manifests] == ["ConfigMap", "JobSet"]
    assert "recorded" in renderer.warnings


def test_a_registry_with_only_the_jobset_plugin_renders_a_bare_jobset() -> None:
    registry = PluginRegistry()
    registry.register(JobSetPlugin)
    renderer = Renderer([make_runtime("rt").torch().trainer().build()], registry=registry)
    (jobset,) = renderer.render(make_trainjob().runtime_ref("rt").num_nodes(3).build())
    assert "env" not in jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0]
    assert jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["parallelism"] == 1, "no ML plugin applied numNodes"


class Nameless:
    def build(self, info: Any, trainjob: Any, context: Any) -> list[Any]:
        return []


class Idle:
    name: ClassVar[str] = "Idle"


class Torch2:
    name: ClassVar[str] = "Torch"

    def enforce_ml_policy(self, info: Any, trainjob: Any) -> None:
        pass


@pytest.mark.parametrize(
    ("plugin", "says"),
    [
        (Torch2, "plugin 'Torch' is registered twice"),
        (Idle, "plugin 'Idle' implements no extension point; implement one of CustomValidationPlugin"),
        (Nameless, "has no `name`"),
    ],
    ids=["a duplicate name is rejected", "a plugin without extension point is rejected", "a plugin without a name is rejected"],
)
def test_registration_errors(plugin: type, says: str) -> None:
    registry = default_registry(include_entry_points=False)
    with pytest.raises(PluginRegistrationError, match=says.replace("(", r"\(")):
        registry.register(plugin)
    assert plugin.__name__ not in registry.names
