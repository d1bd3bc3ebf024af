"""The Pulumi YAML example (stacks/yaml) through the real engine, the YAML language host and the
component package's plugin, on the render target: it previews and ups, a second preview is empty, its
manifests are the bytes a Python program with the same inputs renders, a change previews as in Python,
bad input stops the preview with the field path, destroy removes what up rendered, and `pulumi package
get-schema` prints schema.json."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pulumi
import pulumi.automation as auto
import pulumi_kubernetes as k8s
import pytest
import yaml

from pulumi_kubeflow_trainer import ClusterTrainingRuntime, TrainerArgs, TrainJob
from pulumi_kubeflow_trainer.package import PLUGIN_DIR
from tests.toolchain import REPO, inline_stack, isolated_engine_env

from .conftest import PASSPHRASE

pytestmark = pytest.mark.engine
PROGRAM = REPO / "stacks" / "yaml" / "Pulumi.yaml"
JOBSET = "kubernetes:jobset.x-k8s.io/v1alpha2:JobSet::torch-quickstart-jobset"


@pytest.fixture(scope="module")
def yaml_bin(engine_bin: Path) -> Path:
    if not os.access(engine_bin / "pulumi-language-yaml", os.X_OK):
        message = f"no pulumi-language-yaml in {engine_bin}: run tools/bootstrap"
        if os.environ.get("PULUMI_KFT_REQUIRE_ENGINE") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return engine_bin


class YamlStack:
    """The example on a copy of its project whose `packages:` names this checkout's plugin directory."""

    def __init__(self, root: Path, bin_dir: Path) -> None:
        self.root, self.render_dir, self.project = root, root / "out", root / "project"
        self.env = isolated_engine_env(bin_dir, root, PASSPHRASE)
        self.log = (root / "pulumi.log").open("w")
        self.project.mkdir()
        self.write_program(PROGRAM.read_text())
        options = auto.LocalWorkspaceOptions(work_dir=str(self.project), pulumi_home=self.env["PULUMI_HOME"], env_vars=self.env,
                                             pulumi_command=auto.PulumiCommand(root=str(bin_dir.parent)), secrets_provider="passphrase")
        self.stack = auto.create_stack("yaml", work_dir=str(self.project), opts=options)
        self.stack.set_config("renderDir", auto.ConfigValue(str(self.render_dir)))

    def write_program(self, text: str) -> None:
        packages = "kubeflow-trainer: ../../components/pulumi_kubeflow_trainer/package"
        assert packages in text, "the example names the package's plugin directory"
        (self.project / "Pulumi.yaml").write_text(text.replace(packages, f"kubeflow-trainer: {PLUGIN_DIR}"))

    def preview(self) -> tuple[dict[str, int], list[tuple[str, str]]]:
        """The change summary and the (op, urn) steps."""
        steps: list[tuple[str, str]] = []

        def record(event: auto.EngineEvent) -> None:
            if event.resource_pre_event:
                metadata = event.resource_pre_event.metadata
                steps.append((str(getattr(metadata.op, "value", metadata.op)), metadata.urn))

        result = self.stack.preview(on_output=self.out, on_event=record, color="never")
        return dict(result.change_summary), steps

    def out(self, line: str) -> None:
        self.log.write(line + "\n")


@pytest.fixture(scope="module")
def deployed(yaml_bin: Path, tmp_path_factory: pytest.TempPathFactory) -> Any:
    stack = YamlStack(tmp_path_factory.mktemp("yaml-stack"), yaml_bin)
    stack.first_preview, _ = stack.preview()
    stack.up = stack.stack.up(on_output=stack.out, color="never")
    return stack


def changes(summary: dict[str, int]) -> dict[str, int]:
    return {op: count for op, count in summary.items() if op != "same" and count}


def test_the_yaml_stack_previews_and_ups_on_the_render_target(deployed: Any) -> None:
    assert deployed.first_preview.get("create") == 21, \
        "the stack, the provider, 2+2 runtimes, 2+2 TrainJobs and their 11 children, the text of each runtime's revision"
    assert deployed.up.summary.result == "succeeded"
    outputs = {name: value.value for name, value in deployed.up.outputs.items()}
    assert (outputs["torchJobSet"], outputs["deepspeedJobSet"]) == ("torch-quickstart", "deepspeed-t5")
    assert outputs["deepspeedSshPublicKey"].startswith("ecdsa-sha2-nistp521 "), "the MPI key's public half, an output of the package"
    assert len(list((deployed.render_dir / "1-manifest").glob("*.yaml"))) == 4
    summary, _ = deployed.preview()
    assert changes(summary) == {}, f"a second preview shows no changes: {summary}"


