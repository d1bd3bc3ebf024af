"""Making a Pod's strings true on one host: JobSet DNS names → 127.0.0.1, mount paths → the work dir,
busy ports → free ones.

The patterns only match whole names and paths: a match may not continue a word, a path, a host name or
a base64 run (the base64 alphabet has no `.` or `-`, and `+`, `/` and letters count as inside a path), so
a function payload is never touched.
"""

from __future__ import annotations

import re
import socket
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from .envs import LOCAL_IP
from .plan import LocalPlan

_NOT_AFTER_HOST = r"(?![\w-]|\.[\w-])"
_NOT_BEFORE = r"(?<![\w.+/-])"
_HOSTFILE_LINE = re.compile(r"^(\S+)\s+slots=(\d+)\s*$")
_LOCAL_ENDPOINT = re.compile(r"(?<![\w.-])(127\.0\.0\.1|localhost):(\d+)(?!\d)")


def _literal(replacement: str) -> Callable[[re.Match[str]], str]:
    """A replacement for `re.sub` taken as it is: a path is not a template (no `\\1`, no `\\g<name>`)."""
    return lambda _match: replacement


def host_pattern(hosts: Iterable[str], subdomain: str, namespace: str) -> re.Pattern[str]:
    """`<host>.<subdomain>`, optionally `.<namespace>`, `.svc`, `.cluster.local`: the Pods' DNS names."""
    names = "|".join(re.escape(host) for host in sorted(hosts, key=len, reverse=True))
    suffix = rf"\.{re.escape(subdomain)}(?:\.{re.escape(namespace)}(?:\.svc(?:\.cluster\.local)?)?)?"
    return re.compile(rf"(?<![\w.-])(?:{names}){suffix}{_NOT_AFTER_HOST}")


@dataclass(frozen=True)
class PortMap:
    """The JobSet's ports on this host: each stays itself unless something already listens there."""

    ports: Mapping[int, int] = field(default_factory=dict)

    @classmethod
    def for_ports(cls, ports: Iterable[int]) -> PortMap:
        return cls({port: port if port_is_free(port) else free_port() for port in sorted(set(ports))})

    def __getitem__(self, port: int) -> int:
        return self.ports.get(port, port)

    @property
    def moved(self) -> dict[int, int]:
        return {old: new for old, new in self.ports.items() if old != new}


def port_is_free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind((LOCAL_IP, port))
        except OSError:
            return False
    return True


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((LOCAL_IP, 0))
        return int(probe.getsockname()[1])


@dataclass(frozen=True)
class Rewriter:
    """Rewrites one Pod's env values, command, args and ConfigMap files."""

    hosts: re.Pattern[str] | None
    mounts: Mapping[str, str] = field(default_factory=dict)  # mountPath → local directory
    ports: PortMap = field(default_factory=PortMap)

    @classmethod
    def for_plan(cls, plan: LocalPlan, ports: PortMap) -> Rewriter:
        hosts = [pod.name for pod in plan.pods]
        pattern = host_pattern(hosts, plan.subdomain, plan.namespace) if hosts else None
        return cls(pattern, {}, ports)

    def with_mounts(self, mounts: Mapping[str, str]) -> Rewriter:
        return Rewriter(self.hosts, dict(mounts), self.ports)

    def text(self, text: str) -> str:
        if self.hosts is not None:
            text = self.hosts.sub(LOCAL_IP, text)
        if self.ports.moved:
            text = _LOCAL_ENDPOINT.sub(lambda m: f"{m.group(1)}:{self.ports[int(m.group(2))]}", text)
        return self.paths(text)

    def paths(self, text: str) -> str:
        for mount_path in sorted(self.mounts, key=len, reverse=True):
            pattern = _NOT_BEFORE + re.escape(mount_path.rstrip("/")) + r"(?=$|/|[^\w.+-])"
            local = self.mounts[mount_path]
            text = re.sub(pattern, _literal(local), text)
        return text

    def env(self, env: Mapping[str, str]) -> dict[str, str]:
        """Every value rewritten; a `*PORT` variable holding a moved port gets the new one."""
        rewritten = {}
        for name, value in env.items():
            if name.upper().endswith("PORT") and value.isdigit() and int(value) in self.ports.moved:
                rewritten[name] = str(self.ports[int(value)])
            else:
                rewritten[name] = self.text(value)
        return rewritten


def merge_hostfile(text: str) -> str:
    """An MPI hostfile whose hosts all became 127.0.0.1: one line per host with the slots added up.

    OpenMPI refuses a hostfile that gives one host's slot count twice; text of any other shape is returned
    unchanged.
    """
    lines = [line for line in text.splitlines() if line.strip()]
    matches = [_HOSTFILE_LINE.match(line) for line in lines]
    if not lines or not all(matches):
        return text
    slots: dict[str, int] = {}
    for match in matches:
        assert match is not None
        slots[match.group(1)] = slots.get(match.group(1), 0) + int(match.group(2))
    if len(slots) == len(lines):
        return text
    return "".join(f"{host} slots={count}\n" for host, count in slots.items())
