"""RuntimePatches through render (SEMANTICS §1.5, §3.2(2), §4.2, §7.1, §7.11): strategic merge into the
runtime's JobSet template, the job order restored, and the webhook's patch rules."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from pulumi_kubeflow_trainer import render
from pulumi_kubeflow_trainer.framework.context import RenderContext
from pulumi_kubeflow_trainer.framework.errors import TrainJobInvalidError
from pulumi_kubeflow_trainer.rendering import Renderer
from pulumi_kubeflow_trainer.ssh import seeded_key_generator
from tests.builders import (
    RuntimeBuilder,
    TrainJobBuilder,
    by_kind,
    container,
    env_names,
    jobset_container,
    jobset_job,
    make_runtime,
    make_trainjob,
    pod_spec,
    render_one,
    replicated_job,
    validate_one,
)

KUEUE = "kueue.x-k8s.io/manager"
ENV_LOCKED = "must not have envs for the dataset-initializer, model-initializer, node containers"


def job() -> TrainJobBuilder:
    return make_trainjob("team", "job").runtime_ref("rt")


def runtime() -> RuntimeBuilder:
    side = container("side", "side:1", env=[{"name": "A", "value": "1"}, {"name": "B", "value": "2"}], volumeMounts=[{"name": "v", "mountPath": "/a"}])
    return make_runtime("rt").torch().trainer(
        container(), side, nodeSelector={"pool": "cpu", "zone": "a"}, tolerations=[{"key": "old"}], volumes=[{"name": "v", "emptyDir": {}}]
    )


def pod_patch(job_name: str = "node", **pod: Any) -> dict[str, Any]:
    return {"name": job_name, "template": {"spec": {"template": {"spec": pod}}}}


def env(*pairs: tuple[str, str]) -> list[dict[str, str]]:
    return [{"name": name, "value": value} for name, value in pairs]


def test_env_merges_by_name_in_strategic_merge_order() -> None:
    trainjob = job().runtime_patch(KUEUE, jobs=[pod_patch(containers=[{"name": "side", "env": env(("A", "x"), ("C", "3"))}])])
    side = jobset_container(render_one(trainjob, runtime()), "node", "side")
    assert side["env"] == env(("A", "x"), ("C", "3"), ("B", "2"))


@dataclass(frozen=True)
class PodCase:
    name: str
    patch: dict[str, Any]
    field: str
    want: Any


POD_CASES = [
    PodCase("nodeSelector merges key by key", {"nodeSelector": {"zone": "b", "gpu": "h100"}}, "nodeSelector", {"pool": "cpu", "zone": "b", "gpu": "h100"}),
    PodCase("tolerations are replaced as a whole", {"tolerations": [{"key": "new", "operator": "Exists"}]}, "tolerations", [{"key": "new", "operator": "Exists"}]),
    PodCase(
        "scheduling gates are added",
        {"schedulingGates": [{"name": "kueue.x-k8s.io/admission"}]},
        "schedulingGates",
        [{"name": "kueue.x-k8s.io/admission"}],
    ),
    PodCase(
        "volumes merge by name",
        {"volumes": [{"name": "v", "emptyDir": {"medium": "Memory"}}, {"name": "w", "emptyDir": {}}]},
        "volumes",
        [{"name": "v", "emptyDir": {"medium": "Memory"}}, {"name": "w", "emptyDir": {}}],
    ),
    PodCase(
        "affinity merges recursively and replaces its unkeyed lists",
        {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": []}]}}}},
        "affinity",
        {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": []}]}}},
    ),
    PodCase("the service account is set", {"serviceAccountName": "trainer"}, "serviceAccountName", "trainer"),
]


@pytest.mark.parametrize("case", POD_CASES, ids=lambda case: case.name)
def test_pod_spec_patches(case: PodCase) -> None:
    trainjob = job().runtime_patch(KUEUE, jobs=[pod_patch(**case.patch)])
    assert pod_spec(render_one(trainjob, runtime()), "node")[case.field] == case.want


def test_volume_mounts_merge_by_mount_path_not_name() -> None:
    trainjob = job().runtime_patch(KUEUE, jobs=[pod_patch(containers=[{"name": "side", "volumeMounts": [{"name": "v", "mountPath": "/b"}]}])])
    mounts = jobset_container(render_one(trainjob, runtime()), "node", "side")["volumeMounts"]
    assert mounts == [{"name": "v", "mountPath": "/b"}, {"name": "v", "mountPath": "/a"}]


def test_later_patches_win_and_apply_in_list_order() -> None:
    trainjob = job().runtime_patch("one.io/m", jobs=[pod_patch(nodeSelector={"zone": "b"})]).runtime_patch(
        "two.io/m", jobs=[pod_patch(nodeSelector={"zone": "c"})]
    )
    assert pod_spec(render_one(trainjob, runtime()), "node")["nodeSelector"] == {"pool": "cpu", "zone": "c"}


def test_job_and_pod_template_metadata_are_merged() -> None:
    patch = {
        "name": "node",
        "template": {"metadata": {"labels": {"job": "l"}}, "spec": {"template": {"metadata": {"annotations": {"pod": "a"}}}}},
    }
    replicated = jobset_job(render_one(job().runtime_patch(KUEUE, jobs=[patch]), runtime()), "node")
    assert replicated["template"]["metadata"]["labels"] == {"trainer.kubeflow.org/trainjob-ancestor-step": "trainer", "job": "l"}
    assert replicated["template"]["spec"]["template"]["metadata"] == {"annotations": {"pod": "a"}}


def three_jobs() -> RuntimeBuilder:
    return (
        make_runtime("rt")
        .torch()
        .job(replicated_job("a", container("a", "a:1")))
        .trainer()
        .job(replicated_job("c", container("c", "c:1")))
    )


def test_the_runtime_job_order_is_restored_after_the_merge() -> None:
    trainjob = job().runtime_patch(KUEUE, jobs=[pod_patch("c", nodeSelector={"x": "1"}), pod_patch("a", nodeSelector={"x": "2"})])
    jobs = by_kind(render_one(trainjob, three_jobs()), "JobSet")["spec"]["replicatedJobs"]
    assert [item["name"] for item in jobs] == ["a", "node", "c"]
    assert [item["template"]["spec"]["template"]["spec"].get("nodeSelector") for item in jobs] == [{"x": "2"}, None, {"x": "1"}]


def test_patches_apply_before_the_ml_policy_so_framework_env_still_lands() -> None:
    trainjob = job().num_nodes(2).runtime_patch(KUEUE, jobs=[pod_patch(containers=[{"name": "node", "securityContext": {"runAsUser": 1}}])])
    node = jobset_container(render_one(trainjob, runtime()), "node")
    assert node["securityContext"] == {"runAsUser": 1}
    assert env_names(node)[:2] == ["PET_NNODES", "PET_NPROC_PER_NODE"]


def test_a_metadata_only_patch_leaves_the_jobs_untouched() -> None:
    plain = by_kind(render_one(job(), runtime()), "JobSet")["spec"]
    patched = by_kind(render_one(job().runtime_patch(KUEUE, labels={"q": "x"}), runtime()), "JobSet")["spec"]
    assert patched == plain


@dataclass(frozen=True)
class Locked:
    name: str
    runtime: RuntimeBuilder
    patch: dict[str, Any]


LOCKED = [
    Locked("env on the node container is rejected", runtime(), pod_patch(containers=[{"name": "node", "env": env(("A", "1"))}])),
    Locked(
        "env on the dataset-initializer container is rejected",
        make_runtime("rt").torch().initializers().trainer(),
        pod_patch("dataset-initializer", containers=[{"name": "dataset-initializer", "env": env(("A", "1"))}]),
    ),
    Locked(
        "env on the model-initializer container is rejected",
        make_runtime("rt").torch().initializers().trainer(),
        pod_patch("model-initializer", containers=[{"name": "model-initializer", "env": env(("A", "1"))}]),
    ),
]


@pytest.mark.parametrize("case", LOCKED, ids=lambda case: case.name)
def test_env_on_managed_containers_is_rejected(case: Locked) -> None:
    trainjob = job().runtime_patch(KUEUE, jobs=[case.patch])
    verdict = validate_one(trainjob, case.runtime)
    assert [error.path for error in verdict.errors] == ["spec.runtimePatches"]
    assert ENV_LOCKED in verdict.errors[0].message
    with pytest.raises(TrainJobInvalidError, match=ENV_LOCKED):
        render_one(trainjob, case.runtime)


def test_env_on_other_containers_is_accepted() -> None:
    trainjob = job().runtime_patch(KUEUE, jobs=[pod_patch(containers=[{"name": "side", "env": env(("A", "1"))}])])
    assert validate_one(trainjob, runtime()).errors == []


def test_a_patch_that_only_secures_the_node_container_is_accepted() -> None:
    trainjob = job().runtime_patch(KUEUE, jobs=[pod_patch(containers=[{"name": "node", "securityContext": {}}])])
    assert validate_one(trainjob, runtime()).errors == []


@dataclass(frozen=True)
class Added:
    name: str
    patch: dict[str, Any]
    warning: str
    error: str


ADDED = [
    Added(
        "a patch naming a job the runtime lacks",
        pod_patch("trainer", nodeSelector={"x": "1"}),
        "replicated job 'trainer' does not exist in the runtime job template",
        "a runtime patch adds replicated job 'trainer', which the runtime does not have (it has: 'node')",
    ),
    Added(
        "a patch naming a container the runtime lacks (the docs' `trainer`, §7.15)",
        pod_patch(containers=[{"name": "trainer", "securityContext": {}}]),
        "must not have container that doesn't exist in the runtime job node: 'trainer'",
        "container 'trainer' of replicated job 'node' has no image",
    ),
    Added(
        "a patch naming an init container the runtime lacks",
        pod_patch(initContainers=[{"name": "warmup", "securityContext": {}}]),
        "must not have initContainer that doesn't exist in the runtime job node: 'warmup'",
        "initContainer 'warmup' of replicated job 'node' has no image",
    ),
]


@pytest.mark.parametrize("case", ADDED, ids=lambda case: case.name)
def test_added_jobs_and_containers_only_warn_in_validate(case: Added) -> None:
    # Upstream checks them after merging the patch, where they always exist (§7.1): no webhook error.
    verdict = validate_one(job().runtime_patch(KUEUE, jobs=[case.patch]), runtime())
    assert verdict.errors == []
    assert any(case.warning in warning for warning in verdict.warnings), verdict.warnings


@pytest.mark.parametrize("case", ADDED, ids=lambda case: case.name)
def test_added_jobs_and_containers_render_with_a_warning_as_upstream_renders_them(case: Added) -> None:
    # Upstream renders them; where only the TrainJob is admitted, a warning says why.
    renderer = Renderer([runtime().build()], context=RenderContext(key_generator=seeded_key_generator("t")), refuse_undeployable=False)
    renderer.render(job().runtime_patch(KUEUE, jobs=[case.patch]).build())
    assert any(w.startswith("TrainJob/job: spec.runtimePatches: ") and case.error in w for w in renderer.warnings), renderer.warnings


@pytest.mark.parametrize("case", ADDED, ids=lambda case: case.name)
def test_added_containers_without_an_image_are_refused_where_the_jobset_is_made(case: Added) -> None:
    """A container a patch invents has no image: the API server refuses its Pods, so a render that creates
    the JobSet stops; a job a patch invents (its containers come from the patch) only warns."""
    trainjob = job().runtime_patch(KUEUE, jobs=[case.patch]).build()
    renderer = Renderer([runtime().build()], context=RenderContext(key_generator=seeded_key_generator("t")))
    if "has no image" not in case.error:
        assert renderer.render(trainjob) and any(case.error in w for w in renderer.warnings)
        return
    with pytest.raises(TrainJobInvalidError) as raised:
        renderer.render(trainjob)
    assert [error.path for error in raised.value.errors] == ["spec.runtimePatches"] and case.error in str(raised.value)


@pytest.mark.parametrize("case", ADDED, ids=lambda case: case.name)
def test_added_jobs_and_containers_are_refused_in_strict_mode(case: Added) -> None:
    renderer = Renderer([runtime().build()], context=RenderContext(key_generator=seeded_key_generator("t")), strict=True)
    with pytest.raises(TrainJobInvalidError) as raised:
        renderer.render(job().runtime_patch(KUEUE, jobs=[case.patch]).build())
    assert [error.path for error in raised.value.errors] == ["spec.runtimePatches"]
    assert case.error in raised.value.errors[0].message
    assert str(raised.value).startswith("TrainJob/job: spec.runtimePatches: ")


@pytest.mark.parametrize(
    ("field", "value"),
    [("image", "evil:latest"), ("command", ["sh"]), ("resources", {"limits": {"cpu": "64"}})],
)
def test_restricted_container_fields_in_a_patch_stop_the_render(field: str, value: Any) -> None:
    trainjob = job().runtime_patch(KUEUE, jobs=[pod_patch(containers=[{"name": "node", field: value}])])
    with pytest.raises(TrainJobInvalidError) as raised:
        render([runtime().obj(), trainjob.obj()])
    (error,) = raised.value.errors
    assert error.path.endswith(f".containers[0].{field}")
    assert error.message.startswith("Unsupported field")
