"""Torch: torchrun's PET_* env on the trainer node, its port, and env injection into helper containers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ...api import constants as c
from ...api.rules import show
from ...api.runtime import Runtime
from ...api.trainjob import TrainJob
from ...framework.compiled import CompiledRuntime, Derived
from ...framework.context import RenderContext
from ...framework.errors import FieldError, PluginError
from ...framework.info import PodSet, RuntimeInfo
from ...framework.interfaces import NO_FINDINGS, Verdict
from ...framework.kube import Manifest, env_manifests, field_ref_env, upsert_env, upsert_ports
from ...framework.ml_policy import FunctionLauncher
from ...framework.objects import reserved_env_error
from ...framework.plan import template_pod_sets
from . import torchtune

NAME = "Torch"
RESERVED_ENV = frozenset({"PET_NNODES", "PET_NPROC_PER_NODE", "PET_NODE_RANK", "PET_MASTER_ADDR", "PET_MASTER_PORT"})

MASTER_PORT = str(c.CONTAINER_TRAINER_PORT)

NumProcPerNode = int | str  # an int, or "auto" that torchrun resolves on the node


InjectionTarget = tuple[str, tuple[str, ...]]  # (job name, container names) of mlPolicy.torch.envInjection


@dataclass(frozen=True)
class TorchPolicy:
    """What the plugin reads from a runtime's torch policy, once per runtime."""

    injection_targets: tuple[InjectionTarget, ...]
    missing_targets: tuple[FieldError, ...]  # the targets the runtime's own template lacks


def _torch_policy(compiled: CompiledRuntime) -> TorchPolicy | None:
    policy = compiled.runtime.spec.ml_policy
    torch = policy.torch if policy is not None else None
    if torch is None:
        return None
    targets = tuple((target.job_name, tuple(target.container_names)) for target in
                    (torch.env_injection.targets or [] if torch.env_injection else []))
    missing = _missing_injection_targets(compiled.runtime.name, targets, template_pod_sets(compiled))
    return TorchPolicy(injection_targets=targets, missing_targets=tuple(missing))


TORCH_POLICY: Derived[TorchPolicy | None] = Derived("torch policy", _torch_policy)


def resolve_num_proc_per_node(info: RuntimeInfo, trainjob: TrainJob) -> NumProcPerNode:
    """The TrainJob's value, else "auto"; "auto" without GPUs becomes the CPU count (at least 1)."""
    trainer = info.trainer
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
        torch = info.compiled.derive(TORCH_POLICY)
        if torch is None:
            return NO_FINDINGS
        # A runtime patch may add a target or take one away; otherwise the runtime's answer holds.
        if info.patched:
            errors = _missing_injection_targets(info.runtime.name, torch.injection_targets, info.pod_sets)
        else:
            errors = list(torch.missing_targets)
        reserved = reserved_env_error(info.trainer, RESERVED_ENV, "Torch")
        if reserved is not None:
            errors.append(reserved)
        if torchtune.is_torchtune(info.trainer):
            errors.extend(torchtune.validate(info, trainjob))
        return Verdict(errors=errors) if errors else NO_FINDINGS

    def enforce_ml_policy(self, info: RuntimeInfo, trainjob: TrainJob) -> None:
        torch = info.compiled.derive(TORCH_POLICY)
        if torch is None:
            return
        pod_set, trainer = info.trainer_pod_set, info.trainer
        if pod_set is not None and trainer is not None and trainer.num_nodes is not None:
            pod_set.count = trainer.num_nodes
        num_proc = resolve_num_proc_per_node(info, trainjob)
        self._configure_trainer_node(info, trainjob, pod_set, num_proc)
        if torch.injection_targets:
            self._inject_env_into_targets(info, torch.injection_targets, pod_set, num_proc)

    @staticmethod
    def _configure_trainer_node(
        info: RuntimeInfo, trainjob: TrainJob, pod_set: PodSet | None, num_proc: NumProcPerNode
    ) -> None:
        container = pod_set.find_container(c.NODE) if pod_set else None
        trainer = info.trainer
        if trainer is None or container is None or pod_set is None:
            return  # upstream injects nothing into the main container without spec.trainer
        tune = torchtune.is_torchtune(trainer)
        if trainer.env:
            upsert_env(container, env_manifests(trainer.env))
        upsert_env(container, _pet_env(info, pod_set.count, num_proc, with_master=not tune))
        upsert_ports(container, [{"containerPort": c.CONTAINER_TRAINER_PORT}])
        if tune:
            info.trainer_command = torchtune.command(info, container, pod_set.count, num_proc)

    @staticmethod
    def _inject_env_into_targets(
        info: RuntimeInfo, targets: tuple[InjectionTarget, ...], pod_set: PodSet | None, num_proc: NumProcPerNode
    ) -> None:
        env = _pet_env(info, pod_set.count if pod_set else 1, num_proc, with_master=True)
        for job_name, container_names in targets:
            job = info.find_pod_set(name=job_name)
            for name in container_names:
                container = _find_any_container(job, name)
                if container is None:
                    raise PluginError(NAME, _missing_target_message(job_name, name))
                upsert_env(container, env)


def _pet_env(info: RuntimeInfo, num_nodes: int, num_proc: NumProcPerNode, *, with_master: bool) -> list[Manifest]:
    env = [
        {"name": "PET_NNODES", "value": str(num_nodes)},
        {"name": "PET_NPROC_PER_NODE", "value": str(num_proc)},
        field_ref_env("PET_NODE_RANK", c.COMPLETION_INDEX_FIELD),
    ]
    if with_master:
        env.append({"name": "PET_MASTER_ADDR", "value": info.rank0_host})
        env.append({"name": "PET_MASTER_PORT", "value": MASTER_PORT})
    return env


def _find_any_container(pod_set: PodSet | None, name: str) -> Manifest | None:
    if pod_set is None:
        return None
    return pod_set.find_container(name) or pod_set.find_init_container(name)


def _missing_target_message(job: str, container: str) -> str:
    return f'envInjection target podSet "{job}" container "{container}" not found in runtime template'


def _missing_injection_targets(runtime: str, targets: tuple[InjectionTarget, ...], pod_sets: list[PodSet]) -> list[FieldError]:
    errors = []
    for index, (job_name, container_names) in enumerate(targets):
        job = next((pod_set for pod_set in pod_sets if pod_set.name == job_name), None)
        for name in container_names:
            if _find_any_container(job, name) is None:
                errors.append(
                    FieldError(
                        "spec.runtimeRef",
                        f"Invalid value: {show(runtime)}: runtime spec.mlPolicy.torch.envInjection."
                        f"targets[{index}]: {_missing_target_message(job_name, name)}; "
                        "name a job and container the runtime has",
                    )
                )
    return errors
