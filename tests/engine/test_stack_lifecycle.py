"""A training stack over months, through the real engine (render target): the platform team bumps the
runtime's image, data scientists add TrainJobs, re-run one, move one to the new runtime, drop one.
Nothing a user did not change is replaced, and nothing re-runs a finished training."""

from __future__ import annotations

import copy
from typing import Any

import pulumi
import pytest

from pulumi_kubeflow_trainer import ClusterTrainingRuntime, TrainerArgs, TrainJob
from pulumi_kubeflow_trainer.blueprints import bundled_runtime
from pulumi_kubeflow_trainer.rendering import Renderer
from tests.engine.inline import InlineStack

pytestmark = pytest.mark.engine
IMAGE_V1, IMAGE_V2 = "registry.local/pytorch:2.7", "registry.local/pytorch:2.8"


def platform_runtime(image: str) -> dict[str, Any]:
    """Upstream's torch-distributed runtime with gang scheduling, under the platform team's name, with
    its trainer image."""
    manifest = copy.deepcopy(bundled_runtime("torch-distributed-coscheduling").to_manifest())
    manifest["metadata"] = {"name": "torch-platform", "labels": manifest["metadata"].get("labels", {})}
    for job in manifest["spec"]["template"]["spec"]["replicatedJobs"]:
        for container in job["template"]["spec"]["template"]["spec"]["containers"]:
            container["image"] = image
    return manifest


def training_stack(opts: pulumi.ResourceOptions, settings: dict[str, Any]) -> None:
    runtime = ClusterTrainingRuntime("torch-platform", platform_runtime(settings.get("image", IMAGE_V1)), opts=opts)
    for name in settings.get("trainjobs", ["existing"]):
        TrainJob(name, runtime=runtime, namespace="team-a", trainer=TrainerArgs(num_nodes=2),
                 run=settings.get("run", {}).get(name), runtime_pin=settings.get("pin", {}).get(name), opts=opts)


def image_of(stack: InlineStack, trainjob: str) -> str:
    jobset = stack.rendered("JobSet", trainjob)
    return jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0]["image"]


TEXT = "clustertrainingruntime-torch-platform-"  # the stash of one revision's text, shared by its TrainJobs


def not_same(steps: dict[str, str]) -> dict[str, str]:
    """The steps that change something, a revision's text as `text` (its digest is the runtime's)."""
    return {("text" if name.startswith(TEXT) else name): op for name, op in steps.items() if op != "same"}


def texts(steps: dict[str, str]) -> dict[str, str]:
    return {name.removeprefix(TEXT): op for name, op in steps.items() if name.startswith(TEXT)}


