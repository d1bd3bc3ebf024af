"""The TrainJob component under Pulumi mocks: types, names, parents, inputs, Outputs and secrets."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pytest

from pulumi_kubeflow_trainer import ClusterTrainingRuntime, Trainer, TrainJob, render
from pulumi_kubeflow_trainer.blueprints import bundled_runtime
from pulumi_kubeflow_trainer.resources.children import JOBSET_IMMUTABLE_FIELDS
from tests.builders import make_runtime, make_trainjob

from .conftest import FAKE_PUBLIC_KEY, SSH_KEY_TYPE, settled

JOBSET = "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet"
SECRET, CONFIG_MAP = "kubernetes:core/v1:Secret", "kubernetes:core/v1:ConfigMap"
COSCHEDULING_POD_GROUP = "kubernetes:scheduling.x-k8s.io/v1alpha1:PodGroup"


@dataclass(frozen=True)
class Case:
    name: str
    runtime: str
    trainjob: dict
    want_children: dict


CHILDREN_CASES = [
    Case(
        "a torch TrainJob has one JobSet child",
        "torch-distributed",
        make_trainjob("team", "mnist").runtime_ref("torch-distributed").num_nodes(2).obj(),
        {"mnist-jobset": JOBSET},
    ),
    Case(
        "an MPI TrainJob adds the SSH key, its Secret and the hostfile",
        "deepspeed-distributed",
        make_trainjob("team", "ds").runtime_ref("deepspeed-distributed").num_nodes(3).obj(),
        {"ds-ssh-key": SSH_KEY_TYPE, "ds-mpi-ssh-auth": SECRET, "ds-mpi-hostfile": CONFIG_MAP, "ds-jobset": JOBSET},
    ),
    Case(
        "a coscheduling TrainJob adds a scheduler-plugins PodGroup",
        "torch-distributed-coscheduling",
        make_trainjob("team", "gang").runtime_ref("torch-distributed-coscheduling").obj(),
        {"gang-podgroup": COSCHEDULING_POD_GROUP, "gang-jobset": JOBSET},
    ),
]


@pytest.mark.parametrize("case", CHILDREN_CASES, ids=lambda case: case.name)
@pulumi.runtime.test
def test_children_types_names_and_inputs(mocks, case: Case):
    manifest = bundled_runtime(case.runtime).to_manifest()
    runtime = ClusterTrainingRuntime(case.runtime, manifest=manifest)
    job = TrainJob(case.trainjob["metadata"]["name"], manifest=case.trainjob, runtime=runtime)
    done = settled(runtime, job)

    def check(_):
        types = mocks.types()
        assert types[case.trainjob["metadata"]["name"]] == "kubeflow:trainer:TrainJob"
        assert types[case.runtime] == "kubeflow:trainer:ClusterTrainingRuntime"
        children = {name: typ for name, typ in types.items() if name in case.want_children}
        assert children == case.want_children
        want_jobset = next(m for m in render([case.trainjob, manifest], runtime_snapshot=False) if m["kind"] == "JobSet")
        jobset = mocks.named(f"{case.trainjob['metadata']['name']}-jobset").inputs
        assert jobset["spec"] == want_jobset["spec"], "the JobSet child carries exactly what render() produces"

    return done.apply(check)


@pulumi.runtime.test
def test_children_are_parented_by_the_component(mocks):
    job = TrainJob("mnist", make_trainjob("team", "mnist").runtime_ref("torch-distributed").obj())
    jobset = job.resources["mnist-jobset"]
    return jobset.urn.apply(lambda urn: _assert_in(urn, "kubeflow:trainer:TrainJob$kubernetes:jobset.x-k8s.io/v1alpha2:JobSet::mnist-jobset"))


def _assert_in(text: str, part: str) -> None:
    assert part in text, f"{part!r} not in {text!r}"


@pulumi.runtime.test
def test_the_same_job_name_in_two_namespaces_does_not_collide(mocks):
    first = TrainJob("a", make_trainjob("ns1", "mnist").runtime_ref("torch-distributed").obj())
    second = TrainJob("b", make_trainjob("ns2", "mnist").runtime_ref("torch-distributed").obj())

    def check(_):
        assert {"a-jobset", "b-jobset"} <= set(mocks.types())
        namespaces = {mocks.named(n).inputs["metadata"]["namespace"] for n in ("a-jobset", "b-jobset")}
        assert namespaces == {"ns1", "ns2"}

    return settled(first, second).apply(check)


@pulumi.runtime.test
def test_an_output_valued_image_and_namespace_flow_into_the_jobset(mocks):
    image = pulumi.Output.from_input("registry.local/train:42")
    namespace = pulumi.Output.from_input("team-x")
    job = TrainJob("mnist", runtime_ref="torch-distributed", namespace=namespace, trainer=Trainer(image=image, num_nodes=2))

    def check(_):
        jobset = mocks.named("mnist-jobset").inputs
        node = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0]
        assert node["image"] == "registry.local/train:42"
        assert jobset["metadata"]["namespace"] == "team-x"

    return settled(job).apply(check)


@pulumi.runtime.test
def test_the_ssh_private_key_is_secret_and_only_the_public_key_is_exported(mocks):
    job = TrainJob("ds", runtime_ref="deepspeed-distributed", trainer=Trainer(num_nodes=2))
    secret = job.resources["ds-mpi-ssh-auth"]

    async def check(values):
        assert values[-1] == FAKE_PUBLIC_KEY
        assert await secret.data._is_secret, "the Secret's data must be a secret Output"

    return pulumi.Output.all(settled(job), job.ssh_public_key).apply(check)


@pulumi.runtime.test
def test_the_jobset_is_replaced_on_immutable_changes_and_updated_on_suspend(mocks):
    job = TrainJob("mnist", runtime_ref="torch-distributed", suspend=True)

    def check(_):
        jobset = job.resources["mnist-jobset"]
        assert "spec.replicatedJobs" in JOBSET_IMMUTABLE_FIELDS and "spec.suspend" not in JOBSET_IMMUTABLE_FIELDS
        assert mocks.named("mnist-jobset").inputs["spec"]["suspend"] is True
        assert jobset is not None

    return settled(job).apply(check)


@pulumi.runtime.test
def test_queue_name_labels_the_jobset_and_multikueue_manages_it(mocks):
    job = TrainJob("mnist", runtime_ref="torch-distributed", queue_name="team-queue", managed_by="kueue.x-k8s.io/multikueue")

    def check(_):
        jobset = mocks.named("mnist-jobset").inputs
        assert jobset["metadata"]["labels"]["kueue.x-k8s.io/queue-name"] == "team-queue"
        assert jobset["spec"]["managedBy"] == "kueue.x-k8s.io/multikueue"

    return settled(job).apply(check)


@pytest.mark.parametrize(
    ("trainer", "want"),
    [
        (Trainer(num_nodes=-1), "spec.trainer.numNodes"),
        (Trainer(num_proc_per_node=0), "numProcPerNode must be greater than or equal to 1"),
        (Trainer(env={"PET_NNODES": "9"}), "reserved envs"),
    ],
    ids=["a negative node count", "zero processes per node", "a reserved torch env var"],
)
def test_invalid_input_fails_before_any_child_is_registered(mocks, trainer, want):
    @pulumi.runtime.test
    def program():
        TrainJob("bad", runtime_ref="torch-distributed", trainer=trainer)

    with pytest.raises(Exception, match=want):
        program()
    assert [args.name for args in mocks.registered if args.name != "bad"] == []


@pulumi.runtime.test
def test_runtime_ref_is_resolved_among_runtimes_declared_in_the_program(mocks):
    custom = make_runtime("in-house").torch().trainer().obj()
    runtime = ClusterTrainingRuntime("in-house", manifest=custom)
    job = TrainJob("job", runtime_ref="in-house")

    def check(_):
        node = mocks.named("job-jobset").inputs["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
        assert node["containers"][0]["image"] == "trainer:latest"

    return settled(runtime, job).apply(check)
