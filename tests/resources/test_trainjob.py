"""The TrainJob component under Pulumi mocks: types, names, parents, inputs, Outputs and secrets."""

from __future__ import annotations

import asyncio
import base64
from dataclasses import dataclass

import pulumi
import pytest

from pulumi_kubeflow_trainer import ClusterTrainingRuntime, RuntimeCatalog, TrainerArgs, TrainJob, render
from pulumi_kubeflow_trainer.blueprints import bundled_runtime
from tests.builders import container, make_runtime, make_trainjob

from .conftest import FAKE_CURVE_PUBLIC, FAKE_CURVE_SECRET, FAKE_PUBLIC_KEY, KEY_TYPE, RecordingMocks, settled

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
        {"ds-ssh-key": KEY_TYPE, "ds-mpi-ssh-auth": SECRET, "ds-mpi-hostfile": CONFIG_MAP, "ds-jobset": JOBSET},
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
    urn = settled(job).apply(lambda _: job.resources["mnist-jobset"].urn)
    return urn.apply(lambda urn: _assert_in(urn, "kubeflow:trainer:TrainJob$kubernetes:jobset.x-k8s.io/v1alpha2:JobSet::mnist-jobset"))


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
    job = TrainJob("mnist", runtime_ref="torch-distributed", namespace=namespace, trainer=TrainerArgs(image=image, num_nodes=2))

    def check(_):
        jobset = mocks.named("mnist-jobset").inputs
        node = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0]
        assert node["image"] == "registry.local/train:42"
        assert jobset["metadata"]["namespace"] == "team-x"

    return settled(job).apply(check)


@pulumi.runtime.test
def test_the_ssh_private_key_is_secret_and_only_the_public_key_is_exported(mocks):
    job = TrainJob("ds", runtime_ref="deepspeed-distributed", trainer=TrainerArgs(num_nodes=2))
    async def check(values):
        assert values[-1] == FAKE_PUBLIC_KEY
        assert await job.resources["ds-mpi-ssh-auth"].data._is_secret, "the Secret's data must be a secret Output"

    return pulumi.Output.all(settled(job), job.ssh_public_key).apply(check)


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
        (TrainerArgs(num_nodes=2**31), "spec.trainer.numNodes"),
        (TrainerArgs(num_proc_per_node=2**31), "spec.trainer.numProcPerNode"),
        (TrainerArgs(env={"PET_NNODES": "9"}), "reserved envs"),
    ],
    ids=["a node count beyond int32", "processes per node beyond int32", "a reserved torch env var"],
)
def test_invalid_input_fails_before_any_child_is_registered(mocks, trainer, want):
    @pulumi.runtime.test
    def program():
        TrainJob("bad", runtime_ref="torch-distributed", trainer=trainer)

    with pytest.raises(Exception, match=want):
        program()
    assert [args.name for args in mocks.registered if args.name != "bad"] == []


