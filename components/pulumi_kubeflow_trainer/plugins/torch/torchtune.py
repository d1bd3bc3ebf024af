"""TorchTune: the `tune run` command the Torch plugin writes for LLM fine-tuning runtimes.

A TrainJob whose trainer command is exactly `tune run` gets the recipe and config chosen from the
runtime name (`torchtune-<model>-<size>`), the node and GPU counts and the LoRA/QLoRA args.
"""

from __future__ import annotations

from ...api import constants as c
from ...api.rules import show
from ...api.trainjob import Trainer, TrainJob
from ...framework.errors import FieldError
from ...framework.info import RuntimeInfo
from ...framework.kube import Manifest

TUNE_COMMAND = ["tune", "run"]
SUPPORTED_MODELS = ("llama3_2/1B", "llama3_2/3B", "llama3_3/70B", "qwen2_5/1.5B")
MULTI_NODE_MODELS = ("llama3_3/70B",)
QLORA_SINGLE_DEVICE_MODELS = ("llama3_2/1B", "llama3_2/3B")
QLORA_UNSUPPORTED_MODELS = ("qwen2_5/1.5B",)
# Runtime command items the runtime owns: kept from the runtime, refused in TrainJob args.
RUNTIME_MANAGED_KEYS = ("output_dir", "tokenizer.path", "checkpointer.checkpoint_dir", "tokenizer.merges_file")


def is_torchtune(trainer: Trainer | None) -> bool:
    """Whether the TrainJob's trainer command is exactly `tune run`."""
    return trainer is not None and trainer.command == TUNE_COMMAND


def model_of(runtime_name: str) -> str:
    """`torchtune-llama3.2-1b` -> `llama3_2/1B`; anything else -> ""."""
    parts = runtime_name.split("-")
    if len(parts) != 3:
        return ""
    return f"{parts[1].replace('.', '_')}/{parts[2].upper()}"


def _is_true_arg(args: list[str], key_part: str) -> bool:
    for arg in args:
        key, _, value = arg.partition("=")
        if key_part in key and value.lower() == "true":
            return True
    return False


def uses_lora(args: list[str]) -> bool:
    return any("model.lora_attn_modules" in arg for arg in args)


def uses_qlora(args: list[str]) -> bool:
    return _is_true_arg(args, "model.quantize_base") and not _is_true_arg(args, "model.use_dora")


def recipe_and_config(num_nodes: int, num_proc: int | str, gpus: int, args: list[str]) -> tuple[str, str]:
    qlora, lora = uses_qlora(args), uses_lora(args)
    if num_nodes == 1 and (num_proc == 1 or gpus == 1):
        if qlora:
            return "lora_finetune_single_device", "_qlora_single_device"
        if lora:
            return "lora_finetune_single_device", "_lora_single_device"
        return "full_finetune_single_device", "_full_single_device"
    if num_nodes == 1 and qlora:
        return "lora_finetune_distributed", "_qlora"
    if num_nodes == 1 and lora:
        return "lora_finetune_distributed", "_lora"
    if num_nodes > 1:
        return "full_finetune_distributed", "_full_multinode"
    return "full_finetune_distributed", "_full"


def command(info: RuntimeInfo, container: Manifest, num_nodes: int, num_proc: int | str) -> list[str]:
    args = list(info.trainer_args or [])
    gpus = info.gpus_per_node()
    rewritten = list(TUNE_COMMAND)
    distributed = num_nodes > 1 or (isinstance(num_proc, int) and num_proc > 1) or (num_proc == "auto" and gpus > 1)
    if distributed:
        rewritten.append(f"--rdzv_endpoint={info.rank0_host}:{c.CONTAINER_TRAINER_PORT}")
    recipe, suffix = recipe_and_config(num_nodes, num_proc, gpus, args)
    rewritten += [recipe, "--config", model_of(info.runtime.name) + suffix]
    rewritten += [item for item in container.get("command") or [] if item.split("=", 1)[0] in RUNTIME_MANAGED_KEYS]
    return rewritten


def validate(info: RuntimeInfo, trainjob: TrainJob) -> list[FieldError]:
    """The webhook's TorchTune rules; they see numProcPerNode unresolved ("auto"), as upstream does."""
    trainer = trainjob.spec.trainer
    assert trainer is not None
    args = list(trainer.args or [])
    model = model_of(info.runtime.name)
    errors = _immutable_arg_errors(args)
    if model not in SUPPORTED_MODELS:
        errors.append(
            FieldError(
                "spec.runtimeRef.name",
                f"Invalid value: {show(info.runtime.name)}: must have a supported pretrained model, invalid model "
                f"configured: {model}; supported: {', '.join(SUPPORTED_MODELS)}",
            )
        )
        return errors
    # Only the TrainJob's own numNodes counts here, as upstream's webhook reads it (`validateTorchTune`).
    num_nodes = trainer.num_nodes if trainer.num_nodes is not None else 1
    if num_nodes > 1 and model not in MULTI_NODE_MODELS:
        errors.append(FieldError("spec.trainer.numNodes", f"Invalid value: {num_nodes}: must be 1 for {model} model"))
    if num_nodes > 1 and (uses_lora(args) or uses_qlora(args)):
        errors.append(
            FieldError(
                "spec.trainer.numNodes",
                f"Invalid value: {num_nodes}: LoRA fine-tuning is not supported for multi-node training in TorchTune",
            )
        )
    errors.extend(_qlora_errors(info, trainjob, model, num_nodes, args))
    return errors


def _immutable_arg_errors(args: list[str]) -> list[FieldError]:
    errors = []
    for index, arg in enumerate(args):
        key = arg.split("=", 1)[0]
        if key in RUNTIME_MANAGED_KEYS:
            errors.append(
                FieldError(
                    f"spec.trainer.args[{index}]",
                    f'Invalid value: {show(arg)}: must not set immutable config "{key}" in trainer args; '
                    "it is managed by the runtime",
                )
            )
    return errors


def _qlora_errors(info: RuntimeInfo, trainjob: TrainJob, model: str, num_nodes: int, args: list[str]) -> list[FieldError]:
    """Upstream's rules on the config its recipe choice picks (`getRecipeAndConfig`): any QLoRA config
    (single device too) is refused for Qwen 2.5; Llama 3.2 takes QLoRA on one device only."""
    trainer = trainjob.spec.trainer
    num_proc: int | str = trainer.num_proc_per_node if trainer and trainer.num_proc_per_node is not None else "auto"
    _, suffix = recipe_and_config(num_nodes, num_proc, info.gpus_per_node(), args)
    if not suffix.startswith("_qlora"):
        return []
    errors = []
    if model in QLORA_UNSUPPORTED_MODELS:
        errors.append(FieldError("spec.runtimeRef.name", f"Invalid value: {show(info.runtime.name)}: QLoRA is not supported for {model} model"))
    if suffix != "_qlora_single_device" and model in QLORA_SINGLE_DEVICE_MODELS:
        errors.append(FieldError("spec.trainer.numProcPerNode", f"Invalid value: {num_proc}: must be auto or 1 for {model} model when using QLoRA"))
        errors.append(FieldError(
            "spec.trainer.resourcesPerNode",
            f"Invalid value: {show(trainer.resources_per_node.to_manifest() if trainer and trainer.resources_per_node else None)}: "
            f"must have gpu resource with value 1 for {model} model when using QLoRA",
        ))
    return errors
