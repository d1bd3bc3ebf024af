"""Torch: torchrun's PET_* env on the trainer node, its port, and env injection into helper containers."""

from __future__ import annotations

from typing import ClassVar

from ..api import constants as c
from ..api.rules import show
from ..api.runtime import Runtime
from ..api.trainjob import TrainJob
from ..framework.context import RenderContext
from ..framework.errors import FieldError, PluginError
from ..framework.info import PodSet, RuntimeInfo
from ..framework.interfaces import NO_FINDINGS, Verdict
from ..framework.kube import Manifest, env_manifests, field_ref_env, upsert_env, upsert_ports
from ..framework.ml_policy import FunctionLauncher
from . import torchtune
from .objects import reserved_env_error

NAME = "Torch"
RESERVED_ENV = frozenset({"PET_NNODES", "PET_NPROC_PER_NODE", "PET_NODE_RANK", "PET_MASTER_ADDR", "PET_MASTER_PORT"})

NumProcPerNode = int | str  # an int, or "auto" that torchrun resolves on the node


def resolve_num_proc_per_node(info: RuntimeInfo, trainjob: TrainJob) -> NumProcPerNode:
    """The TrainJob's value, else "auto"; "auto" without GPUs becomes the CPU count (at least 1)."""
    trainer = trainjob.spec.trainer
    if trainer is not None and trainer.num_proc_per_node is not None:
        return trainer.num_proc_per_node
    if info.gpus_per_node() == 0:
        return max(1, info.cpus_per_node())
    return "auto"


class TorchPlugin:
    name: ClassVar[str] = NAME
    ml_policy: ClassVar[str] = "torch"
    # --no-python: torchrun execs `python -c <bootstrap> <args>` per process instead of `python <file>`.
    function_launcher: ClassVar[FunctionLauncher] = FunctionLauncher("torchrun", ("torchrun", "--no-python"))

    @staticmethod
    def applies_to(runtime: Runtime) -> bool:
        policy = runtime.spec.ml_policy
        return policy is not None and policy.torch is not None

    def validate(self, info: RuntimeInfo, trainjob: TrainJob, context: RenderContext) -> Verdict:
        if not self.applies_to(info.runtime):
            return NO_FINDINGS
        errors = _missing_injection_targets(info)
        reserved = reserved_env_error(trainjob, RESERVED_ENV, "Torch")
        if reserved is not None:
            errors.append(reserved)
        if torchtune.is_torchtune(trainjob):
            errors.extend(torchtune.validate(info, trainjob))
        return Verdict(errors=errors) if errors else NO_FINDINGS

    def enforce_ml_policy(self, info: RuntimeInfo, trainjob: TrainJob) -> None:
        if not self.applies_to(info.runtime):
            return
        pod_set = info.trainer_pod_set
        self._set_num_nodes(pod_set, trainjob)
        num_proc = resolve_num_proc_per_node(info, trainjob)
        self._configure_trainer_node(info, trainjob, pod_set, num_proc)
        self._inject_env_into_targets(info, pod_set, num_proc)

    @staticmethod
    def _set_num_nodes(pod_set: PodSet | None, trainjob: TrainJob) -> None:
        trainer = trainjob.spec.trainer
        if pod_set is not None and trainer is not None and trainer.num_nodes is not None:
            pod_set.count = trainer.num_nodes

    @staticmethod
    def _configure_trainer_node(
        info: RuntimeInfo, trainjob: TrainJob, pod_set: PodSet | None, num_proc: NumProcPerNode
    ) -> None:
        container = pod_set.find_container(c.NODE) if pod_set else None
        if trainjob.spec.trainer is None or container is None or pod_set is None:
            return  # upstream injects nothing into the main container without spec.trainer
        tune = torchtune.is_torchtune(trainjob)
        if trainjob.spec.trainer.env:
            upsert_env(container, env_manifests(trainjob.spec.trainer.env))
        upsert_env(container, _pet_env(info, pod_set.count, num_proc, with_master=not tune))
        upsert_ports(container, [{"containerPort": c.CONTAINER_TRAINER_PORT}])
        if tune:
            info.trainer_command = torchtune.command(info, container, pod_set.count, num_proc)

    @staticmethod
    def _inject_env_into_targets(info: RuntimeInfo, pod_set: PodSet | None, num_proc: NumProcPerNode) -> None:
        torch = info.ml_policy.torch if info.ml_policy else None
        if torch is None or torch.env_injection is None:
            return
        env = _pet_env(info, pod_set.count if pod_set else 1, num_proc, with_master=True)
        for target in torch.env_injection.targets or []:
            job = info.find_pod_set(name=target.job_name)
            for name in target.container_names:
                container = _find_any_container(job, name)
                if container is None:
                    raise PluginError(NAME, _missing_target_message(target.job_name, name))
                upsert_env(container, env)


def _pet_env(info: RuntimeInfo, num_nodes: int, num_proc: NumProcPerNode, *, with_master: bool) -> list[Manifest]:
    env = [
        {"name": "PET_NNODES", "value": str(num_nodes)},
        {"name": "PET_NPROC_PER_NODE", "value": str(num_proc)},
        field_ref_env("PET_NODE_RANK", c.COMPLETION_INDEX_FIELD),
    ]
    if with_master:
        env.append({"name": "PET_MASTER_ADDR", "value": info.rank0_host})
        env.append({"name": "PET_MASTER_PORT", "value": str(c.CONTAINER_TRAINER_PORT)})
    return env


def _find_any_container(pod_set: PodSet | None, name: str) -> Manifest | None:
    if pod_set is None:
        return None
    return pod_set.find_container(name) or pod_set.find_init_container(name)


def _missing_target_message(job: str, container: str) -> str:
    return f'envInjection target podSet "{job}" container "{container}" not found in runtime template'


def _missing_injection_targets(info: RuntimeInfo) -> list[FieldError]:
    torch = info.ml_policy.torch if info.ml_policy else None
    errors = []
    for index, target in enumerate(torch.env_injection.targets or [] if torch and torch.env_injection else []):
        job = info.find_pod_set(name=target.job_name)
        for name in target.container_names:
            if _find_any_container(job, name) is None:
                errors.append(
                    FieldError(
                        "spec.runtimeRef",
                        f"Invalid value: {show(info.runtime.name)}: runtime spec.mlPolicy.torch.envInjection."
                        f"targets[{index}]: {_missing_target_message(target.job_name, name)}; "
                        "name a job and container the runtime has",
                    )
                )
    return errors
