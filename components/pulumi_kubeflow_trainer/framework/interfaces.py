"""One protocol per extension point; a plugin implements the ones it needs.

The phases run in this order for every TrainJob (upstream `framework.go`):
validate -> enforce_ml_policy -> enforce_pod_group_policy -> enforce_pod_spec -> pre_build_sync -> build.
Within a phase plugins run in registry order, and each returns early when its policy is absent.
A plugin may also say so ahead of time with `applies_to(runtime) -> bool`: the framework then leaves
it out of every phase for runtimes it does not apply to (found once per runtime, not per TrainJob).
An ML-policy plugin whose policy runs trainer nodes in jobs besides the trainer's (MPI's launcher as a
node) names them with `trainer_node_jobs(runtime) -> Iterable[str]`: the TrainJob's resources and env
go to their `node` containers too (`RuntimeInfo.is_trainer_node`).

A plugin may compile its per-TrainJob work for one runtime: `compile(compiled) -> {method: step}`,
called once per runtime when its render plan is made. A step takes the method's arguments, returns
what the method would, and runs in the method's place for that runtime (what the runtime fixes,
decided once: which containers, which targets); None leaves the plugin out of that phase for that
runtime; a method not named keeps running. A step must give what the method gives for every
TrainJob: it hands what it does not specialise for (a patched template) to the method.
`tests/framework/test_compiled_steps.py` renders both ways and compares.
"""

from __future__ import annotations

from collections.abc import MutableSequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, Protocol, runtime_checkable

from .errors import FieldError

if TYPE_CHECKING:
    from ..api.trainjob import TrainJob
    from .context import RenderContext
    from .info import RuntimeInfo
    from .kube import Manifest


@dataclass
class Verdict:
    """What validation found: errors reject the TrainJob, warnings are only reported."""

    errors: MutableSequence[FieldError] = field(default_factory=list)
    warnings: MutableSequence[str] = field(default_factory=list)

    def extend(self, other: Verdict) -> None:
        self.errors.extend(other.errors)
        self.warnings.extend(other.warnings)


class _NoFindings(Verdict):
    """The answer of a plugin whose policy is absent: shared, and immutable so sharing is safe."""

    def __init__(self) -> None:
        super().__init__(errors=(), warnings=())  # type: ignore[arg-type]


NO_FINDINGS: Verdict = _NoFindings()


class Plugin(Protocol):
    name: ClassVar[str]


@runtime_checkable
class CustomValidationPlugin(Protocol):
    name: ClassVar[str]

    def validate(self, info: RuntimeInfo, trainjob: TrainJob, context: RenderContext) -> Verdict:
        """Webhook rules beyond the CRD schema; runs on the patched template before any enforcement."""


@runtime_checkable
class EnforceMLPolicyPlugin(Protocol):
    name: ClassVar[str]

    def enforce_ml_policy(self, info: RuntimeInfo, trainjob: TrainJob) -> None:
        """Set node counts and inject the framework's env, ports, volumes and commands."""


@runtime_checkable
class EnforcePodGroupPolicyPlugin(Protocol):
    name: ClassVar[str]

    def enforce_pod_group_policy(self, info: RuntimeInfo, trainjob: TrainJob) -> None:
        """Label or annotate pod templates for the gang scheduler."""


@runtime_checkable
class EnforcePodSpecPlugin(Protocol):
    name: ClassVar[str]

    def enforce_pod_spec(self, info: RuntimeInfo, trainjob: TrainJob) -> None:
        """Last edits of pod specs that depend on the ML policy's result."""


@runtime_checkable
class PreBuildSyncPlugin(Protocol):
    name: ClassVar[str]

    def pre_build_sync(self, info: RuntimeInfo, trainjob: TrainJob) -> None:
        """Derive what builders need from the final pod sets (endpoints, parallelism)."""


@runtime_checkable
class ComponentBuilderPlugin(Protocol):
    name: ClassVar[str]

    def build(self, info: RuntimeInfo, trainjob: TrainJob, context: RenderContext) -> list[Manifest]:
        """Emit child objects; each builder owns its kinds."""


EXTENSION_POINTS: tuple[type, ...] = (
    CustomValidationPlugin,
    EnforceMLPolicyPlugin,
    EnforcePodGroupPolicyPlugin,
    EnforcePodSpecPlugin,
    PreBuildSyncPlugin,
    ComponentBuilderPlugin,
)
