"""Flux: an HPC Flux instance across the TrainJob's nodes, bootstrapped by an init container."""

from __future__ import annotations

import base64
from typing import ClassVar

from ...api import constants as c
from ...api.runtime import Runtime
from ...api.trainjob import TrainJob
from ...framework.context import RenderContext
from ...framework.errors import FieldError
from ...framework.info import PodSet, RuntimeInfo
from ...framework.interfaces import NO_FINDINGS, Verdict
from ...framework.kube import Manifest, upsert_volume_mounts, upsert_volumes
from ...framework.ml_policy import FunctionLauncher
from ...framework.objects import child_metadata
from . import scripts

NAME = "Flux"
INSTALLER = "flux-installer"
CONFIG_DIR = "/etc/flux-config"
DEFAULT_SETTINGS = {
    "FLUX_VIEW_IMAGE": "ghcr.io/converged-computing/flux-view-ubuntu:tag-jammy",
    "FLUX_NETWORK_DEVICE": "eth0",
    "FLUX_QUEUE_POLICY": "fcfs",
}


def entrypoint_name(trainjob: TrainJob) -> str:
    return f"{trainjob.name}-flux-entrypoint"


def curve_name(trainjob: TrainJob) -> str:
    return f"{trainjob.name}-flux-curve"


class FluxPlugin:
    name: ClassVar[str] = NAME
    ml_policy: ClassVar[str] = "flux"
    leaves_trainer_to_plainml: ClassVar[bool] = True
    # The command is joined into one string for `flux submit`, which would split the program.
    function_launcher: ClassVar[FunctionLauncher] = FunctionLauncher("flux", refusal="a Flux runtime re-joins the command into one string")

    @staticmethod
    def applies_to(runtime: Runtime) -> bool:
        policy = runtime.spec.ml_policy
        return policy is not None and policy.flux is not None

    def validate(self, info: RuntimeInfo, trainjob: TrainJob, context: RenderContext) -> Verdict:
        if info.ml_policy is None or info.ml_policy.flux is None:
            return NO_FINDINGS
        verdict = Verdict()
        trainer = trainjob.spec.trainer
        procs = trainer.num_proc_per_node if trainer and trainer.num_proc_per_node is not None else info.ml_policy.flux.num_proc_per_node
        if procs < 1:
            verdict.errors.append(FieldError("spec.trainer.numProcPerNode", f"Invalid value: {procs}: must be greater than or equal to 1 for Flux TrainJob"))
        node = info.find_pod_set(name=c.NODE)
        if node is not None and node.find_init_container(INSTALLER) is not None:
            verdict.errors.append(
                FieldError("spec.trainer.initContainers", f"Invalid value: {INSTALLER!r}: InitContainer 'flux-installer' is reserved")
            )
        if trainer is None or trainer.num_nodes is None:
            verdict.errors.append(FieldError("spec.trainer.numNodes", "Required value: the Flux runtime needs spec.trainer.numNodes"))
        return verdict

    def enforce_ml_policy(self, info: RuntimeInfo, trainjob: TrainJob) -> None:
        node = info.find_pod_set(name=c.NODE)
        if info.ml_policy is None or info.ml_policy.flux is None or node is None:
            return
        settings = _settings(info, trainjob)
        info.trainer_command = ["/bin/bash", f"{CONFIG_DIR}/entrypoint.sh", " ".join(_original_command(info, node)).strip()]
        info.trainer_args = None  # the container keeps the runtime's args
        _add_volumes(node, trainjob)
        _add_installer(node, trainjob, settings["FLUX_VIEW_IMAGE"])
        container = node.find_container(c.NODE)
        if container is not None:
            upsert_volume_mounts(container, _node_mounts(trainjob))

    def build(self, info: RuntimeInfo, trainjob: TrainJob, context: RenderContext) -> list[Manifest]:
        if info.ml_policy is None or info.ml_policy.flux is None:
            return []
        settings = _settings(info, trainjob)
        num_nodes = trainjob.spec.trainer.num_nodes if trainjob.spec.trainer and trainjob.spec.trainer.num_nodes else 1
        # Random (or from the render's seed), never derived from the name or UID, which anyone can read.
        cert = scripts.curve_certificate(trainjob.name, context.curve_secret(f"{trainjob.namespace}/{trainjob.name}"))
        return [
            {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": child_metadata(trainjob, entrypoint_name(trainjob)),
                "data": _scripts(info, trainjob, settings, num_nodes),
            },
            {
                "apiVersion": "v1",
                "kind": "Secret",
                "metadata": child_metadata(trainjob, curve_name(trainjob)),
                "data": {"curve.cert": base64.b64encode(cert.encode()).decode()},
            },
        ]


