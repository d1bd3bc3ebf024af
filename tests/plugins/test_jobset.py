"""JobSet plugin (SEMANTICS §3.2, §3.12, §4.2, §7.6): pre-build sync, the JobSet builder, initializer rules."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import pytest

from pulumi_kubeflow_trainer.api import constants as c
from pulumi_kubeflow_trainer.framework.compiled import CompiledRuntime
from pulumi_kubeflow_trainer.framework.context import RenderContext
from pulumi_kubeflow_trainer.framework.errors import TrainJobInvalidError
from pulumi_kubeflow_trainer.framework.template import build_runtime_info
from pulumi_kubeflow_trainer.plugins import default_framework
from pulumi_kubeflow_trainer.plugins.jobset import JobSetPlugin
from pulumi_kubeflow_trainer.rendering import Renderer
from tests.builders import (
    RuntimeBuilder,
    TrainJobBuilder,
    by_kind,
    container,
    env_of,
    job_counts,
    jobset_container,
    jobset_job,
    make_runtime,
    make_trainjob,
    render_one,
    replicated_job,
    validate_one,
)

MOUNT = [{"name": "initializer", "mountPath": "/workspace"}]


def job() -> TrainJobBuilder:
    return make_trainjob("team", "job").runtime_ref("rt")


def torch() -> RuntimeBuilder:
    return make_runtime("rt").torch()


def unchecked(runtime: RuntimeBuilder) -> RuntimeBuilder:
    """A runtime the runtime webhook skips, to reach the builder with what it would reject."""
    return runtime.label(c.LABEL_WEBHOOK_VALIDATION, "disabled")


def with_job_spec(runtime: RuntimeBuilder, index: int, **spec: Any) -> RuntimeBuilder:
    runtime.manifest["spec"]["template"]["spec"]["replicatedJobs"][index]["template"]["spec"].update(spec)
    return runtime


def with_replicas(runtime: RuntimeBuilder, index: int, replicas: int) -> RuntimeBuilder:
    runtime.manifest["spec"]["template"]["spec"]["replicatedJobs"][index]["replicas"] = replicas
    return runtime


def pod_sets_after_sync(trainjob: TrainJobBuilder, runtime: RuntimeBuilder) -> dict[str, list[str]]:
    model = trainjob.build()
    framework = default_framework()
    info = build_runtime_info(model, framework.plan(CompiledRuntime.of(runtime.build())))
    for plugin in framework.ml_policy_enforcers:
        plugin.enforce_ml_policy(info, model)
    JobSetPlugin().pre_build_sync(info, model)
    return {pod_set.name: pod_set.endpoints for pod_set in info.pod_sets}


@dataclass(frozen=True)
class Endpoints:
    name: str
    trainjob: TrainJobBuilder
    runtime: RuntimeBuilder
    want: dict[str, list[str]]


ENDPOINT_CASES = [
    Endpoints(
        "one endpoint per pod under the trainjob name",
        job().num_nodes(2),
        torch().trainer(),
        {"node": ["job-node-0-0.job", "job-node-0-1.job"]},
    ),
    Endpoints(
        "the network subdomain replaces the trainjob name",
        job().num_nodes(1),
        torch().trainer().template_spec(network={"subdomain": "sub"}),
        {"node": ["job-node-0-0.sub"]},
    ),
    Endpoints(
        "every replica of a job has its pods",
        job(),
        with_job_spec(with_replicas(torch().trainer().job(replicated_job("ps", container("ps", "ps:1"))), 1, 2), 1, parallelism=2),
        {"node": ["job-node-0-0.job"], "ps": ["job-ps-0-0.job", "job-ps-0-1.job", "job-ps-1-0.job", "job-ps-1-1.job"]},
    ),
    Endpoints("no endpoints for zero nodes", job().num_nodes(0), torch().trainer(), {"node": []}),
]


@pytest.mark.parametrize("case", ENDPOINT_CASES, ids=lambda case: case.name)
def test_pre_build_sync_endpoints(case: Endpoints) -> None:
    assert pod_sets_after_sync(case.trainjob, case.runtime) == case.want


@dataclass(frozen=True)
class Counts:
    name: str
    trainjob: TrainJobBuilder
    runtime: RuntimeBuilder
    want: dict[str, tuple[int, int]]


COUNT_CASES = [
    Counts(
        "initializers without parallelism get one pod",
        job().num_nodes(2),
        torch().initializers().trainer(),
        {"dataset-initializer": (1, 1), "model-initializer": (1, 1), "node": (2, 2)},
    ),
    Counts(
        "completions are overwritten with parallelism (§7.6)",
        job(),
        with_job_spec(torch().trainer().job(replicated_job("aux", container("aux", "aux:1"))), 1, parallelism=2, completions=5),
        {"node": (1, 1), "aux": (2, 2)},
    ),
    Counts(
        "the trainer's template parallelism is replaced by the node count",
        job().num_nodes(3),
        with_job_spec(torch().trainer(), 0, parallelism=8, completions=8),
        {"node": (3, 3)},
    ),
    Counts(
        "a template parallelism of zero becomes one (max(count, 1))",
        job(),
        with_job_spec(torch().trainer().job(replicated_job("aux", container("aux", "aux:1"))), 1, parallelism=0),
        {"node": (1, 1), "aux": (1, 1)},
    ),
]


@pytest.mark.parametrize("case", COUNT_CASES, ids=lambda case: case.name)
def test_pre_build_sync_parallelism_and_completions(case: Counts) -> None:
    assert job_counts(render_one(case.trainjob, case.runtime)) == case.want


def initializer_runtime(dataset_env: list[dict[str, Any]] | None = None) -> RuntimeBuilder:
    dataset = container("dataset-initializer", "dataset:1", volumeMounts=MOUNT, env=dataset_env or [], envFrom=[{"configMapRef": {"name": "defaults"}}])
    model = container("model-initializer", "model:1", volumeMounts=MOUNT)
    return (
        torch()
        .job(replicated_job("dataset-initializer", dataset, ancestor="dataset-initializer"))
        .job(replicated_job("model-initializer", model, ancestor="model-initializer"))
        .trainer()
    )


def test_the_dataset_initializer_gets_uri_then_env_then_secret() -> None:
    rt = initializer_runtime([{"name": "STORAGE_URI", "value": "hf://default"}, {"name": "KEEP", "value": "k"}])
    manifests = render_one(job().dataset("hf://org/data", secret="hf-token", REVISION="main"), rt)
    dataset = jobset_container(manifests, "dataset-initializer", "dataset-initializer")
    assert dataset["env"] == [
        {"name": "STORAGE_URI", "value": "hf://org/data"},
        {"name": "KEEP", "value": "k"},
        {"name": "REVISION", "value": "main"},
    ]
    assert dataset["envFrom"] == [{"configMapRef": {"name": "defaults"}}, {"secretRef": {"name": "hf-token"}}]
    assert "env" not in jobset_container(manifests, "model-initializer", "model-initializer"), "no model config, no change"


def test_the_model_initializer_gets_uri_and_secret() -> None:
    manifests = render_one(job().model("s3://bucket/model", secret="aws"), initializer_runtime())
    model = jobset_container(manifests, "model-initializer", "model-initializer")
    assert model["env"] == [{"name": "STORAGE_URI", "value": "s3://bucket/model"}]
    assert model["envFrom"] == [{"secretRef": {"name": "aws"}}]


def test_env_sources_other_than_field_resource_configmap_and_secret_are_dropped() -> None:
    env = [
        {"name": "FIELD", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}},
        {"name": "RES", "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu", "divisor": "1"}}},
        {"name": "CM", "valueFrom": {"configMapKeyRef": {"name": "cm", "key": "k", "optional": True}}},
        {"name": "SEC", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k"}}},
        {"name": "FILE", "valueFrom": {"fileKeyRef": {"path": "/x", "key": "k", "volumeName": "v"}}},
    ]
    rt = initializer_runtime()
    dataset = jobset_container(render_one(job().set("spec.initializer", {"dataset": {"env": env}}), rt), "dataset-initializer", "dataset-initializer")
    assert dataset["env"] == [
        {"name": "FIELD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
        env[1],
        env[2],
        env[3],
        {"name": "FILE"},
    ]


def test_an_empty_storage_uri_keeps_the_runtime_default() -> None:
    rt = initializer_runtime([{"name": "STORAGE_URI", "value": "hf://default"}])
    dataset = jobset_container(render_one(job().dataset("", TOKEN="t"), rt), "dataset-initializer", "dataset-initializer")
    assert env_of(dataset) == {"STORAGE_URI": "hf://default", "TOKEN": "t"}


def test_initializer_and_trainer_jobs_get_one_replica() -> None:
    rt = unchecked(with_replicas(with_replicas(initializer_runtime(), 0, 3), 2, 2))
    manifests = render_one(job().dataset("hf://a/b"), rt)
    assert [jobset_job(manifests, name)["replicas"] for name in ("dataset-initializer", "model-initializer", "node")] == [1, 1, 1]


def test_other_jobs_keep_their_replicas() -> None:
    rt = with_replicas(torch().trainer().job(replicated_job("aux", container("aux", "aux:1"))), 1, 3)
    assert jobset_job(render_one(job(), rt), "aux")["replicas"] == 3


def test_the_trainer_gets_image_command_args_and_env() -> None:
    rt = torch().trainer(container(image="runtime:1", command=["python"], args=["a.py"], env=[{"name": "R", "value": "r"}]))
    node = jobset_container(render_one(job().image("user:2").command("python", "-m", "x").args("--y").env(U="u"), rt), "node")
    assert (node["image"], node["command"], node["args"]) == ("user:2", ["python", "-m", "x"], ["--y"])
    assert list(env_of(node))[:2] == ["R", "U"]


def test_an_unset_trainer_image_command_and_args_keep_the_runtime_values() -> None:
    rt = torch().trainer(container(image="runtime:1", command=["python"], args=["a.py"]))
    node = jobset_container(render_one(job().num_nodes(1), rt), "node")
    assert (node["image"], node["command"], node["args"]) == ("runtime:1", ["python"], ["a.py"])


def test_the_trainer_image_reaches_only_the_trainer_job() -> None:
    rt = torch().trainer().job(replicated_job("aux", container(image="aux:1")))
    manifests = render_one(job().image("user:2"), rt)
    assert jobset_container(manifests, "aux")["image"] == "aux:1"


@pytest.mark.parametrize(("suspend", "want"), [(None, "absent"), (False, False), (True, True)])
def test_suspend_is_copied_only_when_set(suspend: bool | None, want: Any) -> None:
    trainjob = job() if suspend is None else job().suspend(suspend)
    spec = by_kind(render_one(trainjob, torch().trainer()), "JobSet")["spec"]
    assert spec.get("suspend", "absent") == want


def test_jobset_metadata_comes_from_the_runtime_template_and_patches_in_order() -> None:
    rt = torch().trainer().template_metadata(labels={"a": "runtime", "b": "runtime"}, annotations={"x": "runtime"})
    rt.label("runtime-object-label", "not-copied")
    trainjob = (
        job()
        .set("metadata.labels", {"app": "not-copied"})
        .runtime_patch("one.io/m", labels={"b": "one", "c": "one"})
        .runtime_patch("two.io/m", labels={"c": "two"}, annotations={"y": "two"})
    )
    metadata = by_kind(render_one(trainjob, rt), "JobSet")["metadata"]
    assert metadata["labels"] == {"a": "runtime", "b": "one", "c": "two"}
    assert metadata["annotations"] == {"x": "runtime", "y": "two"}


def test_the_trainjobs_kueue_labels_go_on_the_jobset_and_win() -> None:
    """No TrainJob object exists once rendered, so Kueue must find its labels on the JobSet."""
    rt = torch().trainer().template_metadata(labels={"kueue.x-k8s.io/queue-name": "runtime-queue", "a": "runtime"})
    trainjob = job().set("metadata.labels", {
        "kueue.x-k8s.io/queue-name": "team-a", "kueue.x-k8s.io/priority-class": "high", "app": "not-copied",
    })
    labels = by_kind(render_one(trainjob, rt), "JobSet")["metadata"]["labels"]
    assert labels == {"kueue.x-k8s.io/queue-name": "team-a", "kueue.x-k8s.io/priority-class": "high", "a": "runtime"}
    pods = by_kind(render_one(trainjob, rt), "JobSet")["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]
    assert "kueue.x-k8s.io/queue-name" not in (pods.get("metadata") or {}).get("labels", {})


@pytest.mark.parametrize("field", ["command", "args"])
def test_an_empty_trainer_list_leaves_the_container_without_one(field: str) -> None:
    """Upstream's builder copies them when given (`!= nil`): `[]` replaces the runtime's with none."""
    rt = torch().trainer(container(command=["python", "t.py"], args=["--lr", "1"]))
    node = jobset_container(render_one(job().set(f"spec.trainer.{field}", []), rt), "node")
    assert field not in node
    assert node["command" if field == "args" else "args"]


def test_no_labels_or_annotations_are_added_of_our_own() -> None:
    metadata = by_kind(render_one(job(), torch().trainer()), "JobSet")["metadata"]
    assert metadata == {"name": "job", "namespace": "team"}


def test_owner_references_only_with_a_uid() -> None:
    with_uid = by_kind(render_one(job().uid("u-1"), torch().trainer()), "JobSet")["metadata"]
    assert with_uid["ownerReferences"] == [
        {"apiVersion": c.API_VERSION_UPSTREAM, "kind": "TrainJob", "name": "job", "uid": "u-1", "controller": True, "blockOwnerDeletion": True}
    ]


def test_a_trainjob_without_namespace_gives_a_jobset_without_one() -> None:
    trainjob = make_trainjob().runtime_ref("rt").set("metadata", {"name": "job"})
    assert by_kind(render_one(trainjob, torch().trainer()), "JobSet")["metadata"] == {"name": "job"}


PASS_THROUGH = {
    "network": {"enableDNSHostnames": True, "publishNotReadyAddresses": True, "subdomain": "s"},
    "successPolicy": {"operator": "All", "targetReplicatedJobs": ["node"]},
    "failurePolicy": {"maxRestarts": 3},
    "startupPolicy": {"startupPolicyOrder": "AnyOrder"},
    "ttlSecondsAfterFinished": 60,
    "coordinator": {"replicatedJob": "node", "jobIndex": 0, "podIndex": 0},
    "volumeClaimPolicies": [{"templates": [{"metadata": {"name": "initializer"}, "spec": {"accessModes": ["ReadWriteOnce"]}}]}],
}


def test_runtime_spec_fields_pass_through_unchanged() -> None:
    spec = by_kind(render_one(job(), torch().trainer().template_spec(**PASS_THROUGH)), "JobSet")["spec"]
    assert {key: spec[key] for key in PASS_THROUGH} == PASS_THROUGH
    assert "managedBy" not in spec


def test_resources_per_node_merge_per_resource_with_the_trainjob_winning() -> None:
    runtime_resources = {"limits": {"cpu": "2", "memory": "4Gi"}, "requests": {"cpu": "1"}, "claims": [{"name": "a"}, {"name": "b"}]}
    rt = torch().trainer(container(resources=runtime_resources), container("side", "side:1", resources={"limits": {"cpu": "1"}}))
    trainjob = job().resources(limits={"cpu": "8", "nvidia.com/gpu": 1}, claims=[{"name": "b", "request": "x"}, {"name": "c"}])
    manifests = render_one(trainjob, rt)
    assert jobset_container(manifests, "node")["resources"] == {
        "limits": {"cpu": "8", "memory": "4Gi", "nvidia.com/gpu": "1"},
        "requests": {"cpu": "1"},
        "claims": [{"name": "a"}, {"name": "b", "request": "x"}, {"name": "c"}],
    }
    assert jobset_container(manifests, "node", "side")["resources"] == {"limits": {"cpu": "1"}}


@pytest.mark.parametrize("given", [{"limits": {}}, {"limits": {}, "requests": {}}, {}])
def test_empty_resource_maps_of_the_trainjob_are_dropped_as_upstream_drops_them(given: dict[str, Any]) -> None:
    """Upstream serialises resourcesPerNode before its strategic merge; omitempty drops the empty maps."""
    node = jobset_container(render_one(job().resources(**given), torch().trainer()), "node")
    assert node.get("resources", {}) == {}


def test_an_empty_limits_map_leaves_the_requests_alone() -> None:
    node = jobset_container(render_one(job().resources(limits={}, requests={"cpu": 1}), torch().trainer()), "node")
    assert node["resources"] == {"requests": {"cpu": "1"}}


def test_quantities_reach_the_jobset_in_canonical_form() -> None:
    node = jobset_container(render_one(job().resources(limits={"cpu": "0.5", "memory": "1.5Gi"}), torch().trainer()), "node")
    assert node["resources"] == {"limits": {"cpu": "500m", "memory": "1536Mi"}}


@dataclass(frozen=True)
class Invalid:
    name: str
    trainjob: TrainJobBuilder
    runtime: RuntimeBuilder
    path: str
    says: str


NO_MOUNT = torch().job(replicated_job("dataset-initializer", container("dataset-initializer", "d:1"), ancestor="dataset-initializer")).trainer()
WRONG_CONTAINER = unchecked(torch().job(replicated_job("model-initializer", container("loader", "d:1"), ancestor="model-initializer")).trainer())

INVALID = [
    Invalid(
        "a dataset config needs a dataset-initializer job",
        job().dataset("hf://a/b"),
        torch().trainer(),
        "spec.runtimeRef",
        "must have dataset-initializer job when trainJob is configured with input datasetConfig",
    ),
    Invalid(
        "a model config needs a model-initializer job",
        job().model("hf://a/b"),
        torch().trainer(),
        "spec.runtimeRef",
        "must have model-initializer job when trainJob is configured with input modelConfig",
    ),
    Invalid(
        "the initializer job needs a container of its name",
        job().model("hf://a/b"),
        WRONG_CONTAINER,
        "spec.runtimeRef",
        "must have container with name - model-initializer in the model-initializer job",
    ),
    Invalid(
        "the initializer container needs the initializer volume mount",
        job().dataset("hf://a/b"),
        NO_MOUNT,
        "spec.runtimeRef",
        "must have volumeMount with name - initializer in container dataset-initializer of the dataset-initializer job",
    ),
    Invalid(
        "a patch manager must be a domain-prefixed path",
        job().runtime_patch("kueue"),
        torch().trainer(),
        "spec.runtimePatches.manager",
        'must be a domain-prefixed path (such as "acme.io/foo")',
    ),
    Invalid(
        "a patch manager's domain must be a lower-case DNS subdomain",
        job().runtime_patch("Kueue.IO/manager"),
        torch().trainer(),
        "spec.runtimePatches.manager",
        "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters",
    ),
    Invalid(
        "a patch manager's path must be a valid path",
        job().runtime_patch("kueue.x-k8s.io/a b"),
        torch().trainer(),
        "spec.runtimePatches.manager",
        "Invalid path",
    ),
    Invalid(
        "more trainer nodes than an Indexed Job may run is refused before any endpoint is listed",
        job().num_nodes(2**31 - 1),
        torch().trainer(),
        "spec.trainer.numNodes",
        "would run 2147483647 pods; Kubernetes runs at most 100000 per Indexed Job",
    ),
    Invalid(
        "a runtime job whose replicas times parallelism exceed the limit names the runtime",
        job().num_nodes(1),
        with_replicas(with_job_spec(torch().trainer().job(replicated_job("aux", container("aux", "aux:1"))), 1, parallelism=1000), 1, 101),
        "spec.runtimeRef",
        "replicated job 'aux' would run 101000 pods",
    ),
]


@pytest.mark.parametrize("case", INVALID, ids=lambda case: case.name)
def test_validation(case: Invalid) -> None:
    from pulumi_kubeflow_trainer.framework.errors import TrainJobInvalidError

    verdict = validate_one(case.trainjob, case.runtime)
    errors = verdict.errors
    if not errors:  # rules about the built JobSet fire at render time
        with pytest.raises(TrainJobInvalidError) as raised:
            render_one(case.trainjob, case.runtime)
        errors = raised.value.errors
    assert [error.path for error in errors] == [case.path]
    assert case.says in errors[0].message


def test_a_trainer_image_from_the_trainjob_fills_an_image_less_runtime() -> None:
    node = jobset_container(render_one(job().image("user:1"), torch().trainer(container(image=None))), "node")
    assert node["image"] == "user:1"


@pytest.mark.parametrize("manager", ["kueue.x-k8s.io/manager", "trainer.kubeflow.org/sdk", "acme.io/foo/bar"])
def test_domain_prefixed_managers_are_accepted(manager: str) -> None:
    assert validate_one(job().runtime_patch(manager), torch().trainer()).errors == []


def test_a_trainer_container_without_an_image_is_refused_where_the_jobset_is_made_and_a_warning_where_admitted() -> None:
    """Upstream renders it (its own test fixtures have no images); the API server then refuses the Pods.
    Where this library creates the JobSet it stops; where only the TrainJob is admitted it warns."""
    runtime = torch().trainer(container(image=None)).build()
    with pytest.raises(TrainJobInvalidError) as raised:
        Renderer([runtime]).render(job().num_nodes(1).build())
    assert [str(error) for error in raised.value.errors] == [
        "spec.trainer.image: Required value: container 'node' of replicated job 'node' has no image, "
        "so the JobSet would be rejected; set spec.trainer.image"
    ]
    admitting = Renderer([runtime], refuse_undeployable=False)
    node = jobset_container(admitting.render(job().num_nodes(1).build()), "node")
    assert "image" not in node
    assert [w for w in admitting.warnings if "has no image" in w] == [f"TrainJob/job: {raised.value.errors[0]}"]


def test_strict_mode_refuses_a_container_without_an_image_even_where_admitted() -> None:
    renderer = Renderer([torch().trainer(container(image=None)).build()], strict=True, refuse_undeployable=False)
    with pytest.raises(TrainJobInvalidError) as raised:
        renderer.render(job().num_nodes(1).build())
    assert [error.path for error in raised.value.errors] == ["spec.trainer.image"]


def test_render_refuses_what_the_cluster_refuses_warns_through_python_warnings_and_strict_refuses() -> None:
    from pulumi_kubeflow_trainer import render
    from pulumi_kubeflow_trainer.rendering import TrainerWarning

    with pytest.raises(TrainJobInvalidError, match="has no image"):
        render([torch().trainer(container(image=None)).build(), job().num_nodes(1).build()])
    objects = [torch().trainer().build(), job().num_nodes(1).set("spec.activeDeadlineSeconds", 60).build()]
    with pytest.warns(TrainerWarning, match="has no effect once rendered"):
        assert render(objects)
    with pytest.raises(TrainJobInvalidError, match="has no effect once rendered"):
        render(objects, strict=True)


def test_active_deadline_seconds_is_a_warning_that_says_why_it_is_not_mapped() -> None:
    renderer = Renderer([torch().trainer().build()], context=RenderContext(runtime_snapshot=False))
    jobset = by_kind(renderer.render(job().set("spec.activeDeadlineSeconds", 600).build()), "JobSet")
    assert "activeDeadlineSeconds" not in str(jobset)
    [warning] = [w for w in renderer.warnings if "activeDeadlineSeconds" in w]
    assert warning.startswith("TrainJob/job: spec.activeDeadlineSeconds: Invalid value: 600: has no effect once rendered")
    assert "JobSet v1alpha2 has no deadline" in warning


@pytest.mark.parametrize(("trainjob", "runtime", "path", "says"), [
    (job().num_nodes(-1), torch().trainer(), "spec.trainer.numNodes", "Invalid value: -1: must be greater than or equal to 0"),
    (job().num_proc_per_node(0), torch().trainer(), "spec.trainer.numProcPerNode", "Invalid value: 0: must be greater than or equal to 1"),
    (job(), make_runtime("rt").mpi(numProcPerNode=0).trainer(), "spec.runtimeRef", "ClusterTrainingRuntime/rt sets numProcPerNode below 1"),
    (job(), torch().num_nodes(-2).trainer(), "spec.runtimeRef", "sets mlPolicy.numNodes below 0"),
], ids=["numNodes", "numProcPerNode", "mpi", "runtime numNodes"])
def test_counts_the_crd_accepts_but_nothing_could_run_are_refused_where_rendered_and_warnings_where_admitted(
    trainjob: Any, runtime: Any, path: str, says: str,
) -> None:
    """No minimum in v2.3.0's CRDs (int32) and upstream renders them: its webhook admits the TrainJob (a
    warning here), and the API server refuses the Jobs, so a render that creates them stops."""
    verdict = validate_one(trainjob, runtime)
    assert verdict.errors == []
    [check] = [w for w in verdict.warnings if says in w]
    assert check.startswith(f"{path}: ")
    with pytest.raises(TrainJobInvalidError, match=says):
        Renderer([runtime.build()]).render(trainjob.build())
    assert Renderer([runtime.build()], refuse_undeployable=False).render(trainjob.build())


@pytest.mark.parametrize(
    ("order", "says"),
    [
        (["launcher", "node"], "lists replicated job 'launcher' before 'node', which it depends on; list 'node' first"),
        (["node", "launcher"], None),
    ],
    ids=["a job listed before the job it depends on is refused", "a job listed after the job it depends on is fine"],
)
def test_the_jobset_webhooks_job_order_rule_is_refused_where_rendered(order: list[str], says: str | None) -> None:
    jobs = {
        "launcher": {**replicated_job("launcher", container(), ancestor="trainer"), "dependsOn": [{"name": "node", "status": "Ready"}]},
        "node": replicated_job("node", container()),
    }
    runtime = make_runtime("rt").mpi()
    for name in order:
        runtime = runtime.job(jobs[name])
    message = (f"spec.runtimeRef: Invalid value: 'launcher': ClusterTrainingRuntime/rt {says}: the JobSet "
               "webhook refuses a job that depends on one not listed before it")
    if says:
        with pytest.raises(TrainJobInvalidError, match=re.escape(message)):
            Renderer([runtime.build()]).render(job().num_nodes(1).build())
    admitting = Renderer([runtime.build()], refuse_undeployable=False)
    assert by_kind(admitting.render(job().num_nodes(1).build()), "JobSet")
    assert [w for w in admitting.warnings if "JobSet webhook" in w] == ([f"TrainJob/job: {message}"] if says else [])
