"""The TrainJob component through the real engine, in inline programs on the embedded default (render to
a directory): generated keys (Flux CURVE) are random per stack, kept across runs and encrypted in the
state; the runtime-patch update rules stop `pulumi preview` with the property path."""

from __future__ import annotations

import base64
import inspect
import re
from typing import Any

import pulumi
import pulumi.automation as auto
import pytest
from pulumi.dynamic import CreateResult, Resource, ResourceProvider
from pulumi.dynamic.dynamic import serialize_provider

from pulumi_kubeflow_trainer import TrainJob
from pulumi_kubeflow_trainer.resources.record import TrainJobRecordProvider
from pulumi_kubeflow_trainer.resources.sshkey import MPISSHKeyProvider
from tests.builders import container, make_runtime, make_trainjob
from tests.engine.inline import InlineStack, changes

pytestmark = pytest.mark.engine
FLUX_RUNTIME = make_runtime("flux-rt").flux().trainer(container(command=["python", "train.py"])).obj()
PATCH = {"manager": "kueue.x-k8s.io/manager", "trainingRuntimeSpec": {"template": {"metadata": {"labels": {"team": "a"}}}}}


@pytest.fixture(autouse=True)
def _no_kubeconfig(monkeypatch: pytest.MonkeyPatch) -> None:
    """Inline programs run in this process, where the SDK would hand $KUBECONFIG to the render provider."""
    monkeypatch.delenv("KUBECONFIG", raising=False)


def flux_job(opts: pulumi.ResourceOptions, _settings: dict[str, Any]) -> TrainJob:
    return TrainJob("fx", make_trainjob("team", "fx").runtime_ref("flux-rt").num_nodes(2).obj(), runtime=FLUX_RUNTIME, opts=opts)


def curve_secret_key(stack: InlineStack) -> str:
    cert = base64.b64decode(stack.rendered("Secret", "fx-flux-curve")["data"]["curve.cert"]).decode()
    return re.search(r'secret-key = "([^"]+)"', cert).group(1)


def test_a_flux_key_is_random_per_stack_kept_across_runs_and_secret_in_the_state(engine_env, engine_bin, tmp_path):
    first = InlineStack("first", flux_job, engine_env, engine_bin, tmp_path / "first")
    first.up()
    key = curve_secret_key(first)

    assert changes(first.preview().change_summary) == {}, "a re-preview keeps the stored key"
    first.up()
    assert curve_secret_key(first) == key, "a second up keeps it too"
    state = first.state_text()
    assert key not in state, "the CURVE secret key is not in plaintext in the state"
    assert base64.b64encode(key.encode()).decode()[:20] not in state

    second = InlineStack("second", flux_job, {**engine_env}, engine_bin, tmp_path / "second")
    second.up()
    assert curve_secret_key(second) != key, "the same TrainJob in another program gets another key"


def patched_job(opts: pulumi.ResourceOptions, settings: dict[str, Any]) -> TrainJob:
    patch = {**PATCH, "trainingRuntimeSpec": {"template": {"metadata": {"labels": {"team": settings.get("team", "a")}}}}}
    return TrainJob("patched", runtime_ref="torch-distributed", namespace="team", runtime_patches=[patch],
                    suspend=settings.get("suspend"), trainer={"numNodes": 1}, opts=opts)


def test_changing_runtime_patches_of_a_running_trainjob_stops_the_preview(engine_env, engine_bin, tmp_path):
    stack = InlineStack("patched", patched_job, engine_env, engine_bin, tmp_path)
    stack.up()
    assert changes(stack.preview().change_summary) == {}, "an unchanged TrainJob previews clean"

    stack.settings["team"] = "b"
    with pytest.raises(auto.CommandError, match=r"spec\.runtimePatches: Forbidden: RuntimePatches can only be modified when the TrainJob is suspended"):
        stack.preview()

    stack.settings["suspend"] = True  # suspending in the same update is allowed
    assert changes(stack.preview().change_summary), "the preview passes and shows the update"
    stack.up()
    stack.settings["suspend"] = False  # resuming with the patches as they are now
    stack.up()


