"""TorchTune mode of the Torch plugin (SEMANTICS §3.4 "TorchTune mode", §4.2, §7.16): the `tune run`
command rewrite and the webhook's TorchTune rules."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from pulumi_kubeflow_trainer.plugins.torch.torchtune import model_of
from tests.builders import (
    RuntimeBuilder,
    TrainJobBuilder,
    container,
    env_of,
    jobset_container,
    make_runtime,
    make_trainjob,
    render_one,
    validate_one,
)

MANAGED = [
    "output_dir=/workspace/output",
    "tokenizer.path=/workspace/model/original/tokenizer.model",
    "checkpointer.checkpoint_dir=/workspace/model",
]
RUNTIME_COMMAND = [
    "tune",
    "run",
    "--rdzv_endpoint=localhost:29500",
    "full_finetune_distributed",
    "--config",
    "llama3_2/1B_full",
    "dataset=torchtune.datasets.instruct_dataset",
    MANAGED[0],
    MANAGED[1],
    "tokenizer.merges_file=/workspace/model/merges.txt",
    MANAGED[2],
]
RDZV = "--rdzv_endpoint=job-node-0-0.job:29500"
LORA = "model.lora_attn_modules=[q_proj,v_proj]"
QLORA = "model.quantize_base=True"


def tune_runtime(name: str = "torchtune-llama3.2-1b", gpus: int | None = 2) -> RuntimeBuilder:
    resources = {"resources": {"limits": {"nvidia.com/gpu": gpus}}} if gpus is not None else {}
    return make_runtime(name).num_nodes(1).torch().trainer(container(image="torchtune:1", command=RUNTIME_COMMAND, **resources))


def tune(runtime: str = "torchtune-llama3.2-1b") -> TrainJobBuilder:
    return make_trainjob("team", "job").runtime_ref(runtime).command("tune", "run")


def gpus(count: int) -> dict[str, dict[str, int]]:
    return {"limits": {"nvidia.com/gpu": count}}


KEPT = [*MANAGED[:2], "tokenizer.merges_file=/workspace/model/merges.txt", MANAGED[2]]


@dataclass(frozen=True)
class Command:
    name: str
    trainjob: TrainJobBuilder
    runtime: RuntimeBuilder
    want: list[str]


COMMAND_CASES = [
    Command(
        "two runtime gpus and auto processes run the full distributed recipe",
        tune(),
        tune_runtime(),
        ["tune", "run", RDZV, "full_finetune_distributed", "--config", "llama3_2/1B_full", *KEPT],
    ),
    Command(
        "one gpu runs the full single-device recipe without a rendezvous",
        tune().resources(**gpus(1)),
        tune_runtime(),
        ["tune", "run", "full_finetune_single_device", "--config", "llama3_2/1B_full_single_device", *KEPT],
    ),
    Command(
        "one process per node is single device even with two gpus",
        tune().num_proc_per_node(1),
        tune_runtime(),
        ["tune", "run", "full_finetune_single_device", "--config", "llama3_2/1B_full_single_device", *KEPT],
    ),
    Command(
        "four processes per node need a rendezvous",
        tune().num_proc_per_node(4),
        tune_runtime(),
        ["tune", "run", RDZV, "full_finetune_distributed", "--config", "llama3_2/1B_full", *KEPT],
    ),
    Command(
        "auto without gpus resolves to the cpu count before the recipe is chosen",
        tune().resources(requests={"cpu": "4"}),
        tune_runtime(),
        ["tune", "run", RDZV, "full_finetune_distributed", "--config", "llama3_2/1B_full", *KEPT],
    ),
    Command(
        "auto without gpus or cpus is one process on one device",
        tune(),
        tune_runtime(gpus=None),
        ["tune", "run", "full_finetune_single_device", "--config", "llama3_2/1B_full_single_device", *KEPT],
    ),
    Command(
        "lora args on two gpus run the distributed lora recipe",
        tune().args(LORA),
        tune_runtime(),
        ["tune", "run", RDZV, "lora_finetune_distributed", "--config", "llama3_2/1B_lora", *KEPT],
    ),
    Command(
        "lora args on one gpu run the single-device lora recipe",
        tune().args(LORA).resources(**gpus(1)),
        tune_runtime(),
        ["tune", "run", "lora_finetune_single_device", "--config", "llama3_2/1B_lora_single_device", *KEPT],
    ),
    Command(
        "qlora args on one gpu run the single-device qlora recipe",
        tune().args(LORA, QLORA).resources(**gpus(1)),
        tune_runtime(),
        ["tune", "run", "lora_finetune_single_device", "--config", "llama3_2/1B_qlora_single_device", *KEPT],
    ),
    Command(
        "quantize_base is read case-insensitively",
        tune().args("model.quantize_base=TRUE").num_proc_per_node(1),
        tune_runtime(),
        ["tune", "run", "lora_finetune_single_device", "--config", "llama3_2/1B_qlora_single_device", *KEPT],
    ),
    Command(
        "dora turns quantize_base into plain lora",
        tune().args(LORA, QLORA, "model.use_dora=true").resources(**gpus(1)),
        tune_runtime(),
        ["tune", "run", "lora_finetune_single_device", "--config", "llama3_2/1B_lora_single_device", *KEPT],
    ),
    Command(
        "qlora on several gpus of a 70B model runs the distributed qlora recipe",
        tune("torchtune-llama3.3-70b").args(QLORA),
        tune_runtime("torchtune-llama3.3-70b"),
        ["tune", "run", RDZV, "lora_finetune_distributed", "--config", "llama3_3/70B_qlora", *KEPT],
    ),
    Command(
        "several nodes run the multinode recipe",
        tune("torchtune-llama3.3-70b").num_nodes(2),
        tune_runtime("torchtune-llama3.3-70b"),
        ["tune", "run", RDZV, "full_finetune_distributed", "--config", "llama3_3/70B_full_multinode", *KEPT],
    ),
    Command(
        "several nodes with one process each still need a rendezvous",
        tune("torchtune-llama3.3-70b").num_nodes(2).num_proc_per_node(1),
        tune_runtime("torchtune-llama3.3-70b"),
        ["tune", "run", RDZV, "full_finetune_distributed", "--config", "llama3_3/70B_full_multinode", *KEPT],
    ),
]


@pytest.mark.parametrize("case", COMMAND_CASES, ids=lambda case: case.name)
def test_tune_run_is_rewritten(case: Command) -> None:
    node = jobset_container(render_one(case.trainjob, case.runtime), "node")
    assert node["command"] == case.want


def test_args_are_passed_unchanged() -> None:
    node = jobset_container(render_one(tune().args(LORA, "epochs=2"), tune_runtime()), "node")
    assert node["args"] == [LORA, "epochs=2"]


def test_tune_mode_sets_no_master_address_or_port() -> None:
    env = env_of(jobset_container(render_one(tune(), tune_runtime()), "node"))
    assert "PET_MASTER_ADDR" not in env and "PET_MASTER_PORT" not in env
    assert (env["PET_NNODES"], env["PET_NPROC_PER_NODE"]) == ("1", "auto")


def test_a_command_that_only_starts_with_tune_run_is_not_rewritten() -> None:
    trainjob = tune().command("tune", "run", "my_recipe")
    node = jobset_container(render_one(trainjob, tune_runtime()), "node")
    assert node["command"] == ["tune", "run", "my_recipe"]
    assert "PET_MASTER_ADDR" in env_of(node)


@pytest.mark.parametrize(
    ("runtime", "model"),
    [
        ("torchtune-llama3.2-1b", "llama3_2/1B"),
        ("torchtune-qwen2.5-1.5b", "qwen2_5/1.5B"),
        ("torchtune-llama3.3-70b", "llama3_3/70B"),
        ("torch-distributed", ""),
        ("torchtune-llama-3-8b", ""),
    ],
)
def test_the_model_comes_from_a_three_part_runtime_name(runtime: str, model: str) -> None:
    assert model_of(runtime) == model


@dataclass(frozen=True)
class Invalid:
    name: str
    trainjob: TrainJobBuilder
    runtime: RuntimeBuilder
    errors: list[tuple[str, str]]


INVALID = [
    Invalid(
        "a runtime whose name maps to no supported model is rejected",
        tune("torchtune-gemma-7b"),
        tune_runtime("torchtune-gemma-7b"),
        [("spec.runtimeRef.name", "must have a supported pretrained model, invalid model configured: gemma/7B")],
    ),
    Invalid(
        "a small model is one node only",
        tune().num_nodes(2),
        tune_runtime(),
        [("spec.trainer.numNodes", "must be 1 for llama3_2/1B model")],
    ),
    Invalid(
        "lora on several nodes is rejected",
        tune("torchtune-llama3.3-70b").num_nodes(2).args(LORA),
        tune_runtime("torchtune-llama3.3-70b"),
        [("spec.trainer.numNodes", "LoRA fine-tuning is not supported for multi-node training in TorchTune")],
    ),
    Invalid(
        "qlora across devices is not supported for qwen",
        tune("torchtune-qwen2.5-1.5b").args(QLORA),
        tune_runtime("torchtune-qwen2.5-1.5b"),
        [("spec.runtimeRef.name", "QLoRA is not supported for qwen2_5/1.5B model")],
    ),
    Invalid(
        "qlora on one gpu is not supported for qwen either (upstream refuses every qlora config)",
        tune("torchtune-qwen2.5-1.5b").args(QLORA).resources(**gpus(1)),
        tune_runtime("torchtune-qwen2.5-1.5b"),
        [("spec.runtimeRef.name", "QLoRA is not supported for qwen2_5/1.5B model")],
    ),
    Invalid(
        "qlora on llama 3.2 needs one process and one gpu",
        tune().args(QLORA).num_proc_per_node(2),
        tune_runtime(),
        [
            ("spec.trainer.numProcPerNode", "must be auto or 1 for llama3_2/1B model when using QLoRA"),
            ("spec.trainer.resourcesPerNode", "must have gpu resource with value 1 for llama3_2/1B model when using QLoRA"),
        ],
    ),
    Invalid(
        "qlora on llama 3.2 without gpus is rejected although generation would pick one cpu process",
        tune("torchtune-llama3.2-3b").args(QLORA),
        tune_runtime("torchtune-llama3.2-3b", gpus=None),
        [  # upstream reports both, whichever of the two is wrong
            ("spec.trainer.numProcPerNode", "must be auto or 1 for llama3_2/3B model when using QLoRA"),
            ("spec.trainer.resourcesPerNode", "must have gpu resource with value 1 for llama3_2/3B model when using QLoRA"),
        ],
    ),
    Invalid(
        "runtime-managed configs may not be set in args",
        tune().args("epochs=1", "output_dir=/tmp/out", "tokenizer.merges_file=/m"),
        tune_runtime(),
        [
            ("spec.trainer.args[1]", 'must not set immutable config "output_dir" in trainer args; it is managed by the runtime'),
            ("spec.trainer.args[2]", 'must not set immutable config "tokenizer.merges_file" in trainer args'),
        ],
    ),
]


@pytest.mark.parametrize("case", INVALID, ids=lambda case: case.name)
def test_validation(case: Invalid) -> None:
    verdict = validate_one(case.trainjob, case.runtime)
    assert [error.path for error in verdict.errors] == [path for path, _ in case.errors]
    for error, (_, says) in zip(verdict.errors, case.errors, strict=True):
        assert says in error.message


@dataclass(frozen=True)
class Valid:
    name: str
    trainjob: TrainJobBuilder
    runtime: RuntimeBuilder


VALID = [
    Valid(
        "only the trainjob's numNodes counts, not the runtime's (upstream's webhook reads spec.trainer.numNodes)",
        tune(), tune_runtime().num_nodes(3),
    ),
    Valid("qlora on llama 3.2 with one gpu is accepted", tune().args(QLORA).resources(**gpus(1)), tune_runtime()),
    Valid("a 70B model may use several nodes", tune("torchtune-llama3.3-70b").num_nodes(4), tune_runtime("torchtune-llama3.3-70b")),
    Valid(
        "without tune run no torchtune rule applies",
        make_trainjob("team", "job").runtime_ref("torchtune-gemma-7b").num_nodes(3).args("output_dir=/x"),
        tune_runtime("torchtune-gemma-7b"),
    ),
]


@pytest.mark.parametrize("case", VALID, ids=lambda case: case.name)
def test_valid(case: Valid) -> None:
    assert validate_one(case.trainjob, case.runtime).errors == []
