"""Runtime snapshot (SEMANTICS §3.1, §3.14): the ConfigMap that freezes the runtime a TrainJob started with."""

from __future__ import annotations

import yaml

from pulumi_kubeflow_trainer.api import constants as c
from pulumi_kubeflow_trainer.api.runtime import ClusterTrainingRuntime
from pulumi_kubeflow_trainer.framework.context import RenderContext
from pulumi_kubeflow_trainer.loading import load
from pulumi_kubeflow_trainer.plugins.snapshot import DATA_KEY, snapshot_name
from pulumi_kubeflow_trainer.rendering import Renderer
from tests.builders import make_runtime, make_trainjob, render_one


def snapshot_of(manifests: list[dict]) -> dict:
    return next(manifest for manifest in manifests if manifest["metadata"]["name"].endswith("-runtime-snapshot"))


def test_the_snapshot_holds_the_whole_runtime_as_yaml() -> None:
    runtime = make_runtime("rt").mpi(numProcPerNode=2).trainer(name="launcher").label("team", "a")
    snapshot = snapshot_of(render_one(make_trainjob("team", "job").runtime_ref("rt").uid("u-1"), runtime, runtime_snapshot=True))
    assert snapshot["apiVersion"] == "v1" and snapshot["kind"] == "ConfigMap"
    assert snapshot["metadata"]["name"] == snapshot_name(make_trainjob("team", "job").build()) == "job-runtime-snapshot"
    assert snapshot["metadata"]["namespace"] == "team"
    assert snapshot["metadata"]["ownerReferences"][0]["uid"] == "u-1"
    assert list(snapshot["data"]) == [DATA_KEY]
    assert yaml.safe_load(snapshot["data"][DATA_KEY]) == runtime.obj()
    (reloaded,) = load(snapshot["data"][DATA_KEY])
    assert reloaded == runtime.build()


def test_a_namespaced_runtime_is_snapshotted_with_its_kind() -> None:
    runtime = make_runtime("rt", cluster=False, namespace="team").torch().trainer()
    trainjob = make_trainjob("team", "job").runtime_ref("rt", kind=c.TRAINING_RUNTIME_KIND)
    data = yaml.safe_load(snapshot_of(render_one(trainjob, runtime, runtime_snapshot=True))["data"][DATA_KEY])
    assert (data["kind"], data["metadata"]["namespace"]) == (c.TRAINING_RUNTIME_KIND, "team")


def test_a_runtime_built_in_python_is_snapshotted_with_apiversion_and_kind() -> None:
    manifest = make_runtime("rt").torch().trainer().obj()
    del manifest["kind"]
    runtime = ClusterTrainingRuntime.model_validate(manifest)
    data = yaml.safe_load(snapshot_of(render_one(make_trainjob().runtime_ref("rt"), runtime, runtime_snapshot=True))["data"][DATA_KEY])
    assert (data["apiVersion"], data["kind"]) == (c.API_VERSION_UPSTREAM, c.CLUSTER_TRAINING_RUNTIME_KIND)


def test_every_trainjob_of_a_runtime_gets_its_own_snapshot_with_the_same_content() -> None:
    runtime = make_runtime("rt").torch().trainer().build()
    renderer = Renderer([runtime], context=RenderContext(runtime_snapshot=True))
    first = snapshot_of(renderer.render(make_trainjob("team", "a").runtime_ref("rt").build()))
    second = snapshot_of(renderer.render(make_trainjob("team", "b").runtime_ref("rt").build()))
    assert (first["metadata"]["name"], second["metadata"]["name"]) == ("a-runtime-snapshot", "b-runtime-snapshot")
    assert first["data"] == second["data"]


def test_the_snapshot_can_be_turned_on() -> None:
    manifests = render_one(make_trainjob().runtime_ref("rt"), make_runtime("rt").torch().trainer(), runtime_snapshot=True)
    assert [manifest["kind"] for manifest in manifests] == ["ConfigMap", "JobSet"]


def test_the_snapshot_is_off_by_default_as_in_the_components_and_the_cli() -> None:
    """Nothing reads it where the library creates the JobSet (no Trainer controller): one default,
    the same in `render()`, `Renderer`, `trainjob render` and the components (docs/parity.md)."""
    runtime = make_runtime("rt").torch().trainer().build()
    manifests = Renderer([runtime]).render(make_trainjob().runtime_ref("rt").build())
    assert [manifest["kind"] for manifest in manifests] == ["JobSet"]