def test_the_component_points_at_the_user_s_trainjob_call_and_its_children_store_no_stack(engine_env, engine_bin, tmp_path):
    """The SDK stores with each resource the call stack below the third `__init__` frame it finds. The
    component is an ordinary ComponentResource: its stack and source position are the user's
    `TrainJob(...)` call. Its JobSet is registered once the program's own code ran (it waits for the
    runtime revision), as a bare CustomResource, and stores none: about 2 KB less state, serialized on
    every step."""
    call: dict[str, int] = {}

    def program(opts: pulumi.ResourceOptions, _settings: dict[str, Any]) -> TrainJob:
        call["line"] = inspect.currentframe().f_lineno + 1
        return TrainJob("traced", runtime_ref="torch-distributed", namespace="team", opts=opts)

    stack = InlineStack("traced", program, engine_env, engine_bin, tmp_path)
    stack.up()
    resources = {resource["type"]: resource for resource in stack.stack.export_stack().deployment["resources"]}
    where = f"/tests/engine/test_trainjob_keys_and_rules.py#{call['line']}"
    assert resources["kubeflow:trainer:TrainJob"]["sourcePosition"].endswith(where)
    jobset = resources["kubernetes:jobset.x-k8s.io/v1alpha2:JobSet"]
    assert "sourcePosition" not in jobset and "stackTrace" not in jobset
    assert changes(stack.preview().change_summary) == {}


class CreatableOldProvider(ResourceProvider):
    """Makes the resources an earlier version made; the state is then pointed at the old providers."""

    serialize_as_secret_always = False

    def create(self, props: dict[str, Any]) -> CreateResult:
        return CreateResult(id_="old", outs=props)


class OldRecord(Resource, module="kubeflow", name="TrainJobRecord"):
    def __init__(self, name: str) -> None:
        super().__init__(CreatableOldProvider(), name, {"trainjob": "team/old"})


class OldKey(Resource, module="kubeflow", name="MPISSHKey"):
    def __init__(self, name: str) -> None:
        super().__init__(CreatableOldProvider(), name, {"trainjob": "team/old"})


def test_a_stack_of_an_earlier_version_upgrades_and_deletes_its_record_and_key_resources(engine_env, engine_bin, tmp_path):
    """Earlier versions made `<name>-record` and `<name>-ssh-key` dynamic resources; the engine deletes them
    with their providers as the state names them (module and class), which must still import."""
    def program(opts: pulumi.ResourceOptions, settings: dict[str, Any]) -> TrainJob:
        if settings.get("earlier"):
            OldRecord("old-record")
            OldKey("old-ssh-key")
        return TrainJob("old", runtime_ref="torch-distributed", namespace="team", opts=opts)

    stack = InlineStack("upgrade", program, engine_env, engine_bin, tmp_path)
    stack.settings["earlier"] = True
    stack.up()
    old_providers = {"TrainJobRecord": TrainJobRecordProvider(), "MPISSHKey": MPISSHKeyProvider()}
    deployment = stack.stack.export_stack()
    for resource in deployment.deployment["resources"]:
        kind = resource["type"].rpartition(":")[2]
        if kind in old_providers:  # the state as the earlier version wrote it
            for props in (resource["inputs"], resource["outputs"]):
                props["__provider"] = serialize_provider(old_providers[kind])
    stack.stack.import_stack(deployment)

    stack.settings["earlier"] = False
    assert stack.up().summary.result == "succeeded"
    types = {resource["type"] for resource in stack.stack.export_stack().deployment["resources"]}
    assert not types & {"pulumi-python:dynamic/kubeflow:TrainJobRecord", "pulumi-python:dynamic/kubeflow:MPISSHKey"}


def test_a_queued_suspended_trainjob_renders_to_a_directory(engine_env, engine_bin, tmp_path):
    """No Workload patch where nothing is deployed (it stopped the preview: "patch resources require the
    `.metadata.name` field to be set"); the rendered JobSet carries the queue and leaves suspend to Kueue."""
    def program(opts: pulumi.ResourceOptions, _settings: dict[str, Any]) -> TrainJob:
        return TrainJob("queued", runtime_ref="torch-distributed", namespace="team", queue_name="team-q", suspend=True, opts=opts)

    stack = InlineStack("queued", program, engine_env, engine_bin, tmp_path)
    printed = stack.steps("up")[1]
    assert "suspend=True on a queued TrainJob goes on its Kueue Workload (spec.active)" in printed, "the lost suspend is said"
    jobset = stack.rendered("JobSet", "queued")
    assert jobset["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "team-q" and "suspend" not in jobset["spec"]
    assert changes(stack.preview().change_summary) == {}
