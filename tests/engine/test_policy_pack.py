"""The policy pack through the real engine: `pulumi preview --policy-pack <kubeflow-trainer-policy>` (the
console script, the executable entry the CLI 3.274.1 + 3.68 language host toolchain can run) on inline
programs in render mode. One preview judges many policies at once: a mandatory violation fails the
preview with its message, an advisory one is printed and the preview passes, a compliant stack passes,
and the config changes the limits. Also the example project (stacks/) with stacks/policy-config.json."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pulumi
import pulumi.automation as auto
import pulumi_kubernetes as k8s
import pytest

from pulumi_kubeflow_trainer import ClusterTrainingRuntime, TrainerArgs, TrainJob
from pulumi_kubeflow_trainer.blueprints import bundled_runtime
from tests.toolchain import REPO, example_stack, inline_stack

pytestmark = pytest.mark.engine
ENTRY = Path(sys.executable).parent / "kubeflow-trainer-policy"
NODE = "spec.replicatedJobs[node].template.spec.template.spec"
PATCH = "spec.runtimePatches[0].trainingRuntimeSpec.template.spec.replicatedJobs[node].template.spec.template.spec"
PRIVILEGED_PATCH = {"manager": "acme.io/debug", "trainingRuntimeSpec": {"template": {"spec": {"replicatedJobs": [
    {"name": "node", "template": {"spec": {"template": {"spec": {"containers": [{"name": "node", "securityContext": {"privileged": True}}]}}}}},
]}}}}
# The platform's rules for team-a, as a platform team would write them.
RULES = {
    "allowed-runtimes": {"labels": {"team": "platform"}},
    "max-gpus-per-trainjob": {"limit": 32},
    "max-gpus-per-namespace": {"limit": 48},
    "allowed-image-registries": {"registries": ["ghcr.io/acme", "docker.io/pytorch"]},
}


@pytest.fixture(autouse=True)
def _no_kubeconfig(monkeypatch: pytest.MonkeyPatch) -> None:
    """Inline programs run in this process, where the SDK would hand $KUBECONFIG to the render provider."""
    monkeypatch.delenv("KUBECONFIG", raising=False)


@pytest.fixture(scope="module")
def entry() -> Path:
    if not ENTRY.exists():
        pytest.fail(f"{ENTRY} is missing: install the policy extra (pip install -c constraints.txt -e '.[test,policy]')")
    return ENTRY


class PolicyPreview:
    """An inline program on a private backend, previewed with the pack and a policy config file."""

    def __init__(self, name: str, build: Callable[[pulumi.ResourceOptions], None], env: dict[str, str], engine_bin: Path,
                 root: Path, entry: Path) -> None:
        self.root, self.entry, self.lines = root, entry, []
        root.mkdir(parents=True, exist_ok=True)

        def program() -> None:
            build(pulumi.ResourceOptions(provider=k8s.Provider("render", render_yaml_to_directory=str(root / "out"))))

        self.stack = inline_stack(name, "policy-it", program, env, engine_bin)

    def preview(self, config: dict[str, Any]) -> tuple[bool, str]:
        """(passed, output) of a preview with the pack and `config` as its policy config file."""
        config_file = self.root / f"policy-{len(self.lines)}.json"
        config_file.write_text(json.dumps(config))
        self.lines.append([])
        try:
            self.stack.preview(policy_packs=[str(self.entry)], policy_pack_configs=[str(config_file)],
                               on_output=self.lines[-1].append, color="never")
            passed = True
        except auto.CommandError:
            passed = False
        return passed, "\n".join(self.lines[-1])


def reported(output: str) -> list[tuple[str, str]]:
    """(level, message) of every violation the preview printed: each `- [level]  policy  (resource)` line,
    then the policy's description, then the message."""
    lines = output.splitlines()
    found = []
    for index, line in enumerate(lines):
        match = re.match(r"\s+- \[(advisory|mandatory)\]\s+(\S+)\s+\(", line)
        if match and match[2] != "kubeflow-trainer-inputs":
            found.append((match[1], lines[index + 2].strip()))
    return found


def platform_runtime(opts: pulumi.ResourceOptions) -> ClusterTrainingRuntime:
    manifest = bundled_runtime("torch-distributed").to_manifest()
    manifest["metadata"] = {"name": "torch-platform"}
    return ClusterTrainingRuntime("torch-platform", manifest, labels={"team": "platform"}, opts=opts)


def gpus(count: int, nodes: int, image: str = "ghcr.io/acme/train:1") -> TrainerArgs:
    return TrainerArgs(image=image, num_nodes=nodes, resources_per_node={"limits": {"nvidia.com/gpu": count}})


