"""One protocol per extension point; a plugin implements the ones it needs.

The phases run in this order for every TrainJob (upstream `framework.go`):
validate -> enforce_ml_policy -> enforce_pod_group_policy -> enforce_pod_spec -> pre_build_sync -> build.
Within a phase plugins run in registry order, and each returns early when its policy is absent.

Besides the phases, a plugin may declare (each a protocol below, checked with `isinstance`):
- `applies_to(runtime) -> bool` (`SelectivePlugin`): the framework then leaves it out of every phase
  for runtimes it does not apply to (found once per runtime, not per TrainJob);
- `trainer_node_jobs(runtime) -> Iterable[str]` (`TrainerNodeJobsPlugin`): an ML-policy plugin whose
  policy runs trainer nodes in jobs besides the trainer's (MPI's launcher as a node) names them; the
  TrainJob's resources and env go to their `node` containers too (`RuntimeInfo.is_trainer_node`);
- the ML-policy declarations (`MLPolicyPlugin` and the optional attributes after it; framework.ml_policy).
"""

from __future__ import annotations

from collections.abc import Iterable, MutableSequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, Protocol, runtime_checkable

from ..api.base import KubeModel
from .errors import FieldError

if TYPE_CHECKING:
    from ..api.runtime import Runtime
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


@runtime_checkable
class SelectivePlugin(Protocol):
    """A plugin that acts on some runtimes only: left out of every phase for the others."""

    def applies_to(self, runtime: Runtime) -> bool: ...


@runtime_checkable
class TrainerNodeJobsPlugin(Protocol):
    """A plugin whose policy runs trainer nodes in jobs besides the trainer's job (MPI's `node` job
    when the launcher is a node too): the TrainJob's resources and env go to their `node` containers."""

    def trainer_node_jobs(self, runtime: Runtime) -> Iterable[str]: ...


@dataclass(frozen=True)
class FunctionLauncher:
    """How a node starts a packaged function: `argv`, then `python -c <bootstrap> <digest> <payload>`;
    or, with a `refusal`, why functions cannot run on this policy's runtimes."""

    name: str
    argv: tuple[str, ...] = ()
    refusal: str = ""


PYTHON_LAUNCHER = FunctionLauncher("python")


@runtime_checkable
class MLPolicyPlugin(Protocol):
    """A plugin that handles one key under `spec.mlPolicy` (`torch`, or a key of its own)."""

    name: ClassVar[str]
    ml_policy: ClassVar[str]


@runtime_checkable
class PolicySourcePlugin(Protocol):
    """An ML-policy plugin whose key the CRD lacks: its value is validated with this model."""

    ml_policy_source: ClassVar[type[KubeModel]]


@runtime_checkable
class PlainMLTrainerPlugin(Protocol):
    """An ML-policy plugin that says whether PlainML sets the trainer's node count and the user's env
    before it acts (True: XGBoost, Flux). Without the attribute, the policy's plugin sets both itself."""

    leaves_trainer_to_plainml: ClassVar[bool]


@runtime_checkable
class FunctionLauncherPlugin(Protocol):
    """An ML-policy plugin that says how `TrainerArgs.from_function` starts a function on its nodes
    (without the attribute: `python`)."""

    function_launcher: ClassVar[FunctionLauncher]
