"""The env mapping: each variable Training Operator v1.8.1 sets in a job's Pods, and what carries it in
v2. docs/migration.md prints this table, and tests/migration checks every Pod of v1's examples
against it (v1's Pods from the operator's own code, v2's from render()).

`by` says who sets the variable in v2: `policy` (v2's ML policy, under the same name), `trainjob`
(migrate writes it into spec.trainer.env, v1's name, v2's value), `dropped` (nothing: v2 has no use
for it). `value` is how v2's value follows from v1's: `same`, `host` (v1's host `<job>-<type>-<i>`
becomes the node's `<job>-node-0-<rank>.<job>`), `port` (v2's 29500), `rank` (the node's completion
index, which is v1's rank), `hosts` (a list of hosts, each mapped), `endpoint` (host:port, each
mapped), `nproc` (v2's processes per node), `nnodes` (v2's node count), `none` (dropped).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Setter = Literal["policy", "trainjob", "dropped"]
ValueRule = Literal["same", "host", "port", "rank", "hosts", "endpoint", "nproc", "nnodes", "none"]


@dataclass(frozen=True)
class EnvMapping:
    framework: str
    v1: str
    by: Setter
    value: ValueRule
    how: str  # in words, for the docs


ENV_MAPPINGS: tuple[EnvMapping, ...] = (
    EnvMapping("PyTorch", "PYTHONUNBUFFERED", "trainjob", "same", "1, as v1"),
    EnvMapping("PyTorch", "MASTER_ADDR", "trainjob", "host", "with a Master: the rank-0 node, `<name>-node-0-0.<name>` "
                                                             "(v1: the Service `<name>-master-0`)"),
    EnvMapping("PyTorch", "MASTER_PORT", "trainjob", "port", "with a Master: 29500, v2's PET_MASTER_PORT (v1: the port named "
                                                             "pytorchjob-port, 23456 unless given)"),
    EnvMapping("PyTorch", "PET_MASTER_ADDR", "policy", "host", "`<name>-node-0-0.<name>`; v2 sets it with or without a Master"),
    EnvMapping("PyTorch", "PET_MASTER_PORT", "policy", "port", "29500"),
    EnvMapping("PyTorch", "WORLD_SIZE", "trainjob", "same", "with a Master: nodes x nprocPerNode (1 unless a number), as v1"),
    EnvMapping("PyTorch", "RANK", "trainjob", "rank", "with a Master: the node's rank, its completion index (v1: Master 0, "
                                                      "Worker i is i+1)"),
    EnvMapping("PyTorch", "PET_NODE_RANK", "policy", "rank", "the completion index; v2 sets it with or without a Master"),
    EnvMapping("PyTorch", "PET_NPROC_PER_NODE", "policy", "nproc", "numProcPerNode when v1's nprocPerNode (or elasticPolicy."
                                                                   "nProcPerNode) is a number; for `auto` (v1's default) v2 "
                                                                   "sets `auto` on GPU nodes and the node's CPU count from its "
                                                                   "resources (at least 1) on CPU nodes, where v1's torchrun "
                                                                   "counted the host's CPUs"),
    EnvMapping("PyTorch", "PET_NNODES", "policy", "nnodes", "numNodes; elastic v1 jobs had `minReplicas:maxReplicas` "
                                                            "(reported as lost: v2 runs a fixed number of nodes)"),
    EnvMapping("PyTorch", "PET_RDZV_ENDPOINT", "trainjob", "endpoint", "elastic: rdzvHost and rdzvPort as given; v1's default "
                                                                      "host `<name>-worker-0` becomes the rank-0 node, its "
                                                                      "default port (the worker's pytorchjob-port) 29500"),
    EnvMapping("PyTorch", "PET_RDZV_BACKEND", "trainjob", "same", "elastic: as v1 (c10d unless given)"),
    EnvMapping("PyTorch", "PET_MAX_RESTARTS", "trainjob", "same", "elastic: as v1"),
    EnvMapping("PyTorch", "PET_RDZV_ID", "trainjob", "same", "elastic: as v1"),
    EnvMapping("PyTorch", "PET_RDZV_CONF", "trainjob", "same", "elastic: as v1"),
    EnvMapping("PyTorch", "PET_STANDALONE", "trainjob", "same", "elastic: as v1"),
    EnvMapping("MPI", "OMPI_MCA_orte_default_hostfile", "policy", "same", "launcher: /etc/mpi/hostfile, as v1"),
    EnvMapping("MPI", "OMPI_MCA_plm_rsh_agent", "dropped", "none", "launcher: v1 started ranks with `kubectl exec` "
                                                                  "(/etc/mpi/kubexec.sh); v2 starts them over SSH"),
    EnvMapping("MPI", "I_MPI_HYDRA_BOOTSTRAP", "dropped", "none", "launcher, unless given: Intel MPI's bootstrap over "
                                                                 "kubexec.sh, which v2 does not have"),
    EnvMapping("MPI", "I_MPI_HYDRA_BOOTSTRAP_EXEC", "dropped", "none", "launcher, unless given: as I_MPI_HYDRA_BOOTSTRAP"),
    EnvMapping("MPI", "NVIDIA_VISIBLE_DEVICES", "trainjob", "same", "a launcher without GPUs: empty, as v1"),
    EnvMapping("MPI", "NVIDIA_DRIVER_CAPABILITIES", "trainjob", "same", "a launcher without GPUs: empty, as v1"),
    EnvMapping("XGBoost", "PYTHONUNBUFFERED", "trainjob", "same", "1, as v1"),
    EnvMapping("XGBoost", "MASTER_ADDR", "trainjob", "host", "the rank-0 node, `<name>-node-0-0.<name>` (v2's "
                                                             "DMLC_TRACKER_URI)"),
    EnvMapping("XGBoost", "MASTER_PORT", "trainjob", "port", "29500 (v2's DMLC_TRACKER_PORT; v1: the port named "
                                                             "xgboostjob-port)"),
    EnvMapping("XGBoost", "WORLD_SIZE", "trainjob", "same", "the node count, as v1"),
    EnvMapping("XGBoost", "RANK", "trainjob", "rank", "the completion index (v2's DMLC_TASK_ID)"),
    EnvMapping("XGBoost", "WORKER_PORT", "trainjob", "port", "more than one node: 29500"),
    EnvMapping("XGBoost", "WORKER_ADDRS", "trainjob", "hosts", "more than one node: the host names of nodes 1 to N-1, "
                                                               "comma-separated (v1: `<name>-worker-0`, ...)"),
    EnvMapping("PaddlePaddle", "PYTHONUNBUFFERED", "trainjob", "same", "1, as v1"),
    EnvMapping("PaddlePaddle", "PADDLE_JOB_ID", "trainjob", "same", "the job's name, as v1"),
    EnvMapping("PaddlePaddle", "PADDLE_NNODES", "trainjob", "same", "the node count, as v1"),
    EnvMapping("PaddlePaddle", "PADDLE_MASTER", "trainjob", "endpoint", "`<name>-node-0-0.<name>:<port>` on every node, the "
                                                                        "port named `master` (v1 gave rank 0 "
                                                                        "`$(POD_IP_DUMMY):<port>`, its own IP)"),
    EnvMapping("PaddlePaddle", "POD_IP_DUMMY", "dropped", "none", "rank 0: its IP, for PADDLE_MASTER; in v2 rank 0 reaches "
                                                                  "itself by its host name"),
    EnvMapping("PaddlePaddle", "PADDLE_SERVER_NUM", "dropped", "none", "with a Master (parameter-server mode, not carried)"),
    EnvMapping("PaddlePaddle", "PADDLE_TRAINER_NUM", "dropped", "none", "with a Master (parameter-server mode, not carried)"),
)

# What v2's policies set that v1 did not: (framework, variable, in words).
V2_ONLY: tuple[tuple[str, str, str], ...] = (
    ("MPI", "OMPI_MCA_orte_keep_fqdn_hostnames", "launcher: true (the hostfile has fully qualified names)"),
    ("MPI", "OMPI_MCA_orte_set_default_slots", "launcher: the slots per node (numProcPerNode)"),
    ("MPI", "OMPI_MCA_plm_rsh_args", "launcher: `-o ConnectionAttempts=10` for ssh"),
    ("XGBoost", "DMLC_TRACKER_URI", "the rank-0 node's host name"),
    ("XGBoost", "DMLC_TRACKER_PORT", "29500"),
    ("XGBoost", "DMLC_TASK_ID", "the completion index"),
    ("XGBoost", "DMLC_NUM_WORKER", "nodes x GPUs per node (at least 1)"),
)


def mappings(framework: str) -> dict[str, EnvMapping]:
    return {mapping.v1: mapping for mapping in ENV_MAPPINGS if mapping.framework == framework}