def everything_wrong(opts: pulumi.ResourceOptions) -> None:
    """Each policy broken once, in the default mode and by a JobSet of other code."""
    platform = platform_runtime(opts)
    old = bundled_runtime("torch-distributed").to_manifest()
    old["metadata"] = {"name": "old-torch", "labels": {"trainer.kubeflow.org/support": "deprecated"}}
    TrainJob("big", runtime=platform, namespace="team-a", queue_name="team-a", trainer=gpus(8, 8), opts=opts)
    TrainJob("unqueued", runtime=platform, namespace="team-a", trainer=gpus(2, 1, "docker.io/someone/train:1"), opts=opts)
    TrainJob("old", runtime=ClusterTrainingRuntime("old-torch", old, opts=opts), namespace="team-a", opts=opts)
    TrainJob("debug", runtime=platform, namespace="team-a", runtime_patches=[PRIVILEGED_PATCH], opts=opts)
    pod = {"hostNetwork": True, "containers": [{"name": "w", "image": "ghcr.io/acme/sweep:1", "resources": {"limits": {"nvidia.com/gpu": 4}}}]}
    k8s.apiextensions.CustomResource(
        "sweep", api_version="jobset.x-k8s.io/v1alpha2", kind="JobSet", metadata={"name": "sweep", "namespace": "team-a"},
        spec={"replicatedJobs": [{"name": "w", "template": {"spec": {"template": {"spec": pod}}}}]}, opts=opts,
    )


EVERYTHING_WRONG = [
    ("allowed-runtimes", "TrainJob team-a/old: spec.runtimeRef: ClusterTrainingRuntime old-torch is not an allowed runtime; allowed are "
     "runtimes labelled team=platform (policy allowed-runtimes)"),
    ("deprecated-runtimes", "TrainJob team-a/old: spec.runtimeRef: ClusterTrainingRuntime old-torch is deprecated (label "
     "trainer.kubeflow.org/support=deprecated) and will be removed; move to a supported runtime, see "
     "https://trainer.kubeflow.org/en/latest/operator-guides/runtime.html#runtime-deprecation-policy (policy deprecated-runtimes)"),
    ("max-gpus-per-trainjob", f'TrainJob team-a/big: {NODE}.containers[node].resources.limits["nvidia.com/gpu"]: 64 GPUs (8 per node x '
     "8 nodes) exceeds the limit of 32 per TrainJob (policy max-gpus-per-trainjob)"),
    ("max-gpus-per-namespace", "namespace team-a: 70 GPUs asked for by TrainJob team-a/big: 64, JobSet team-a/sweep: 4, "
     "TrainJob team-a/unqueued: 2 exceed the limit of 48 GPUs in the namespace (policy max-gpus-per-namespace)"),
    ("gpu-trainjobs-need-a-queue", 'TrainJob team-a/unqueued: JobSet metadata.labels["kueue.x-k8s.io/queue-name"]: not set '
     "(TrainJob(..., queue_name=...)), and it asks for 2 GPUs: GPU workloads must name a Kueue queue (policy gpu-trainjobs-need-a-queue)"),
    ("gpu-trainjobs-need-a-queue", 'JobSet team-a/sweep: metadata.labels["kueue.x-k8s.io/queue-name"]: not set, and it asks for 4 GPUs: '
     "GPU workloads must name a Kueue queue (policy gpu-trainjobs-need-a-queue)"),
    ("allowed-image-registries", f'TrainJob team-a/unqueued: {NODE}.containers[node].image: "docker.io/someone/train:1" '
     "(docker.io/someone/train) is not from an allowed registry: ghcr.io/acme, docker.io/pytorch (policy allowed-image-registries)"),
    ("no-host-access", f"TrainJob team-a/debug: {PATCH}.containers[node].securityContext.privileged: true: a privileged container added "
     "by the runtime patch of acme.io/debug is not allowed (policy no-host-access)"),
    ("no-host-access", "JobSet team-a/sweep: spec.replicatedJobs[w].template.spec.template.spec.hostNetwork: true: host networking is "
     "not allowed (policy no-host-access)"),
]


