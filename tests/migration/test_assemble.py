"""Each field of a v1 job migrate carries, and where in the TrainJob (or the generated runtime) it lands;
each field it cannot carry, reported at its path. The Pods they make are checked against v1's own in
test_v1jobs.py; here each field is one sentence."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from pulumi_kubeflow_trainer.migration import migrate
from pulumi_kubeflow_trainer.migration.assemble import KUEUE_QUEUE_LABEL, LAST_APPLIED
from pulumi_kubeflow_trainer.migration.plan import PATCH_MANAGER

from ..builders import V1JobBuilder, make_v1_job

POD = ("spec", "runtimePatches", 0, "trainingRuntimeSpec", "template", "spec", "replicatedJobs", 0, "template", "spec", "template")
SLEEPING_WORKERS = ("spec.mpiReplicaSpecs.Worker.template.spec.containers[0].command",
                    "spec.mpiReplicaSpecs.Worker.template.spec.containers[0].args")
RUNTIME_POD = ("spec", "template", "spec", "replicatedJobs", 0, "template", "spec", "template")


def dig(manifest: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        manifest = manifest[part]
    return manifest


@dataclass(frozen=True)
class Carried:
    name: str
    job: V1JobBuilder
    path: tuple[Any, ...]  # in the TrainJob, or with "runtime" first, in the generated TrainingRuntime
    value: Any
    reported: tuple[str, ...] = ()  # what is carried but changes meaning, or what else the job loses


CARRIED = (
    Carried("the image is the trainer's", make_v1_job().container(image="img:2"), ("spec", "trainer", "image"), "img:2"),
    Carried("the command is the trainer's", make_v1_job().container(command=["torchrun", "a.py"]),
            ("spec", "trainer", "command"), ["torchrun", "a.py"]),
    Carried("the args are the trainer's", make_v1_job().container(args=["--lr", "1"]), ("spec", "trainer", "args"), ["--lr", "1"]),
    Carried("the user's env comes first in the trainer's", make_v1_job().container(env=[{"name": "A", "value": "1"}]),
            ("spec", "trainer", "env", 0), {"name": "A", "value": "1"}),
    Carried("resources are the trainer's resourcesPerNode", make_v1_job().container(resources={"limits": {"cpu": "2"}}),
            ("spec", "trainer", "resourcesPerNode"), {"limits": {"cpu": "2"}}),
    Carried("replicas add up to numNodes", make_v1_job().replica("Worker", replicas=3), ("spec", "trainer", "numNodes"), 4),
    Carried("nprocPerNode is numProcPerNode", make_v1_job().spec(nprocPerNode="8"), ("spec", "trainer", "numProcPerNode"), 8),
    Carried("MPI's slotsPerWorker is numProcPerNode", make_v1_job("MPIJob").spec(slotsPerWorker=4),
            ("spec", "trainer", "numProcPerNode"), 4, SLEEPING_WORKERS),
    Carried("MPI's workers are numNodes", make_v1_job("MPIJob").replica("Worker", replicas=5), ("spec", "trainer", "numNodes"), 5,
            SLEEPING_WORKERS),
    Carried("suspend is the TrainJob's", make_v1_job().run_policy(suspend=True), ("spec", "suspend"), True),
    Carried("activeDeadlineSeconds is the TrainJob's", make_v1_job().run_policy(activeDeadlineSeconds=60),
            ("spec", "activeDeadlineSeconds"), 60),
    Carried("the scheduling policy's queue is Kueue's queue label", make_v1_job().run_policy(schedulingPolicy={"queue": "q"}),
            ("metadata", "labels", KUEUE_QUEUE_LABEL), "q"),
    Carried("the job's labels are the TrainJob's", make_v1_job().metadata(labels={"a": "b"}), ("metadata", "labels"), {"a": "b"}),
    Carried("the job's annotations are the TrainJob's", make_v1_job().metadata(annotations={"a": "b"}),
            ("metadata", "annotations"), {"a": "b"}),
    Carried("the namespace is the TrainJob's", make_v1_job().metadata(namespace="ns"), ("metadata", "namespace"), "ns"),
    Carried("pod labels go in the runtime patch", make_v1_job().template_metadata(labels={"a": "b"}),
            (*POD, "metadata", "labels"), {"a": "b"}),
    Carried("pod annotations go in the runtime patch", make_v1_job().template_metadata(annotations={"a": "b"}),
            (*POD, "metadata", "annotations"), {"a": "b"}),
    Carried("a node selector goes in the runtime patch", make_v1_job().pod(nodeSelector={"a": "b"}),
            (*POD, "spec", "nodeSelector"), {"a": "b"}),
    Carried("tolerations go in the runtime patch", make_v1_job().pod(tolerations=[{"key": "a", "operator": "Exists"}]),
            (*POD, "spec", "tolerations"), [{"key": "a", "operator": "Exists"}]),
    Carried("affinity goes in the runtime patch", make_v1_job().pod(affinity={"podAffinity": {}}),
            (*POD, "spec", "affinity"), {"podAffinity": {}}),
    Carried("the service account goes in the runtime patch", make_v1_job().pod(serviceAccountName="sa"),
            (*POD, "spec", "serviceAccountName"), "sa"),
    Carried("image pull secrets go in the runtime patch", make_v1_job().pod(imagePullSecrets=[{"name": "r"}]),
            (*POD, "spec", "imagePullSecrets"), [{"name": "r"}]),
    Carried("volumes go in the runtime patch", make_v1_job().pod(volumes=[{"name": "v", "emptyDir": {}}]),
            (*POD, "spec", "volumes"), [{"name": "v", "emptyDir": {}}]),
    Carried("volume mounts go in the runtime patch", make_v1_job().container(volumeMounts=[{"name": "v", "mountPath": "/v"}]),
            (*POD, "spec", "containers", 0), {"name": "node", "volumeMounts": [{"name": "v", "mountPath": "/v"}]}),
    Carried("scheduling gates go in the runtime patch", make_v1_job().pod(schedulingGates=[{"name": "g"}]),
            (*POD, "spec", "schedulingGates"), [{"name": "g"}]),
    Carried("the termination grace period goes in the runtime patch", make_v1_job().pod(terminationGracePeriodSeconds=5),
            (*POD, "spec", "terminationGracePeriodSeconds"), 5),
    Carried("owner references are the TrainJob's", make_v1_job().metadata(ownerReferences=[{"kind": "Trial", "name": "t"}]),
            ("metadata", "ownerReferences"), [{"kind": "Trial", "name": "t"}]),
    Carried("finalizers are the TrainJob's", make_v1_job().metadata(finalizers=["a.io/f"]), ("metadata", "finalizers"), ["a.io/f"]),
    Carried("PaddlePaddle's rendezvous port is added as v1 adds it", make_v1_job("PaddleJob"),
            ("runtime", *RUNTIME_POD, "spec", "containers", 0, "ports"), [{"name": "master", "containerPort": 36543}]),
    Carried("an MPI launcher with GPUs is a node too", make_v1_job("MPIJob").container("Launcher", resources={"limits": {"nvidia.com/gpu": 1}}),
            ("runtime", "spec", "mlPolicy", "mpi", "runLauncherAsNode"), True, SLEEPING_WORKERS),
    Carried("a pod security context goes in the runtime patch", make_v1_job().pod(securityContext={"fsGroup": 1}),
            (*POD, "spec", "securityContext"), {"fsGroup": 1}),
    Carried("ttlSecondsAfterFinished is the generated runtime's JobSet's", make_v1_job().run_policy(ttlSecondsAfterFinished=9),
            ("runtime", "spec", "template", "spec", "ttlSecondsAfterFinished"), 9, ("spec.runPolicy.ttlSecondsAfterFinished",)),
    Carried("backoffLimit is each Job's of the generated runtime", make_v1_job().run_policy(backoffLimit=2),
            ("runtime", "spec", "template", "spec", "replicatedJobs", 0, "template", "spec", "backoffLimit"), 2,
            ("spec.runPolicy.backoffLimit",)),
    Carried("imagePullPolicy is the generated runtime's", make_v1_job().container(imagePullPolicy="Always"),
            ("runtime", *RUNTIME_POD, "spec", "containers", 0, "imagePullPolicy"), "Always"),
    Carried("a sidecar is the generated runtime's", make_v1_job().pod(containers=[
                {"name": "pytorch", "image": "a"}, {"name": "side", "image": "b"}]),
            ("runtime", *RUNTIME_POD, "spec", "containers", 1), {"name": "side", "image": "b"}),
    Carried("restartPolicy Never is the generated runtime's", make_v1_job().replica(restartPolicy="Never"),
            ("runtime", *RUNTIME_POD, "spec", "restartPolicy"), "Never"),
)


@pytest.mark.parametrize("case", CARRIED, ids=lambda case: case.name)
def test_a_carried_field_lands_where_v2_keeps_it(case: Carried) -> None:
    (job,) = migrate(case.job.build()).jobs
    assert tuple(loss.path for loss in job.losses) == case.reported, [str(loss) for loss in job.losses]
    runtime = next((item for item in job.manifests if item["kind"] == "TrainingRuntime"), None)
    trainjob = job.manifests[-1]
    if case.path[0] == "runtime":
        assert runtime is not None and dig(runtime, case.path[1:]) == case.value
    else:
        assert dig(trainjob, case.path) == case.value
        if case.path[:2] == ("spec", "runtimePatches"):
            assert trainjob["spec"]["runtimePatches"][0]["manager"] == PATCH_MANAGER


def test_a_job_the_bundled_runtime_fits_needs_no_generated_runtime_and_no_patch() -> None:
    (job,) = migrate(make_v1_job().build()).jobs
    assert [item["kind"] for item in job.manifests] == ["TrainJob"]
    assert job.runtime == "torch-distributed" and not job.generated_because
    assert "runtimePatches" not in job.manifests[0]["spec"]


@dataclass(frozen=True)
class Lost:
    name: str
    job: V1JobBuilder
    path: str
    says: str


LOST = (
    Lost("cleanPodPolicy is lost", make_v1_job().run_policy(cleanPodPolicy="All"), "spec.runPolicy.cleanPodPolicy", "no cleanPodPolicy"),
    Lost("cleanPodPolicy None is lost: v2 deletes the Pods still running", make_v1_job().run_policy(cleanPodPolicy="None"),
         "spec.runPolicy.cleanPodPolicy", "still running are deleted"),
    Lost("MPI's spec-level cleanPodPolicy is lost", make_v1_job("MPIJob").spec(cleanPodPolicy="All"), "spec.cleanPodPolicy",
         "no cleanPodPolicy"),
    Lost("minAvailable is lost", make_v1_job().run_policy(schedulingPolicy={"minAvailable": 2}),
         "spec.runPolicy.schedulingPolicy.minAvailable", "podGroupPolicy"),
    Lost("minResources is lost", make_v1_job().run_policy(schedulingPolicy={"minResources": {"cpu": 1}}),
         "spec.runPolicy.schedulingPolicy.minResources", "minResources"),
    Lost("the scheduling priority class is lost", make_v1_job().run_policy(schedulingPolicy={"priorityClass": "p"}),
         "spec.runPolicy.schedulingPolicy.priorityClass", "priorityClassName"),
    Lost("scheduleTimeoutSeconds is lost", make_v1_job().run_policy(schedulingPolicy={"scheduleTimeoutSeconds": 5}),
         "spec.runPolicy.schedulingPolicy.scheduleTimeoutSeconds", "coscheduling"),
    Lost("a run policy field v1 does not have is reported", make_v1_job().run_policy(managedBy="x"), "spec.runPolicy.managedBy",
         "pruned"),
    Lost("a spec field v1 does not have is reported", make_v1_job().spec(priority=1), "spec.priority", "pruned"),
    Lost("a top-level field v1 does not have is reported", make_v1_job().spec(), "extra", "pruned"),
    Lost("kubectl's last applied configuration is dropped", make_v1_job().metadata(annotations={LAST_APPLIED: "{}"}),
         f"metadata.annotations.{LAST_APPLIED}", "kubectl apply writes"),
    Lost("a queue label other than the scheduling policy's queue gives way",
         make_v1_job().metadata(labels={KUEUE_QUEUE_LABEL: "a"}).run_policy(schedulingPolicy={"queue": "b"}),
         f"metadata.labels.{KUEUE_QUEUE_LABEL}", "instead"),
    Lost("a template restartPolicy, which v1 ignored, is reported", make_v1_job().pod(restartPolicy="Always"),
         "spec.pytorchReplicaSpecs.Master.template.spec.restartPolicy", "ignored by v1 too"),
    Lost("restartPolicy ExitCode is reported", make_v1_job().replica(restartPolicy="ExitCode"),
         "spec.pytorchReplicaSpecs.Master.restartPolicy", "retryable"),
    Lost("restartPolicy Always is reported", make_v1_job().replica(restartPolicy="Always"),
         "spec.pytorchReplicaSpecs.Master.restartPolicy", "OnFailure"),
    Lost("template metadata besides labels and annotations is reported", make_v1_job().template_metadata(name="x"),
         "spec.pytorchReplicaSpecs.Master.template.metadata.name", "only labels and annotations"),
    Lost("a user variable the operator overrode is reported", make_v1_job().container(env=[{"name": "WORLD_SIZE", "value": "9"}]),
         "spec.pytorchReplicaSpecs.Master.template.spec.containers[0].env[0]", "never saw this value"),
    Lost("a user variable v2's policy reserves is reported", make_v1_job().container(env=[{"name": "PET_NNODES", "value": "9"}]),
         "spec.pytorchReplicaSpecs.Master.template.spec.containers[0].env[0]", "refuses it"),
    Lost("a Worker field that differs from the Master's is reported", make_v1_job().container("Worker", args=["w"]),
         "spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].args", "differs from the Master's"),
    Lost("a sidecar named node is renamed", make_v1_job().pod(containers=[{"name": "pytorch", "image": "a"},
                                                                          {"name": "node", "image": "b"}]),
         "spec.pytorchReplicaSpecs.Master.template.spec.containers", "node-sidecar"),
    Lost("an MPI mainContainer other than the first is reported", make_v1_job("MPIJob").spec(mainContainer="other"),
         "spec.mainContainer", "first container"),
    Lost("an MPI worker's own command is kept and reported", make_v1_job("MPIJob").container("Worker", command=["sshd"]),
         "spec.mpiReplicaSpecs.Worker.template.spec.containers[0].command", "must run sshd"),
    Lost("a nprocPerNode v2 cannot take is reported", make_v1_job().spec(nprocPerNode="cpu"), "spec.nprocPerNode", "a number"),
)


@pytest.mark.parametrize("case", LOST, ids=lambda case: case.name)
def test_a_field_v2_has_no_place_for_is_reported_at_its_path(case: Lost) -> None:
    manifest = case.job.build()
    if case.path == "extra":
        manifest["extra"] = 1
    (job,) = migrate(manifest).jobs
    reported = {loss.path: loss for loss in job.losses}
    assert case.path in reported, [str(loss) for loss in job.losses]
    assert case.says in reported[case.path].why
    assert reported[case.path].source == "document 1 (PyTorchJob/job)".replace("PyTorchJob", case.job.manifest["kind"])


def test_clean_pod_policy_running_is_what_v2_does_so_nothing_is_lost() -> None:
    for job in (make_v1_job().run_policy(cleanPodPolicy="Running"), make_v1_job("MPIJob").spec(cleanPodPolicy="Running")):
        (migrated,) = migrate(job.build()).jobs
        assert not [loss for loss in migrated.losses if "cleanPodPolicy" in loss.path]


def test_the_items_of_a_list_are_migrated_each_with_its_place() -> None:
    listing = {"apiVersion": "v1", "kind": "List", "items": [make_v1_job(name="a").build(),
                                                             make_v1_job(name="b").run_policy(cleanPodPolicy="All").build()]}
    result = migrate(listing)
    assert [job.source for job in result.jobs] == ["document 1 items[0] (PyTorchJob/a)", "document 1 items[1] (PyTorchJob/b)"]
    assert [loss.source for loss in result.losses] == ["document 1 items[1] (PyTorchJob/b)"]


def test_server_set_metadata_and_status_are_dropped_without_a_word() -> None:
    manifest = make_v1_job().metadata(uid="u", resourceVersion="1", generation=2, creationTimestamp="2020-01-01T00:00:00Z",
                                      managedFields=[{}]).build()
    manifest["status"] = {"conditions": []}
    (job,) = migrate(manifest).jobs
    assert not job.losses
    assert job.manifests[0]["metadata"] == {"name": "job"}
