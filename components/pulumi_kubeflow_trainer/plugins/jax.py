"""JAX: process count, process id and coordinator address for `jax.distributed.initialize`."""

from __future__ import annotations

from typing import ClassVar

from ..api import constants as c
from ..api.runtime import Runtime
from ..api.trainjob import TrainJob
from ..framework.info import RuntimeInfo
from ..framework.kube import field_ref_env, upsert_env, upsert_ports

NAME = "JAX"


class JAXPlugin:
    name: ClassVar[str] = NAME
    ml_policy: ClassVar[str] = "jax"

    @staticmethod
    def applies_to(runtime: Runtime) -> bool:
        policy = runtime.spec.ml_policy
        return policy is not None and policy.jax is not None

    def enforce_ml_policy(self, info: RuntimeInfo, trainjob: TrainJob) -> None:
        if not self.applies_to(info.runtime):
            return
        pod_set = info.trainer_pod_set
        trainer = trainjob.spec.trainer
        if pod_set is None:
            return
        if trainer is not None and trainer.num_nodes is not None:
            pod_set.count = trainer.num_nodes
        container = pod_set.find_container(c.NODE)
        if trainer is None or container is None:
            return
        # The user's env is applied after these by the JobSet builder, as upstream does.
        upsert_env(
            container,
            [
                {"name": "JAX_NUM_PROCESSES", "value": str(pod_set.count)},
                field_ref_env("JAX_PROCESS_ID", c.COMPLETION_INDEX_FIELD),
                {"name": "JAX_COORDINATOR_ADDRESS", "value": f"{info.rank0_host}:{c.CONTAINER_TRAINER_PORT}"},
            ],
        )
        upsert_ports(container, [{"containerPort": c.CONTAINER_TRAINER_PORT}])