def test_each_policy_fails_the_preview_when_mandatory_and_only_warns_when_advisory(engine_env, engine_bin, tmp_path, entry):
    stack = PolicyPreview("wrong", everything_wrong, engine_env, engine_bin, tmp_path, entry)
    passed, output = stack.preview(RULES)
    assert not passed, output
    expected = [("advisory" if policy == "deprecated-runtimes" else "mandatory", message) for policy, message in EVERYTHING_WRONG]
    assert sorted(reported(output)) == sorted(expected), output
    assert {policy for policy, _message in EVERYTHING_WRONG} == {
        "allowed-runtimes", "deprecated-runtimes", "max-gpus-per-trainjob", "max-gpus-per-namespace", "gpu-trainjobs-need-a-queue",
        "allowed-image-registries", "no-host-access"}, "every policy of the pack is broken once"

    passed, output = stack.preview({"all": "advisory", **RULES})
    assert passed, output
    assert sorted(reported(output)) == sorted(("advisory", message) for _policy, message in EVERYTHING_WRONG), output

    disabled = {"all": "disabled", "max-gpus-per-trainjob": {"enforcementLevel": "mandatory", "limit": 32}}
    passed, output = stack.preview(disabled)
    assert not passed and reported(output) == [("mandatory", EVERYTHING_WRONG[2][1])], output


def compliant(opts: pulumi.ResourceOptions) -> None:
    platform = platform_runtime(opts)
    TrainJob("a", runtime=platform, namespace="team-a", queue_name="team-a", trainer=gpus(8, 4), opts=opts)
    TrainJob("b", runtime=platform, namespace="team-a", queue_name="team-a", trainer=gpus(8, 2), opts=opts)
    TrainJob("cpu", runtime=platform, namespace="team-a", opts=opts)


def test_a_compliant_stack_passes_and_the_config_changes_the_limits(engine_env, engine_bin, tmp_path, entry):
    """The stricter config is tried on the deployed stack: the pack sees the same on a preview whose
    steps are all `same` (the TrainJob components' inputs included)."""
    stack = PolicyPreview("compliant", compliant, engine_env, engine_bin, tmp_path, entry)
    passed, output = stack.preview(RULES)
    assert passed and reported(output) == [], output
    stack.stack.up(color="never", on_output=lambda _line: None)

    passed, output = stack.preview({**RULES, "max-gpus-per-trainjob": {"limit": 16}, "max-gpus-per-namespace": {"namespaces": {"team-a": 40}},
                                    "gpu-trainjobs-need-a-queue": {"queues": ["team-a-gpu"]}, "allowed-runtimes": {"names": ["torch-distributed"]}})
    assert not passed
    assert sorted(reported(output)) == sorted([
        *[("mandatory", f"TrainJob team-a/{name}: spec.runtimeRef: ClusterTrainingRuntime torch-platform is not an allowed runtime; "
           "allowed are the runtimes named torch-distributed (policy allowed-runtimes)") for name in ("a", "b", "cpu")],
        ("mandatory", f'TrainJob team-a/a: {NODE}.containers[node].resources.limits["nvidia.com/gpu"]: 32 GPUs (8 per node x 4 nodes) '
         "exceeds the limit of 16 per TrainJob (policy max-gpus-per-trainjob)"),
        ("mandatory", "namespace team-a: 48 GPUs asked for by TrainJob team-a/a: 32, TrainJob team-a/b: 16 exceed the limit of 40 GPUs "
         "in the namespace (policy max-gpus-per-namespace)"),
        *[("mandatory", f"TrainJob team-a/{name}: JobSet metadata.labels[\"kueue.x-k8s.io/queue-name\"]: 'team-a' is not one of the "
           "allowed queues team-a-gpu (policy gpu-trainjobs-need-a-queue)") for name in ("a", "b")],
    ]), output


def controller_mode(opts: pulumi.ResourceOptions) -> None:
    """Controller mode: the TrainJob object and the runtime object are what is deployed; plus a TrainJob
    object of other code, which the pack renders against the runtime object."""
    platform = ClusterTrainingRuntime("torch-platform", bundled_runtime("torch-distributed").to_manifest() | {
        "metadata": {"name": "torch-platform", "labels": {"team": "platform"}}}, controller="kubeflow", opts=opts)
    TrainJob("ctl", runtime=platform, namespace="team-b", trainer=gpus(4, 3), controller="kubeflow", opts=opts)
    trainer = {"numNodes": 2, "image": "docker.io/someone/train:1", "resourcesPerNode": {"limits": {"nvidia.com/gpu": 8}}}
    k8s.apiextensions.CustomResource(
        "raw", api_version="trainer.kubeflow.org/v1alpha1", kind="TrainJob", metadata={"name": "raw", "namespace": "team-b"},
        spec={"runtimeRef": {"name": "torch-platform"}, "trainer": trainer}, opts=pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=[platform])),
    )


