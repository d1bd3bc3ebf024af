"""PlainML: node count and user env for runtimes whose policy plugin leaves them to it (none, XGBoost, Flux)."""

from __future__ import annotations

from typing import ClassVar

from ..api import constants as c
from ..api.trainjob import TrainJob
from ..framework.info import RuntimeInfo
from ..framework.kube import env_manifests, upsert_env

NAME = "PlainML"


class PlainMLPlugin:
    name: ClassVar[str] = NAME

    def enforce_ml_policy(self, info: RuntimeInfo, trainjob: TrainJob) -> None:
        """Runtimes without a policy, or whose policy's plugin in the rendering registry leaves the
        trainer to PlainML (`leaves_trainer_to_plainml`), or that no plugin of it handles."""
        if not info.plan.plainml_sets_trainer:
            return
        self._set_num_nodes(info, trainjob)
        self._upsert_trainer_env(info, trainjob)

    @staticmethod
    def _set_num_nodes(info: RuntimeInfo, trainjob: TrainJob) -> None:
        trainer, pod_set = trainjob.spec.trainer, info.trainer_pod_set
        if pod_set is not None and trainer is not None and trainer.num_nodes is not None:
            pod_set.count = trainer.num_nodes

    @staticmethod
    def _upsert_trainer_env(info: RuntimeInfo, trainjob: TrainJob) -> None:
        pod_set = info.trainer_pod_set
        container = pod_set.find_container(c.NODE) if pod_set else None
        if trainjob.spec.trainer is not None and container is not None:
            upsert_env(container, env_manifests(trainjob.spec.trainer.env))
