"""PaddleJob -> TrainJob and a generated TrainingRuntime (v2 bundles no PaddlePaddle runtime).

v1.8.1 (pkg/controller.v1/paddlepaddle/envvar.go): Workers only (collective mode) rendezvous at
worker 0's port named `master`; with a Master (parameter-server mode) at the Master's. The generated
runtime has no ML policy (PlainML: node count and env), and the TrainJob sets PADDLE_* itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..api import constants as c
from .plan import JobPart, Plan, node_container, node_host
from .report import Losses
from .shared import one_template, spec_leftovers
from .v1job import V1Job

SPEC_KEYS = ("runPolicy", "paddleReplicaSpecs", "elasticPolicy")


def convert(job: V1Job, losses: Losses) -> Plan:
    one = one_template(job, losses, drop_port=False)
    spec_leftovers(job, SPEC_KEYS, losses)
    port = _rendezvous_port(node_container(one.template), job)
    master = job.replica("Master")
    if master is not None:
        losses.add(master.path, "parameter-server mode (a Master): v2 runs every node from one pod template in collective "
                                "mode, the Master's; PADDLE_SERVER_NUM and PADDLE_TRAINER_NUM are not set")
    elastic = job.spec.get("elasticPolicy")
    for key in elastic if isinstance(elastic, Mapping) else ():
        losses.add(f"spec.elasticPolicy.{key}", "v2 runs a fixed number of nodes, the replicas: elastic PaddlePaddle jobs "
                                                "are not carried")
    env: list[dict[str, Any]] = [
        {"name": "PYTHONUNBUFFERED", "value": "1"},
        {"name": "PADDLE_JOB_ID", "value": job.name},
        {"name": "PADDLE_NNODES", "value": str(one.nodes)},
        {"name": "PADDLE_MASTER", "value": f"{node_host(job.name, 0)}:{port}"},
    ]
    return Plan(
        job=job, losses=losses, framework="paddle", bundled=None, ml_policy={"numNodes": one.nodes},
        jobs=[JobPart(c.NODE, one.template, one.restart_policy, container_path=one.container_path, trainer=True)],
        num_nodes=one.nodes, compat_env=env, needs_runtime=["v2 bundles no PaddlePaddle runtime"],
    )


def _rendezvous_port(container: dict[str, Any], job: V1Job) -> int:
    """The port named `master` of the paddle container; v1 adds it (36543) when absent, and so does this."""
    assert job.rules.port is not None
    name, default = job.rules.port
    for port in container.get("ports") or []:
        if isinstance(port, Mapping) and port.get("name") == name and isinstance(port.get("containerPort"), int):
            return int(port["containerPort"])
    container["ports"] = [*(container.get("ports") or []), {"name": name, "containerPort": default}]
    return default
