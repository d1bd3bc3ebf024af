"""XGBoostJob (XGBoost and LightGBM) -> TrainJob on xgboost-distributed (or a generated xgboost runtime).

v1.8.1 (pkg/controller.v1/xgboost/xgboost.go, SetPodEnv): a Master and Workers, each Pod with
MASTER_ADDR/PORT (the Rabit tracker on the Master), WORLD_SIZE, RANK and, for LightGBM, WORKER_ADDRS
and WORKER_PORT. v2's XGBoost policy sets DMLC_TRACKER_URI/PORT, DMLC_TASK_ID and DMLC_NUM_WORKER
instead; the migrated TrainJob also sets v1's names, with v2's hosts, so v1 code runs unchanged.
"""

from __future__ import annotations

from typing import Any

from ..api import constants as c
from .plan import JobPart, Plan, node_host, rank_env
from .report import Losses
from .shared import one_template, spec_leftovers
from .v1job import V1Job

RESERVED_ENV = frozenset({"DMLC_TRACKER_URI", "DMLC_TRACKER_PORT", "DMLC_TASK_ID", "DMLC_NUM_WORKER"})
SPEC_KEYS = ("runPolicy", "xgbReplicaSpecs")


def convert(job: V1Job, losses: Losses) -> Plan:
    one = one_template(job, losses, drop_port=True)
    spec_leftovers(job, SPEC_KEYS, losses)
    return Plan(
        job=job, losses=losses, framework="xgboost", bundled="xgboost-distributed",
        ml_policy={"numNodes": one.nodes, "xgboost": {}},
        jobs=[JobPart(c.NODE, one.template, one.restart_policy, container_path=one.container_path, trainer=True)],
        num_nodes=one.nodes, reserved_env=RESERVED_ENV, compat_env=_compat_env(job.name, one.nodes),
    )


def _compat_env(name: str, nodes: int) -> list[dict[str, Any]]:
    port = str(c.CONTAINER_TRAINER_PORT)
    env: list[dict[str, Any]] = [
        {"name": "MASTER_PORT", "value": port},
        {"name": "MASTER_ADDR", "value": node_host(name, 0)},
        {"name": "WORLD_SIZE", "value": str(nodes)},
        rank_env("RANK"),
        {"name": "PYTHONUNBUFFERED", "value": "1"},
    ]
    if nodes > 1:
        env.append({"name": "WORKER_PORT", "value": port})
        env.append({"name": "WORKER_ADDRS", "value": ",".join(node_host(name, rank) for rank in range(1, nodes))})
    return env