def node_image(mocks, jobset: str) -> str:
    return mocks.named(jobset).inputs["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0]["image"]


def in_house(name: str = "in-house", image: str = "trainer:in-house") -> dict:
    return make_runtime(name).torch().trainer(container(image=image)).obj()


@pulumi.runtime.test
def test_runtime_ref_is_resolved_among_the_runtimes_given_to_the_trainjob(mocks):
    runtime = ClusterTrainingRuntime("in-house", manifest=in_house())
    listed = TrainJob("listed", runtime_ref="in-house", runtimes=[runtime])
    catalogued = TrainJob("catalogued", runtime_ref="in-house", runtimes=RuntimeCatalog([in_house()]))

    def check(_):
        assert node_image(mocks, "listed-jobset") == node_image(mocks, "catalogued-jobset") == "trainer:in-house"

    return settled(runtime, listed, catalogued).apply(check)


@pulumi.runtime.test
def test_declaring_a_runtime_changes_nothing_for_trainjobs_it_is_not_given_to(mocks):
    before = TrainJob("before", runtime_ref="torch-distributed")
    custom = ClusterTrainingRuntime("torch-distributed", manifest=in_house("torch-distributed"))
    after = TrainJob("after", runtime_ref="torch-distributed")
    given = TrainJob("given", runtime_ref="torch-distributed", runtimes=[custom])

    def check(_):
        bundled = bundled_image("torch-distributed")
        assert node_image(mocks, "before-jobset") == node_image(mocks, "after-jobset") == bundled, "declaration order does not matter"
        assert node_image(mocks, "given-jobset") == "trainer:in-house", "a catalog runtime wins over the bundled one"

    return settled(before, custom, after, given).apply(check)


def test_runtimes_do_not_leak_between_programs():
    """One process runs two programs, as the Automation API does: only the first is given a custom runtime."""
    images = []
    for runtimes in ([in_house("torch-distributed")], []):
        recording = RecordingMocks()
        pulumi.runtime.set_mocks(recording, project="project", stack="stack", preview=False)

        @pulumi.runtime.test
        def program(runtimes=runtimes, recording=recording):  # this iteration's, bound now
            job = TrainJob("job", runtime_ref="torch-distributed", runtimes=runtimes)
            return settled(job).apply(lambda _: images.append(node_image(recording, "job-jobset")))

        program()
    assert images == ["trainer:in-house", bundled_image("torch-distributed")]


def bundled_image(name: str) -> str:
    return bundled_runtime(name).spec.template.spec.replicated_jobs[0].template.spec.template.spec.containers[0].image


def test_an_unknown_runtime_ref_names_the_fix(mocks):
    @pulumi.runtime.test
    def program():
        ClusterTrainingRuntime("in-house", manifest=in_house())  # declared, but not given
        TrainJob("job", runtime_ref="in-house")

    with pytest.raises(Exception, match=r"ClusterTrainingRuntime 'in-house' not found: .*given: none; give it with the TrainJob, or name a bundled one: deepspeed-distributed, "):
        program()


def test_a_catalog_without_bundled_runtimes_finds_only_its_own(mocks):
    @pulumi.runtime.test
    def program():
        TrainJob("job", runtime_ref="torch-distributed", runtimes=RuntimeCatalog(bundled=False))

    with pytest.raises(Exception, match=r"given: none; give it with the TrainJob; the bundled runtimes are turned off here \(bundled=False, --no-bundled-runtimes\)"):
        program()


def test_a_catalog_refuses_two_specs_under_one_name():
    RuntimeCatalog([in_house(), in_house()])  # the same runtime twice is fine
    with pytest.raises(Exception, match="ClusterTrainingRuntime 'in-house' is given twice with different specs"):
        RuntimeCatalog([in_house(), in_house(image="other:1")])


@pulumi.runtime.test
def test_a_training_runtime_is_found_only_in_its_namespace(mocks):
    team = make_runtime("ns-rt", cluster=False, namespace="team").torch().trainer(container(image="team:1")).obj()
    other = make_runtime("ns-rt", cluster=False, namespace="other").torch().trainer(container(image="other:1")).obj()
    catalog = RuntimeCatalog([other, team])
    job = TrainJob("job", make_trainjob("team", "job").runtime_ref("ns-rt", kind="TrainingRuntime").obj(), runtimes=catalog)
    return settled(job).apply(lambda _: _assert_equal(node_image(mocks, "job-jobset"), "team:1"))


def _assert_equal(got, want) -> None:
    assert got == want


FAILED_JOBSET = {
    "terminalState": "Failed",
    "conditions": [{"type": "Failed", "status": "True", "reason": "FailedJobs", "message": "jobset failed due to one or more job failures",
                    "lastTransitionTime": "2026-01-01T00:00:00Z"}],
}


@pulumi.runtime.test
def test_a_failed_jobset_is_reported_in_the_conditions_not_raised_from_the_status(mocks):
    """A JobSet read from the state as Failed (every later preview) must not fail the program again."""
    mocks.live["job-jobset"] = {"status": FAILED_JOBSET}
    job = TrainJob("job", runtime_ref="torch-distributed", wait_for="completed")

    def check(conditions):
        failed = next(c for c in conditions if c["type"] == "Failed")
        assert (failed["status"], failed["reason"]) == ("True", "FailedJobs")

    return job.conditions.apply(check)


def test_the_jobset_hook_fails_the_deployment_that_saw_the_failure():
    from pulumi_kubeflow_trainer.resources.completion import fail_if_failed, status_from_jobset

    trainjob = make_trainjob("default", "job").runtime_ref("torch-distributed").obj()
    hook = fail_if_failed("job", status_from_jobset(lambda: trainjob))
    with pytest.raises(RuntimeError, match="TrainJob job failed: FailedJobs: jobset failed due to one or more job failures"):
        asyncio.run(hook(pulumi.ResourceHookArgs("urn", "id", "job-jobset", JOBSET, new_outputs={"status": FAILED_JOBSET})))
    completed = {"terminalState": "Completed", "conditions": [{"type": "Completed", "status": "True", "reason": "AllJobsCompleted",
                                                               "message": "jobset completed successfully"}]}
    asyncio.run(hook(pulumi.ResourceHookArgs("urn", "id", "job-jobset", JOBSET, new_outputs={"status": completed})))
    asyncio.run(hook(pulumi.ResourceHookArgs("urn", "id", "job-jobset", JOBSET, new_outputs={})))


@pulumi.runtime.test
def test_wait_for_completed_annotates_the_jobset(mocks):
    job = TrainJob("job", runtime_ref="torch-distributed", wait_for="completed", wait_timeout_seconds=60)

    def check(_):
        annotations = mocks.named("job-jobset").inputs["metadata"]["annotations"]
        assert annotations == {"pulumi.com/waitFor": "jsonpath={.status.terminalState}", "pulumi.com/timeoutSeconds": "60"}

    return settled(job).apply(check)


SECRET_SIG, SECRET_MARK = "4dabf18193072939515e22adb298388d", "1b47061264138c4ac30d75fd1eb44270"  # pulumi's secret wrapper


def flux_runtime() -> dict:
    return make_runtime("flux-rt").flux().trainer(container(command=["python", "train.py"])).obj()


@pulumi.runtime.test
def test_a_flux_trainjob_gets_its_curve_key_from_a_generated_key_resource(mocks):
    job = TrainJob("fx", make_trainjob("team", "fx").runtime_ref("flux-rt").num_nodes(2).obj(), runtime=flux_runtime())
    async def check(_):
        key = mocks.named("fx-curve-key")
        assert key.typ == KEY_TYPE and key.inputs["kind"] == "flux-curve" and key.inputs["trainjob"] == "team/fx"
        assert await job.resources["fx-flux-curve"].data._is_secret, "the Secret's data must be a secret Output"
        data = mocks.named("fx-flux-curve").inputs["data"]
        assert data.get(SECRET_SIG) == SECRET_MARK, "registered as a secret value"
        cert = base64.b64decode(data["value"]["curve.cert"]).decode()
        assert f'public-key = "{FAKE_CURVE_PUBLIC}"' in cert and f'secret-key = "{FAKE_CURVE_SECRET}"' in cert
        assert 'name = "fx"' in cert

    return settled(job).apply(check)


@pulumi.runtime.test
def test_the_component_records_what_the_update_rules_compare(mocks):
    job = TrainJob("mnist", make_trainjob("team", "mnist").runtime_ref("torch-distributed").runtime_patch("kueue.x-k8s.io/manager", labels={"a": "1"}).obj(),
                   suspend=True)

    def check(_):
        record = mocks.named("mnist").inputs["record"]
        assert record["trainjob"] == "team/mnist" and record["suspend"] is True
        assert record["runtimePatches"][0]["manager"] == "kueue.x-k8s.io/manager"
        assert "mnist-record" not in mocks.types(), "no resource per TrainJob for the record"

    return settled(job).apply(check)


@pulumi.runtime.test
def test_a_training_runtime_in_a_catalog_serves_a_namespace_known_at_deploy_time(mocks):
    runtime = make_runtime("ns-rt", cluster=False, namespace="team").torch().trainer(container(image="team:1")).obj()
    job = TrainJob("job", make_trainjob("placeholder", "job").runtime_ref("ns-rt", kind="TrainingRuntime").obj(),
                   namespace=pulumi.Output.from_input("team-x"), runtimes=[runtime])

    def check(_):
        jobset = mocks.named("job-jobset").inputs
        assert (jobset["metadata"]["namespace"], node_image(mocks, "job-jobset")) == ("team-x", "team:1")

    return settled(job).apply(check)
