"""`FunctionTrainer`: a Python function as `spec.trainer`, with the command of the runtime's launcher."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ..api.runtime import Runtime
from ..runtime_lookup import runtime_model
from .launcher import FunctionLauncher, launcher_command, launcher_for
from .payload import FunctionPayload
from .resources import resources_per_node as expand_resources
from .source import FunctionPackagingError

if TYPE_CHECKING:
    import pulumi  # the image may be an Output (a build's image reference) in a Pulumi program

EnvInput = Mapping[str, Any] | Sequence[Mapping[str, Any]]


@dataclass(frozen=True)
class FunctionTrainer:
    """A function packaged for the trainer nodes; `to_manifest(runtime)` gives `spec.trainer`.

    The command depends on the runtime (torchrun, mpirun or python), so the manifest is made once
    the runtime is known. `sha256` identifies the payload: a changed function, argument, module or
    package list changes it, and with it `spec.trainer.args`, which Pulumi shows as a diff.
    """

    payload: FunctionPayload
    image: pulumi.Input[str] | None = None
    num_nodes: int | None = None
    num_proc_per_node: int | None = None
    resources_per_node: dict[str, Any] | None = None
    env: EnvInput | None = None

    @classmethod
    def from_function(
        cls,
        func: Callable[..., Any],
        *,
        func_args: Mapping[str, Any] | None = None,
        packages: Sequence[str] | None = None,
        modules: Sequence[ModuleType] | None = None,
        image: pulumi.Input[str] | None = None,
        num_nodes: int | None = None,
        num_proc_per_node: int | None = None,
        resources_per_node: Mapping[str, Any] | None = None,
        env: EnvInput | None = None,
        pip_index_urls: Sequence[str] | None = None,
    ) -> FunctionTrainer:
        """Packages `func` now, so that every mistake surfaces where the trainer is written."""
        payload = FunctionPayload.of(func, func_args, modules, packages, pip_index_urls)
        _require_count("num_nodes", num_nodes)
        _require_count("num_proc_per_node", num_proc_per_node)
        return cls(payload, image, num_nodes, num_proc_per_node, expand_resources(resources_per_node), env)

    @property
    def sha256(self) -> str:
        return self.payload.sha256

    def launcher(self, runtime: Runtime | Mapping[str, Any]) -> FunctionLauncher:
        return launcher_for(runtime_model(runtime, FunctionPackagingError))

    def command(self, runtime: Runtime | Mapping[str, Any]) -> list[str]:
        return launcher_command(self.launcher(runtime))

    def args(self) -> list[str]:
        return [self.sha256, self.payload.encoded()]

    def to_manifest(self, runtime: Runtime | Mapping[str, Any]) -> dict[str, Any]:
        """`spec.trainer` (camelCase) for a TrainJob on `runtime`."""
        manifest: dict[str, Any] = {"command": self.command(runtime), "args": self.args()}
        if self.image is not None:
            manifest["image"] = self.image
        if self.env is not None:
            manifest["env"] = env_list(self.env)
        if self.num_nodes is not None:
            manifest["numNodes"] = self.num_nodes
        if self.num_proc_per_node is not None:
            manifest["numProcPerNode"] = self.num_proc_per_node
        if self.resources_per_node is not None:
            manifest["resourcesPerNode"] = self.resources_per_node
        return manifest


def trainer_for_runtime(trainer: Any, runtime: Runtime | Mapping[str, Any]) -> Any:
    """`spec.trainer` once the runtime is known: a FunctionTrainer becomes its manifest, anything else passes."""
    return trainer.to_manifest(runtime) if isinstance(trainer, FunctionTrainer) else trainer


def _require_count(name: str, value: Any) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
        raise FunctionPackagingError(f"{name}: expected a whole number of at least 1, got {value!r}")


def env_list(env: EnvInput) -> list[dict[str, Any]]:
    """`{"NAME": value}` or a list of EnvVar dicts, as the list of EnvVar dicts `env` is in a manifest."""
    if isinstance(env, Mapping):
        return [{"name": name, "value": value} for name, value in env.items()]
    return [dict(var) for var in env]
