"""What a plugin registry knows belongs to it (issue 24, part 2): its plugins' mlPolicy keys and their
models reach validation only through the loads and renders given the registry. Two registries with
different plugins for one key validate and render each their own way in one process, a runtime read
for one registry is refused by another, and the API models answer alike before and after any import."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, ClassVar

import pytest
from pydantic import ValidationError

from pulumi_kubeflow_trainer.api import constants as c
from pulumi_kubeflow_trainer.api.base import KubeModel
from pulumi_kubeflow_trainer.api.runtime import ClusterTrainingRuntime
from pulumi_kubeflow_trainer.framework.errors import PluginRegistrationError, TrainJobInvalidError
from pulumi_kubeflow_trainer.framework.kube import upsert_env
from pulumi_kubeflow_trainer.framework.registry import PluginRegistry
from pulumi_kubeflow_trainer.loading import load
from pulumi_kubeflow_trainer.plugins import default_framework, default_registry
from pulumi_kubeflow_trainer.rendering import render
from tests.builders import env_of, jobset_container, make_runtime, make_trainjob


class ProcessesSource(KubeModel):
    num_proc_per_node: int = 1


class DevicesSource(KubeModel):
    devices: str


class PaddleByProcesses:
    name: ClassVar[str] = "PaddleA"
    ml_policy: ClassVar[str] = "paddle"
    ml_policy_source: ClassVar[type[KubeModel]] = ProcessesSource

    def enforce_ml_policy(self, info: Any, trainjob: Any) -> None:
        source = info.ml_policy.source("paddle") if info.ml_policy else None
        if isinstance(source, ProcessesSource):
            upsert_env(info.trainer_pod_set.find_container(c.NODE), [{"name": "PADDLE_PROCS", "value": str(source.num_proc_per_node)}])


class PaddleByDevices:
    name: ClassVar[str] = "PaddleB"
    ml_policy: ClassVar[str] = "paddle"
    ml_policy_source: ClassVar[type[KubeModel]] = DevicesSource

    def enforce_ml_policy(self, info: Any, trainjob: Any) -> None:
        source = info.ml_policy.source("paddle") if info.ml_policy else None
        if isinstance(source, DevicesSource):
            upsert_env(info.trainer_pod_set.find_container(c.NODE), [{"name": "PADDLE_DEVICES", "value": source.devices}])


def registry_with(plugin: Any) -> PluginRegistry:
    registry = default_registry(include_entry_points=False)
    registry.register(plugin)
    return registry


def paddle_runtime(**source: Any) -> dict[str, Any]:
    runtime = make_runtime("paddle").trainer().obj()
    runtime["spec"]["mlPolicy"] = {"numNodes": 2, "paddle": source}
    return runtime


JOB = make_trainjob("team", "job").runtime_ref("paddle").obj()


def test_two_registries_with_plugins_for_one_key_each_validate_and_render_their_own_way() -> None:
    by_processes, by_devices = registry_with(PaddleByProcesses), registry_with(PaddleByDevices)
    node = jobset_container(render([paddle_runtime(numProcPerNode=4), JOB], registry=by_processes), "node")
    assert env_of(node)["PADDLE_PROCS"] == "4" and "PADDLE_DEVICES" not in env_of(node)
    node = jobset_container(render([paddle_runtime(devices="gpu:0,1"), JOB], registry=by_devices), "node")
    assert env_of(node)["PADDLE_DEVICES"] == "gpu:0,1" and "PADDLE_PROCS" not in env_of(node)
    with pytest.raises(TrainJobInvalidError, match="spec.mlPolicy.paddle.devices: Unsupported field"):
        load(paddle_runtime(devices="gpu:0"), registry=by_processes)
    with pytest.raises(TrainJobInvalidError, match="spec.mlPolicy.paddle.devices: Required value"):
        load(paddle_runtime(numProcPerNode=4), registry=by_devices)


def test_one_registry_still_takes_one_plugin_per_key() -> None:
    registry = registry_with(PaddleByProcesses)
    with pytest.raises(PluginRegistrationError, match="plugin 'PaddleB' handles mlPolicy.paddle, which plugin 'PaddleA' handles already"):
        registry.register(PaddleByDevices)
    assert isinstance(registry_with(PaddleByDevices).policies.plugin_for("paddle"), PaddleByDevices), "the other registry is untouched"


def test_registering_a_plugin_teaches_no_one_else_its_key() -> None:
    registry_with(PaddleByProcesses)
    with pytest.raises(TrainJobInvalidError, match="spec.mlPolicy.paddle: Unsupported field"):
        load(paddle_runtime())
    with pytest.raises(ValidationError, match=r"spec.mlPolicy.paddle\n  Extra inputs are not permitted"):
        ClusterTrainingRuntime.model_validate(paddle_runtime())
    assert default_framework().policies.plugin_for("paddle") is None


@pytest.mark.parametrize(
    ("renderer", "says"),
    [(default_registry(include_entry_points=False), "no plugin of the rendering registry handles this policy"),
     (registry_with(PaddleByDevices), r"read with another registry's model \(ProcessesSource\), not DevicesSource")],
    ids=["a registry without the key's plugin", "a registry whose plugin has another model"],
)
def test_a_runtime_read_for_one_registry_is_refused_by_another(renderer: PluginRegistry, says: str) -> None:
    (runtime,) = load(paddle_runtime(numProcPerNode=2), registry=registry_with(PaddleByProcesses))
    with pytest.raises(TrainJobInvalidError, match=f"ClusterTrainingRuntime/paddle: spec.mlPolicy.paddle: .*{says}"):
        render([runtime, JOB], registry=renderer)


ANSWERS = '''
import json, sys
from pydantic import ValidationError
def answers():
    from pulumi_kubeflow_trainer.api.runtime import ClusterTrainingRuntime
    found = []
    for policy in ({"paddle": {}}, {"torch": {}}, {"torch": {}, "mpi": {}}):
        document = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "ClusterTrainingRuntime",
                    "metadata": {"name": "r"}, "spec": {"mlPolicy": policy}}
        try:
            ClusterTrainingRuntime.model_validate(document)
            found.append("admitted")
        except ValidationError as error:
            found.append([(e["loc"], e["type"]) for e in error.errors(include_url=False)])
    return found
before = answers()
import pulumi_kubeflow_trainer.cli, pulumi_kubeflow_trainer.resources, pulumi_kubeflow_trainer.rendering
from pulumi_kubeflow_trainer.plugins import default_registry, default_framework
from tests.framework.test_registry_state import PaddleByProcesses
default_framework()
registry = default_registry()
registry.register(PaddleByProcesses)
print(json.dumps([before, answers()]))
'''


def test_the_api_models_answer_alike_before_and_after_any_import() -> None:
    repo = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", ANSWERS], capture_output=True, text=True, check=True, timeout=120, cwd=repo)
    before, after = json.loads(done.stdout)
    assert before == after
    assert before[1] == "admitted" and before[0] != "admitted" and before[2] != "admitted"