def test_a_runtime_edit_reaches_new_trainjobs_only_and_re_runs_and_moves_replace_one_jobset(engine_env, engine_bin, tmp_path):
    """The state keeps each TrainJob's revision (`<name>-runtime`) and the text of each revision a TrainJob
    keeps, once (revisions.py)."""
    stack = InlineStack("lifecycle", training_stack, engine_env, engine_bin, tmp_path)
    first = texts(stack.steps("up")[0])
    assert image_of(stack, "existing") == IMAGE_V1 and list(first.values()) == ["create"]
    (v1,) = first

    # The platform team bumps the image; a data scientist adds a TrainJob in the same update.
    stack.settings.update(image=IMAGE_V2, trainjobs=["existing", "added"])
    steps, printed = stack.steps("preview")
    assert not_same(steps) == {"added": "create", "added-runtime": "create", "added-podgroup": "create",
                               "added-jobset": "create", "added-jobset-render": "create", "text": "create"}, \
        "the existing TrainJob's children are all `same`"
    assert steps["existing-jobset"] == steps["existing-podgroup"] == steps["existing-runtime"] == "same"
    assert texts(steps)[v1] == "same", "the text of the revision existing keeps stays"
    (v2,) = set(texts(steps)) - {v1}
    assert "ClusterTrainingRuntime torch-platform is at revision " in printed
    assert "it applies to new TrainJobs; 1 existing TrainJob of this stack keeps revision " in printed
    assert "(existing); change runtime_pin on a TrainJob to move it" in printed
    diagnostics = printed.split("Diagnostics:")[1]
    assert diagnostics.count("ClusterTrainingRuntime torch-platform is at revision") == 1, "said once per runtime"
    assert "kubeflow:trainer:ClusterTrainingRuntime (torch-platform):\n    ClusterTrainingRuntime torch-platform is" in diagnostics
    stack.up()
    assert (image_of(stack, "existing"), image_of(stack, "added")) == (IMAGE_V1, IMAGE_V2)
    steps, printed = stack.steps("preview")
    assert not_same(steps) == {}, "a second preview is empty"
    assert "keeps revision" in printed, "existing still keeps its revision, and the preview still says so"

    # Re-run `existing` on purpose: one replace of its JobSet and of its gang's PodGroup, on the revision it keeps.
    stack.settings["run"] = {"existing": 2}
    steps, _ = stack.steps("preview")
    assert not_same(steps) == {"existing-jobset": "replace", "existing-podgroup": "replace", "existing-jobset-render": "replace"}
    stack.up()
    assert image_of(stack, "existing") == IMAGE_V1
    assert not_same(stack.steps("preview")[0]) == {}

    # Move `existing` to the runtime's current revision: it runs again, with the new image.
    stack.settings["pin"] = {"existing": "2026-12"}
    steps, _ = stack.steps("preview")
    assert not_same(steps) == {"existing-runtime": "replace", "existing-jobset": "replace", "existing-podgroup": "replace",
                               "existing-jobset-render": "replace", "text": "delete"}
    assert texts(steps) == {v1: "delete", v2: "same"}, "no TrainJob keeps the old revision: its text goes"
    stack.up()
    assert image_of(stack, "existing") == IMAGE_V2
    steps, printed = stack.steps("preview")
    assert not_same(steps) == {} and "is at revision" not in printed, "no TrainJob keeps an older revision now"

    # A finished TrainJob is dropped: only its own resources go.
    stack.settings["trainjobs"] = ["existing"]
    steps, _ = stack.steps("preview")
    assert not_same(steps) == {"added": "delete", "added-runtime": "delete", "added-podgroup": "delete", "added-jobset": "delete",
                               "added-jobset-render": "delete"}


NEW_RELEASE_ENV = {"name": "RENDERED_BY", "value": "a later release"}


def renders_otherwise(monkeypatch: pytest.MonkeyPatch) -> None:
    """This process (the inline program's) renders as a later release might: one more env var in every
    container of the JobSet."""
    render = Renderer.render

    def later_release(self: Renderer, trainjob: Any) -> list[dict[str, Any]]:
        manifests = copy.deepcopy(render(self, trainjob))
        for manifest in manifests:
            for job in manifest["spec"]["replicatedJobs"] if manifest["kind"] == "JobSet" else []:
                for container in job["template"]["spec"]["template"]["spec"]["containers"]:
                    container["env"] = [*container.get("env", []), NEW_RELEASE_ENV]
        return manifests

    monkeypatch.setattr(Renderer, "render", later_release)


def has_new_env(stack: InlineStack, trainjob: str) -> bool:
    jobset = stack.rendered("JobSet", trainjob)
    return NEW_RELEASE_ENV in (jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0]
                               .get("env") or [])


def test_a_release_that_renders_the_jobset_otherwise_re_runs_nothing(engine_env, engine_bin, tmp_path, monkeypatch):
    """The state keeps a digest of each JobSet's fixed fields as rendered when it was made
    (`<name>-jobset-render`); a JobSet this library now renders otherwise keeps what it has."""
    stack = InlineStack("release", training_stack, engine_env, engine_bin, tmp_path)
    stack.up()
    assert not has_new_env(stack, "existing")

    renders_otherwise(monkeypatch)
    stack.settings["trainjobs"] = ["existing", "added"]
    steps, printed = stack.steps("preview")
    assert not_same(steps) == {"added": "create", "added-runtime": "create", "added-podgroup": "create",
                               "added-jobset": "create", "added-jobset-render": "create"}, "the existing JobSet is `same`"
    assert "TrainJob existing: this version of pulumi-kubeflow-trainer renders its JobSet otherwise than the one that made it" in printed
    stack.up()
    assert (has_new_env(stack, "existing"), has_new_env(stack, "added")) == (False, True), "a new TrainJob gets the new rendering"
    assert not_same(stack.steps("preview")[0]) == {}, "a second preview is empty"

    stack.settings["run"] = {"existing": 2}  # a re-run is made anew, as this release renders it
    steps, _ = stack.steps("preview")
    assert not_same(steps) == {"existing-jobset": "replace", "existing-podgroup": "replace", "existing-jobset-render": "replace"}
    stack.up()
    assert has_new_env(stack, "existing")
    steps, printed = stack.steps("preview")
    assert not_same(steps) == {} and "renders its JobSet otherwise" not in printed


