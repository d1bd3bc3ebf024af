"""What `migrate()` hands back: the manifests, and every field of the v1 jobs it could not carry."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Loss:
    """One field of a v1 job with no place in v2, or whose meaning v2 changes: its path in the v1
    document and why. `source` says which document (`FILE#N (Kind/name)`)."""

    path: str
    why: str
    source: str = ""

    def __str__(self) -> str:
        return f"{self.path}: {self.why}"

    def describe(self) -> str:
        return f"{self.source}: {self}" if self.source else str(self)


@dataclass(frozen=True)
class MigratedJob:
    """One v1 job and what became of it."""

    source: str  # `FILE#N (Kind/name)`
    kind: str
    name: str
    runtime: str  # the runtime the TrainJob references: a bundled one's name, or the generated TrainingRuntime's
    generated_because: tuple[str, ...]  # why the bundled runtime did not fit (empty: it did)
    manifests: tuple[dict[str, Any], ...]  # the generated TrainingRuntime (if any), then the TrainJob
    losses: tuple[Loss, ...]


@dataclass(frozen=True)
class MigrationResult:
    jobs: tuple[MigratedJob, ...] = ()

    @property
    def manifests(self) -> list[dict[str, Any]]:
        """TrainingRuntimes and TrainJobs, in input order, each runtime before the TrainJob that uses it."""
        return [manifest for job in self.jobs for manifest in job.manifests]

    @property
    def losses(self) -> list[Loss]:
        return [loss for job in self.jobs for loss in job.losses]


@dataclass
class Losses:
    """The losses of one job as a converter finds them."""

    source: str
    found: list[Loss] = field(default_factory=list)

    def add(self, path: str, why: str) -> None:
        self.found.append(Loss(path, why, self.source))