def test_the_yaml_stack_renders_the_bytes_a_python_program_renders(deployed: Any, engine_bin: Path, tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The Python program below has the inputs of stacks/yaml/Pulumi.yaml. Keys are generated per stack at
    deploy time: the Secret's data differ, and are compared by their keys only."""
    python_dir = tmp_path / "python-out"
    monkeypatch.delenv("KUBECONFIG", raising=False)  # inline programs: render mode refuses a kubeconfig

    def program() -> None:
        opts = pulumi.ResourceOptions(provider=k8s.Provider("render", render_yaml_to_directory=str(python_dir)))
        torch = ClusterTrainingRuntime.bundled("torch-distributed", name="torch", opts=opts)
        deepspeed = ClusterTrainingRuntime.bundled("deepspeed-distributed", name="deepspeed", opts=opts)
        TrainJob("torch-quickstart", runtime=torch, namespace="default", suspend=False, opts=opts, trainer=TrainerArgs(
            num_nodes=2, command=["torchrun", "--nproc-per-node=1", "/workspace/train.py"], env={"NCCL_DEBUG": "INFO"},
            resources_per_node={"requests": {"cpu": "1", "memory": "2Gi"}, "limits": {"cpu": "1", "memory": "2Gi"}}))
        node = {"nodeSelector": {"pool": "a100"}, "securityContext": {"runAsGroup": 1000}, "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]}
        patch = {"manager": "platform.example.com/gpu-pool", "trainingRuntimeSpec": {"template": {"spec": {"replicatedJobs": [
            {"name": "node", "template": {"spec": {"template": {"spec": node}}}}]}}}}
        TrainJob("deepspeed-t5", runtime_ref="deepspeed-distributed", runtimes=[deepspeed], namespace="default", runtime_patches=[patch],
                 opts=opts, trainer=TrainerArgs(num_nodes=3, command=["mpirun", "--allow-run-as-root", "python3", "/home/mpiuser/train_t5.py"],
                                                resources_per_node={"limits": {"nvidia.com/gpu": 4}}))

    env = isolated_engine_env(engine_bin, tmp_path, PASSPHRASE)
    stack = inline_stack("python", "kubeflow-trainer-python", program, env, engine_bin)
    assert stack.up(color="never").summary.result == "succeeded"
    yaml_files, python_files = rendered(deployed.render_dir), rendered(python_dir)
    assert sorted(yaml_files) == sorted(python_files)
    for name, text in python_files.items():
        assert deterministic(yaml_files[name]) == deterministic(text), f"{name} differs"
    assert sum(name.startswith("v1-secret-") for name in python_files) == 1, "the MPI Secret is compared too (without its key material)"


def rendered(directory: Path) -> dict[str, str]:
    return {path.name: path.read_text() for path in sorted((directory / "1-manifest").glob("*.yaml"))}


def deterministic(text: str) -> str:
    """The file as it is, except a Secret's data (keys generated per stack): its keys are kept."""
    document = yaml.safe_load(text)
    if document.get("kind") != "Secret":
        return text
    return json.dumps({**document, "data": dict.fromkeys(document.get("data") or {}, "<generated per stack>")}, sort_keys=True)


def test_a_change_previews_as_in_python_bad_input_stops_the_preview_with_the_field_path_and_destroy_cleans_up(deployed: Any) -> None:
    deployed.stack.set_config("numNodes", auto.ConfigValue("3"))
    _, steps = deployed.preview()
    assert {op for op, urn in steps if urn.endswith(JOBSET)} & {"replace", "create-replacement", "delete-replaced"}, f"numNodes replaces the JobSet: {steps}"
    deployed.stack.remove_config("numNodes")

    deployed.stack.set_config("suspend", auto.ConfigValue("true"))
    _, steps = deployed.preview()
    assert {op for op, urn in steps if urn.endswith(JOBSET)} == {"update"}, f"suspend is an in-place update of the JobSet: {steps}"
    deployed.stack.remove_config("suspend")

    bad = PROGRAM.read_text().replace('limits: {cpu: "1", memory: 2Gi}', "limits: {cpu: lots, memory: 2Gi}")
    deployed.write_program(bad)
    try:
        with pytest.raises(auto.CommandError) as refused:
            deployed.preview()
    finally:
        deployed.write_program(PROGRAM.read_text())
    message = str(refused.value)
    assert "kubeflow-trainer:index:TrainJob resource 'torch-quickstart' has a problem: invalid input" in message
    assert 'property trainer.resourcesPerNode.limits.cpu with value "lots" has a problem: Invalid value: "lots"' in message
    assert "Traceback" not in message and 'File "' not in message, "no Python stack from inside the provider"

    deployed.stack.destroy(on_output=deployed.out, color="never")
    assert list((deployed.render_dir / "1-manifest").glob("*.yaml")) == [], "destroy removes every rendered manifest"


def test_get_schema_through_the_plugin_prints_the_checked_in_schema(yaml_bin: Path, tmp_path: Path) -> None:
    """The CLI re-marshals the schema the package serves: it leaves out empty lists and the descriptions of
    list items and map values (not part of a type in Pulumi's schema), and adds an empty `config`."""
    env = isolated_engine_env(yaml_bin, tmp_path, PASSPHRASE)
    printed = subprocess.run(["pulumi", "package", "get-schema", str(PLUGIN_DIR / "pulumi-resource-kubeflow-trainer")],
                             cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert printed.returncode == 0, printed.stderr
    checked_in = json.loads((PLUGIN_DIR / "schema.json").read_text())
    assert as_the_cli_prints(json.loads(printed.stdout)) == as_the_cli_prints(checked_in)


def as_the_cli_prints(schema: Any, parent: str = "") -> Any:
    if isinstance(schema, dict):
        return {key: as_the_cli_prints(value, key) for key, value in schema.items()
                if value not in ([], {}) and not (key == "description" and parent in ("items", "additionalProperties"))}
    if isinstance(schema, list):
        return [as_the_cli_prints(item, parent) for item in schema]
    return schema