@pytest.mark.parametrize("edit", [{"nodes": 3}, {"image": IMAGE_V2}],
                         ids=["numNodes", "the image, an Output (its value, not its place, is the edit)"])
def test_an_edit_of_a_trainjob_made_by_an_earlier_release_takes_the_rendering_of_now(
        engine_env, engine_bin, tmp_path, monkeypatch, edit):
    stack = InlineStack("release-edit", edited_stack, engine_env, engine_bin, tmp_path)
    stack.up()
    renders_otherwise(monkeypatch)
    assert not_same(stack.steps("preview")[0]) == {}
    stack.settings.update(edit)  # an edit of the TrainJob is a new TrainJob: rendered as this release renders it
    steps, _ = stack.steps("preview")
    assert not_same(steps) == {"edited-jobset-render": "replace", "edited-jobset": "replace"}
    stack.up()
    assert has_new_env(stack, "edited") and image_of(stack, "edited") == edit.get("image", IMAGE_V1)
    assert not has_new_env(stack, "other"), "the TrainJob nobody edited keeps its JobSet"
    assert not_same(stack.steps("preview")[0]) == {}, "a second preview is empty"
    stack.settings["suspend"] = True  # suspend is an update in place, not an edit of what runs
    steps, _ = stack.steps("preview")
    assert not_same(steps) == {"edited": "update", "edited-jobset": "update"}


def edited_stack(opts: pulumi.ResourceOptions, settings: dict[str, Any]) -> None:
    """`edited`, which the test edits, beside `other` on the same runtime, which nobody touches: every
    step's expected changes are `edited`'s only."""
    image = pulumi.Output.from_input(settings.get("image", IMAGE_V1))  # as from an image build
    TrainJob("edited", runtime_ref="torch-distributed", namespace="team-a", suspend=settings.get("suspend"),
             trainer=TrainerArgs(image=image, num_nodes=settings.get("nodes", 2)), opts=opts)
    TrainJob("other", runtime_ref="torch-distributed", namespace="team-a", trainer=TrainerArgs(image=IMAGE_V1), opts=opts)


def controller_stack(opts: pulumi.ResourceOptions, settings: dict[str, Any]) -> None:
    runtime = ClusterTrainingRuntime("torch-platform", platform_runtime(settings.get("image", IMAGE_V1)),
                                     controller="kubeflow", opts=opts)
    for name in settings.get("trainjobs", ["existing"]):
        TrainJob(name, runtime=runtime, namespace="team-a", controller="kubeflow", opts=opts)


def test_in_controller_mode_a_runtime_edit_updates_the_runtime_object_and_says_the_controller_decides(
        engine_env, engine_bin, tmp_path):
    stack = InlineStack("controller", controller_stack, engine_env, engine_bin, tmp_path)
    stack.up()
    stack.settings.update(image=IMAGE_V2, trainjobs=["existing", "added"])
    steps, printed = stack.steps("preview")
    assert not_same(steps) == {
        "torch-platform-clustertrainingruntime": "update",  # the runtime object the controller reads
        "added": "create", "added-runtime": "create", "added-trainjob": "create", "added-prediction": "create",
        "text": "create",
    }, "the existing TrainJob object is left as it is"
    assert "the Trainer controller uses it for TrainJobs it creates and re-applies it to suspended ones" in printed
    assert "1 existing TrainJob of this stack was created with revision " in printed and "(existing)" in printed
    with pytest.raises(pulumi.RunError, match=r"runtime_pin: Forbidden: in controller mode the Trainer controller reads"):
        TrainJob("pinned", runtime_ref="torch-distributed", controller="kubeflow", runtime_pin=1)
