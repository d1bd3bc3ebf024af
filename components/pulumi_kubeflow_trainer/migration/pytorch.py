"""PyTorchJob -> TrainJob on torch-distributed (or a generated torch runtime).

v1.8.1 (pkg/controller.v1/pytorch, SetDefaults_PyTorchJob): Master and Workers each get a Pod; all
of them run torch with MASTER_ADDR/PORT, WORLD_SIZE and RANK (with a Master) and PET_* for torchrun.
v2 runs one Indexed Job of `numNodes` Pods from one template, rank = completion index.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..api import constants as c
from ..api.rules import show
from .plan import JobPart, Plan, node_host, rank_env
from .report import Losses
from .shared import one_template, spec_leftovers
from .v1job import V1Job

RESERVED_ENV = frozenset({"PET_NNODES", "PET_NPROC_PER_NODE", "PET_NODE_RANK", "PET_MASTER_ADDR", "PET_MASTER_PORT"})
SPEC_KEYS = ("runPolicy", "pytorchReplicaSpecs", "elasticPolicy", "nprocPerNode")
ELASTIC_ENV = (("rdzvBackend", "PET_RDZV_BACKEND"), ("maxRestarts", "PET_MAX_RESTARTS"), ("rdzvId", "PET_RDZV_ID"))


def convert(job: V1Job, losses: Losses) -> Plan:
    one = one_template(job, losses, drop_port=True)
    nodes = one.nodes
    spec_leftovers(job, SPEC_KEYS, losses)
    elastic = job.spec.get("elasticPolicy")
    elastic = elastic if isinstance(elastic, Mapping) else None
    nproc = _num_proc_per_node(job, elastic, losses)
    plan = Plan(
        job=job, losses=losses, framework="torch", bundled="torch-distributed",
        ml_policy={"numNodes": nodes, "torch": {}},
        jobs=[JobPart(c.NODE, one.template, one.restart_policy, container_path=one.container_path, trainer=True)],
        num_nodes=nodes, num_proc_per_node=nproc, reserved_env=RESERVED_ENV,
    )
    plan.compat_env = _compat_env(job, nodes, elastic, losses)
    return plan


def _num_proc_per_node(job: V1Job, elastic: Mapping[str, Any] | None, losses: Losses) -> int | None:
    """v1's nprocPerNode (a string) or elasticPolicy.nProcPerNode, as v2's numProcPerNode (a number)."""
    if elastic is not None and isinstance(elastic.get("nProcPerNode"), int):
        return int(elastic["nProcPerNode"])
    given = job.spec.get("nprocPerNode")
    if given is None or given in ("auto", "gpu"):
        return None  # v2 resolves it: `auto` with GPUs, else the CPUs of the node's resources
    if given.isdigit():
        return int(given)
    losses.add("spec.nprocPerNode", f"{show(given)}: v2's numProcPerNode is a number, or unset for `auto`; set it")
    return None


def _compat_env(job: V1Job, nodes: int, elastic: Mapping[str, Any] | None, losses: Losses) -> list[dict[str, Any]]:
    """v1's env that v2's torch policy does not set, with v2's values (envmap)."""
    name = job.name
    env: list[dict[str, Any]] = [{"name": "PYTHONUNBUFFERED", "value": "1"}]
    if job.replica("Master") is not None:
        given = job.spec.get("nprocPerNode")
        per_node = int(given) if isinstance(given, str) and given.isdigit() else 1  # v1's getNprocPerNodeInt
        env += [
            {"name": "MASTER_ADDR", "value": node_host(name, 0)},
            {"name": "MASTER_PORT", "value": str(c.CONTAINER_TRAINER_PORT)},
            {"name": "WORLD_SIZE", "value": str(nodes * per_node)},
            rank_env("RANK"),
        ]
    if elastic is not None:
        env += _elastic_env(name, elastic, nodes, losses)
    return env


def _elastic_env(name: str, elastic: Mapping[str, Any], nodes: int, losses: Losses) -> list[dict[str, Any]]:
    host = elastic.get("rdzvHost") or node_host(name, 0)
    port = elastic.get("rdzvPort") or c.CONTAINER_TRAINER_PORT
    env = [{"name": "PET_RDZV_ENDPOINT", "value": f"{host}:{port}"}]
    env.append({"name": "PET_RDZV_BACKEND", "value": str(elastic.get("rdzvBackend") or "c10d")})
    for key, variable in ELASTIC_ENV[1:]:
        if elastic.get(key) is not None:
            env.append({"name": variable, "value": str(elastic[key])})
    conf = elastic.get("rdzvConf")
    if conf:
        env.append({"name": "PET_RDZV_CONF", "value": ",".join(f"{item.get('key', '')}={item.get('value', '')}" for item in conf)})
    if elastic.get("standalone"):
        env.append({"name": "PET_STANDALONE", "value": ""})
    _elastic_losses(elastic, nodes, losses)
    return env


def _elastic_losses(elastic: Mapping[str, Any], nodes: int, losses: Losses) -> None:
    low, high = elastic.get("minReplicas"), elastic.get("maxReplicas")
    if (low is not None or high is not None) and not (low in (None, nodes) and high in (None, nodes)):
        for key in ("minReplicas", "maxReplicas"):
            if elastic.get(key) is not None:
                losses.add(f"spec.elasticPolicy.{key}", f"{elastic[key]}: v2 runs a fixed number of nodes ({nodes}, the "
                                                        f"replicas); torchrun gets PET_NNODES={nodes}, not a range")
    if elastic.get("metrics"):
        losses.add("spec.elasticPolicy.metrics", "v1 scaled the Workers with a HorizontalPodAutoscaler on these metrics; "
                                                 "v2 has no autoscaling of nodes")
    known = {"minReplicas", "maxReplicas", "rdzvHost", "rdzvPort", "rdzvConf", "standalone", "nProcPerNode", "metrics",
             *(key for key, _ in ELASTIC_ENV)}
    for key in elastic:
        if key not in known:
            losses.add(f"spec.elasticPolicy.{key}", "not a field of ElasticPolicy in v1.8.1: the API server pruned it for v1 too")
