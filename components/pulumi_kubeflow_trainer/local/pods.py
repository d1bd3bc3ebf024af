"""A Pod on this host: its containers resolved into launches, and its life (init containers, then the rest)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .envs import container_env, expand
from .mpi import root_allowance, rsh_agent
from .plan import LocalPlan, LocalRunError, PodPlan
from .process import ContainerLaunch, LogSink, PodProcess
from .rewrite import PortMap, Rewriter
from .volumes import materialise_volumes, mount_paths, reset_pod_dir

STAND_IN_COMMANDS = ("sshd",)  # MPI workers: mpirun starts the ranks on this host itself


@dataclass(frozen=True)
class PreparedPod:
    plan: PodPlan
    init: tuple[ContainerLaunch, ...]
    containers: tuple[ContainerLaunch, ...]


@dataclass(frozen=True)
class HostEnv:
    """The environment every container starts from (`base`), and what is laid over the Pod's own (`overrides`)."""

    base: Mapping[str, str]
    overrides: Mapping[str, str]


def prepare_pod(pod: PodPlan, plan: LocalPlan, workdir: Path, rewriter: Rewriter, host: HostEnv) -> PreparedPod:
    """Volumes made, env resolved, strings rewritten: everything is checked before anything starts."""
    reset_pod_dir(workdir, pod)
    regular = pod.spec.get("containers") or []
    init = [_launch(pod, plan, c, workdir, rewriter, host, True) for c in pod.spec.get("initContainers") or []]
    containers = [_launch(pod, plan, c, workdir, rewriter, host, len(regular) > 1) for c in regular]
    return PreparedPod(pod, tuple(init), tuple(containers))


def _launch(
    pod: PodPlan, plan: LocalPlan, container: Mapping[str, Any], workdir: Path, rewriter: Rewriter, host: HostEnv, own_prefix: bool
) -> ContainerLaunch:
    name = container.get("name", "")
    prefix = f"[{pod.name}/{name}]" if own_prefix else f"[{pod.name}]"
    local = rewriter.with_mounts(mount_paths(pod, container, workdir))
    materialise_volumes(pod, container, plan.objects, workdir, local, plan.claims)
    command = list(container.get("command") or [])
    if command and os.path.basename(command[0]) in STAND_IN_COMMANDS:
        return ContainerLaunch(pod.name, name, command, {}, str(workdir), prefix, stand_in=True)
    if not command:
        raise LocalRunError(f"{pod.name}: container {name!r} has no command; the image's entrypoint is not emulated locally")
    env = container_env(container, pod, plan.objects)
    argv = [local.text(expand(str(item), env)) for item in command + list(container.get("args") or [])]
    # Open MPI's settings (mpi.py) around the Pod's env: it may set its own root allowance, not reach out.
    full_env = {**host.base, **root_allowance(container, pod), "HOSTNAME": pod.name, **local.env(env), **rsh_agent(workdir), **host.overrides}
    return ContainerLaunch(pod.name, name, argv, full_env, _working_dir(container, local), prefix, _ready_port(container, local.ports))


def _working_dir(container: Mapping[str, Any], rewriter: Rewriter) -> str:
    # The image's file system is not here: only a workingDir inside a mounted volume has a local twin.
    working_dir = container.get("workingDir")
    if working_dir:
        local = rewriter.paths(working_dir)
        if local != working_dir:
            Path(local).mkdir(parents=True, exist_ok=True)
            return local
    return os.getcwd()


def _ready_port(container: Mapping[str, Any], ports: PortMap) -> int | None:
    port = ((container.get("readinessProbe") or {}).get("tcpSocket") or {}).get("port")
    if isinstance(port, str) and not port.isdigit():
        named = {p.get("name"): p["containerPort"] for p in container.get("ports") or []}
        port = named.get(port)
    return ports[int(port)] if port is not None else None


def declared_ports(plan: LocalPlan) -> set[int]:
    """Every containerPort and tcpSocket probe port of the JobSet's containers."""
    ports: set[int] = set()
    for pod in plan.pods:
        for container in [*(pod.spec.get("containers") or []), *(pod.spec.get("initContainers") or [])]:
            ports.update(int(p["containerPort"]) for p in container.get("ports") or [])
            probe = ((container.get("readinessProbe") or {}).get("tcpSocket") or {}).get("port")
            if isinstance(probe, int) or (isinstance(probe, str) and probe.isdigit()):
                ports.add(int(probe))
    return ports


class PodRun:
    """A Pod's life: init containers one after another, then its containers together."""

    def __init__(self, prepared: PreparedPod, log: LogSink) -> None:
        self.prepared = prepared
        self._log = log
        self._pending = list(prepared.init)
        self.processes: list[PodProcess] = []
        self._init: PodProcess | None = None
        self._finished_init: list[PodProcess] = []
        self._advance()

    @property
    def name(self) -> str:
        return self.prepared.plan.name

    def _advance(self) -> None:
        while self._init is None or self._init.exit_code() == 0:
            if self._init is not None:
                self._finished_init.append(self._init)
            if not self._pending:
                self._init = None
                self.processes = [PodProcess(launch, self._log) for launch in self.prepared.containers]
                return
            self._init = PodProcess(self._pending.pop(0), self._log)
            if self._init.exit_code() is None:
                return

    def poll(self) -> None:
        if self._init is not None and self._init.exit_code() == 0:
            self._advance()

    def failure(self) -> tuple[str, int] | None:
        """(container, exit code) of the first container that failed."""
        for process in self.all_processes():
            code = process.exit_code()
            if code is not None and code != 0:
                return process.launch.container, 128 - code if code < 0 else code
        return None

    def succeeded(self) -> bool:
        return bool(self.processes) and all(p.exit_code() == 0 for p in self.processes)

    def ready(self) -> bool:
        return bool(self.processes) and all(p.is_ready() for p in self.processes)

    def active(self) -> bool:
        """Something that may still finish runs here (stand-ins never finish)."""
        running = [p for p in self.all_processes() if not p.launch.stand_in]
        return any(p.exit_code() is None for p in running)

    def all_processes(self) -> list[PodProcess]:
        return self._finished_init + ([self._init] if self._init else []) + self.processes
