"""The inventory: which resources of a stack are TrainJobs or JobSets, and the JobSet each is judged by."""

from __future__ import annotations

from pulumi_kubeflow_trainer.policy.inventory import UNKNOWN, RuntimeRef, StackResource
from pulumi_kubeflow_trainer.policy.stack import inventory, runtimes
from tests.builders import gpu_runtime, gpu_trainjob, make_runtime, make_trainjob, policy_stack


def test_a_default_mode_trainjob_is_its_jobset_reported_on_its_component_with_the_runtime_of_its_record() -> None:
    stack = policy_stack().trainjob(gpu_trainjob("mnist", nodes=4), gpu_runtime(), queue="q")
    (workload,) = stack.inventory().workloads
    assert (workload.subject, workload.urn.rsplit("::", 1)[-1], workload.labels_of) == ("TrainJob team-a/mnist", "mnist", "JobSet")
    assert workload.runtime_ref == RuntimeRef("torch-platform")
    assert [(template.job, template.pods) for template in workload.pods] == [("node", 4)]
    assert workload.labels == {"kueue.x-k8s.io/queue-name": "q"}


def test_a_controller_mode_trainjob_is_judged_by_its_components_prediction() -> None:
    stack = policy_stack().trainjob_object(gpu_trainjob("ctl", nodes=3), expected=gpu_runtime())
    (workload,) = stack.inventory().workloads
    assert (workload.subject, workload.urn.rsplit("::", 1)[-1], workload.labels_of) == ("TrainJob team-a/ctl", "ctl", "TrainJob")
    assert [(template.job, template.pods) for template in workload.pods] == [("node", 3)]


def test_a_trainjob_object_of_other_code_is_rendered_against_a_runtime_object_of_the_stack() -> None:
    stack = policy_stack().runtime_object(gpu_runtime()).trainjob_object(gpu_trainjob("raw", nodes=2))
    (workload,) = stack.inventory().workloads
    assert workload.urn.endswith("TrainJob::raw-trainjob") and workload.unrendered is None
    assert [(template.job, template.pods) for template in workload.pods] == [("node", 2)]


def test_a_trainjob_object_on_a_bundled_runtime_is_rendered_against_the_library_copy() -> None:
    (workload,) = policy_stack().trainjob_object(make_trainjob("team-a", "raw").runtime_ref("torch-distributed")).inventory().workloads
    assert workload.pods[0].spec["containers"][0]["image"].startswith("pytorch/pytorch:")


def test_a_trainjob_object_with_a_value_unknown_at_preview_is_left_for_pulumi_up() -> None:
    trainjob = gpu_trainjob("raw").obj()
    trainjob["spec"]["trainer"]["image"] = UNKNOWN
    resource = StackResource("kubernetes:trainer.kubeflow.org/v1alpha1:TrainJob", "urn:raw", trainjob)
    (workload,) = inventory([resource]).workloads
    assert (workload.pods, workload.unrendered) == ([], None)


def test_a_trainjob_object_that_does_not_render_says_why() -> None:
    stack = policy_stack().runtime_object(gpu_runtime()).trainjob_object(gpu_trainjob("raw").set("spec.trainer.numNodes", "many"))
    (workload,) = stack.inventory().workloads
    assert workload.unrendered == 'it does not render: TrainJob/raw: spec.trainer.numNodes: Invalid value: "many": input should be a valid integer'


def test_a_jobset_of_other_code_is_a_workload_of_its_own_in_the_default_namespace() -> None:
    manifest = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "raw"}, "spec": {"replicatedJobs": []}}
    (workload,) = policy_stack().jobset(manifest).inventory().workloads
    assert (workload.subject, workload.runtime_ref, workload.labels_of) == ("JobSet default/raw", None, "JobSet")


def test_runtimes_the_stack_declares_come_before_the_bundled_ones_of_the_same_name() -> None:
    stack = policy_stack().runtime_component(make_runtime("torch-distributed").torch().trainer().label("team", "platform"))
    known = runtimes(stack.resources)
    assert known[("ClusterTrainingRuntime", "", "torch-distributed")].labels == {"team": "platform"}
    assert known[("ClusterTrainingRuntime", "", "mpi-distributed")].source == "bundled with pulumi-kubeflow-trainer"


def test_a_namespaced_runtime_is_known_in_its_namespace_only() -> None:
    stack = policy_stack().runtime_object(make_runtime("local", cluster=False, namespace="team-a").torch().trainer())
    known = stack.inventory()
    ref = RuntimeRef("local", "TrainingRuntime")
    assert known.runtime(ref, "team-a") is not None and known.runtime(ref, "team-b") is None


def test_a_trainjob_whose_component_inputs_the_pack_did_not_see_says_so() -> None:
    stack = policy_stack().trainjob(gpu_trainjob("job"), gpu_runtime(), record={})
    (workload,) = stack.inventory().workloads
    assert (workload.runtime_ref, workload.runtime_unknown) == (
        None, "the pack did not see its TrainJob component's inputs (is the policy kubeflow-trainer-inputs disabled?)")


def test_a_namespace_not_known_at_preview_is_left_out_of_the_namespace_totals() -> None:
    from pulumi_kubeflow_trainer.policy.gpus import max_gpus_per_namespace
    from pulumi_kubeflow_trainer.policy.rules import RULES

    stack = policy_stack().trainjob(gpu_trainjob("job", nodes=8), gpu_runtime())
    stack.resources[-1].props["metadata"]["namespace"] = UNKNOWN
    (workload,) = stack.inventory().workloads
    assert workload.namespace == "(namespace unknown at preview)"
    settings = next(rule for rule in RULES if rule.name == "max-gpus-per-namespace").settings({"limit": 1})
    assert max_gpus_per_namespace(stack.inventory(), settings) == []