def _settings(info: RuntimeInfo, trainjob: TrainJob) -> dict[str, str]:
    """Defaults, then literal env of the runtime's node container, then the TrainJob's env."""
    settings = dict(DEFAULT_SETTINGS)
    node = info.find_pod_set(name=c.NODE)
    container = info.compiled.containers_of(node.name) if node else []
    runtime_node = next((item for item in container if item.get("name") == c.NODE), {})
    for var in runtime_node.get("env") or []:
        if var.get("name") in settings and "value" in var:
            settings[var["name"]] = var["value"]
    for var in (trainjob.spec.trainer.env or []) if trainjob.spec.trainer else []:
        if var.name in settings and var.value is not None:
            settings[var.name] = var.value
    return settings


def _original_command(info: RuntimeInfo, node: PodSet) -> list[str]:
    container = node.find_container(c.NODE) or {}
    command = info.trainer_command if info.trainer_command is not None else container.get("command")
    return list(command or []) + list(info.trainer_args or [])


def _add_volumes(node: PodSet, trainjob: TrainJob) -> None:
    upsert_volumes(
        node.pod_spec,
        [
            {"name": "spack-install", "emptyDir": {}},
            {"name": "flux-install", "emptyDir": {}},
            {"name": entrypoint_name(trainjob), "configMap": {"name": entrypoint_name(trainjob), "defaultMode": 0o755}},
            {"name": "shared-memory", "emptyDir": {"medium": "Memory"}},
            {"name": "flux-curve", "secret": {"secretName": curve_name(trainjob), "defaultMode": 0o400}},
        ],
    )


def _add_installer(node: PodSet, trainjob: TrainJob, image: str) -> None:
    node.pod_spec.setdefault("initContainers", []).append(
        {
            "name": INSTALLER,
            "image": image,
            "command": ["/bin/bash", f"{CONFIG_DIR}/init.sh"],
            "volumeMounts": [
                {"name": "flux-install", "mountPath": "/mnt/flux"},
                {"name": entrypoint_name(trainjob), "mountPath": CONFIG_DIR, "readOnly": True},
            ],
        }
    )


def _node_mounts(trainjob: TrainJob) -> list[Manifest]:
    return [
        {"name": "flux-install", "mountPath": "/mnt/flux"},
        {"name": "spack-install", "mountPath": "/opt/software"},
        {"name": entrypoint_name(trainjob), "mountPath": CONFIG_DIR, "readOnly": True},
        {"name": "flux-curve", "mountPath": "/curve", "readOnly": True},
        {"name": "shared-memory", "mountPath": "/dev/shm", "readOnly": True},
    ]


def _scripts(info: RuntimeInfo, trainjob: TrainJob, settings: dict[str, str], num_nodes: int) -> dict[str, str]:
    flux = info.ml_policy.flux if info.ml_policy else None
    trainer = trainjob.spec.trainer
    tasks = trainer.num_proc_per_node if trainer and trainer.num_proc_per_node else (flux.num_proc_per_node if flux else 1)
    gpus = info.gpus_per_node()
    hosts = scripts.hostlist(trainjob.name, num_nodes)
    init = scripts.INIT_SH.format(
        device=settings["FLUX_NETWORK_DEVICE"], subdomain=info.subdomain, namespace=trainjob.namespace,
        hostlist=hosts, queue_policy=settings["FLUX_QUEUE_POLICY"],
    )
    entrypoint = scripts.ENTRYPOINT_SH.format(
        hostlist=hosts, last_core=tasks - 1, gpu_range=f" --gpu=0-{gpus - 1}" if gpus else "",
        main_host=f"{trainjob.name}-node-0-0", num_nodes=num_nodes, num_tasks=tasks * num_nodes,
        gpu_flag=f" -g {gpus}" if gpus else "",
    )
    return {"entrypoint.sh": entrypoint, "init.sh": init}