def test_controller_mode_trainjob_objects_are_judged_by_the_jobset_the_controller_will_make(engine_env, engine_bin, tmp_path, entry):
    stack = PolicyPreview("controller", controller_mode, engine_env, engine_bin, tmp_path, entry)
    passed, output = stack.preview({**RULES, "max-gpus-per-trainjob": {"limit": 8}, "gpu-trainjobs-need-a-queue": "advisory"})
    assert not passed
    queue = 'metadata.labels["kueue.x-k8s.io/queue-name"]: not set, and it asks for {} GPUs: GPU workloads must name a Kueue queue'
    assert sorted(reported(output)) == sorted([
        ("mandatory", f'TrainJob team-b/ctl: {NODE}.containers[node].resources.limits["nvidia.com/gpu"]: 12 GPUs (4 per node x 3 nodes) '
         "exceeds the limit of 8 per TrainJob (policy max-gpus-per-trainjob)"),
        ("mandatory", f'TrainJob team-b/raw: {NODE}.containers[node].resources.limits["nvidia.com/gpu"]: 16 GPUs (8 per node x 2 nodes) '
         "exceeds the limit of 8 per TrainJob (policy max-gpus-per-trainjob)"),
        ("advisory", f"TrainJob team-b/ctl: {queue.format(12)} (policy gpu-trainjobs-need-a-queue)"),
        ("advisory", f"TrainJob team-b/raw: {queue.format(16)} (policy gpu-trainjobs-need-a-queue)"),
        ("mandatory", f'TrainJob team-b/raw: {NODE}.containers[node].image: "docker.io/someone/train:1" (docker.io/someone/train) is not '
         "from an allowed registry: ghcr.io/acme, docker.io/pytorch (policy allowed-image-registries)"),
    ]), output


def test_a_config_that_breaks_the_schema_stops_the_preview_with_the_policy_and_field(engine_env, engine_bin, tmp_path, entry):
    stack = PolicyPreview("bad-config", compliant, engine_env, engine_bin, tmp_path, entry)
    passed, output = stack.preview({"max-gpus-per-trainjob": {"limit": "many"}})
    assert not passed
    assert "max-gpus-per-trainjob: limit: Invalid type. Expected: [integer,null], given: string" in output, output


EXAMPLE_WARNINGS = {
    "dev": [],  # CPU only, a bundled runtime, a docker.io/pytorch image
    "mpi": [("advisory", 'TrainJob default/deepspeed-t5: JobSet metadata.labels["kueue.x-k8s.io/queue-name"]: not set '
             "(TrainJob(..., queue_name=...)), and it asks for 12 GPUs: GPU workloads must name a Kueue queue "
             "(policy gpu-trainjobs-need-a-queue)")],
}


@pytest.mark.parametrize("example", sorted(EXAMPLE_WARNINGS), ids=lambda example: f"the {example} stack")
def test_the_example_stacks_pass_the_example_policy_config_the_gpu_one_with_a_warning(example, engine_env, engine_bin, tmp_path, entry):
    """stacks/policy-config.json, as docs/policy.md runs it: `pulumi preview --policy-pack ... --policy-pack-config
    stacks/policy-config.json` on the example project (the 3.68 language host runs the program; the pack is the entry)."""
    stack = example_stack(example, engine_env, engine_bin, tmp_path)
    stack.set_config("renderDir", auto.ConfigValue(str(tmp_path / "out")))
    lines: list[str] = []
    stack.preview(policy_packs=[str(entry)], policy_pack_configs=[str(REPO / "stacks" / "policy-config.json")],
                  on_output=lines.append, color="never")
    assert reported("\n".join(lines)) == EXAMPLE_WARNINGS[example], "\n".join(lines)


def test_without_pulumi_policy_the_preview_stops_saying_which_extra_to_install(engine_env, engine_bin, tmp_path, entry):
    """The entry of an environment without pulumi-policy (here: the import blocked) exits at once with one line,
    which the CLI shows before `policy pack ... failed to start`."""
    blocked = tmp_path / "entry-without-pulumi-policy"
    blocked.write_text(f"#!{sys.executable}\nimport sys\nsys.modules['pulumi_policy'] = None\n"
                       "from pulumi_kubeflow_trainer.policy.__main__ import main\nsys.exit(main())\n")
    blocked.chmod(0o755)
    stack = PolicyPreview("no-extra", compliant, engine_env, engine_bin, tmp_path / "stack", blocked)
    with pytest.raises(auto.CommandError) as failed:
        stack.stack.preview(policy_packs=[str(blocked)], color="never")
    assert "kubeflow-trainer-policy: pulumi-policy is not installed: pip install 'pulumi-kubeflow-trainer[policy]'" in str(failed.value)
    assert f'policy pack "{blocked}" failed to start' in str(failed.value)
