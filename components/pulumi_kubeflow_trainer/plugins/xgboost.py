"""XGBoost: the DMLC tracker env of Rabit/collective on every worker."""

from __future__ import annotations

from typing import ClassVar

from ..api import constants as c
from ..api.rules import show
from ..api.runtime import Runtime
from ..api.trainjob import TrainJob
from ..framework.context import RenderContext
from ..framework.errors import FieldError
from ..framework.info import RuntimeInfo
from ..framework.interfaces import NO_FINDINGS, Verdict
from ..framework.kube import field_ref_env, upsert_env, upsert_ports

NAME = "XGBoost"
RESERVED_ENV = ("DMLC_TRACKER_URI", "DMLC_TRACKER_PORT", "DMLC_TASK_ID", "DMLC_NUM_WORKER")


class XGBoostPlugin:
    name: ClassVar[str] = NAME
    ml_policy: ClassVar[str] = "xgboost"
    leaves_trainer_to_plainml: ClassVar[bool] = True  # PlainML's env first, then the DMLC_* env

    @staticmethod
    def applies_to(runtime: Runtime) -> bool:
        policy = runtime.spec.ml_policy
        return policy is not None and policy.xgboost is not None

    def validate(self, info: RuntimeInfo, trainjob: TrainJob, context: RenderContext) -> Verdict:
        trainer = trainjob.spec.trainer
        if not self.applies_to(info.runtime) or trainer is None:
            return NO_FINDINGS
        verdict = Verdict()
        for index, var in enumerate(trainer.env or []):
            if var.name in RESERVED_ENV:
                verdict.errors.append(
                    FieldError(
                        f"spec.trainer.env[{index}]",
                        f"Forbidden: {show(var.name)}: {var.name} is reserved for the XGBoost runtime; remove it",
                    )
                )
        return verdict

    def enforce_ml_policy(self, info: RuntimeInfo, trainjob: TrainJob) -> None:
        pod_set = info.trainer_pod_set
        if not self.applies_to(info.runtime) or pod_set is None:
            return
        trainer = trainjob.spec.trainer
        if trainer is not None and trainer.num_nodes is not None:
            pod_set.count = trainer.num_nodes
        container = pod_set.find_container(c.NODE)
        if trainer is None or container is None:
            return
        workers_per_node = info.gpus_per_node() or 1
        upsert_env(
            container,
            [
                {"name": "DMLC_TRACKER_URI", "value": info.rank0_host},
                {"name": "DMLC_TRACKER_PORT", "value": str(c.CONTAINER_TRAINER_PORT)},
                field_ref_env("DMLC_TASK_ID", c.COMPLETION_INDEX_FIELD),
                {"name": "DMLC_NUM_WORKER", "value": str(pod_set.count * workers_per_node)},
            ],
        )
        upsert_ports(container, [{"containerPort": c.CONTAINER_TRAINER_PORT}])
