"""Which launcher starts a function on a runtime, and the exact command it gets.

The command is exec'd by the container runtime, never by a shell: each list item reaches the program
as one argv string. The bootstrap program (bootstrap.py, passed with `python -c`) is a constant of this
library; the user's code only ever travels in the base64 argument after it.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import ClassVar

from ..api import constants as c
from ..api.runtime import Runtime
from ..framework.ml_policy import PYTHON_LAUNCHER, FunctionLauncher, function_launcher
from ..framework.registry import PluginRegistry
from ..plugins import default_framework
from ..plugins.mpi import HOSTFILE_PATH, MPIPlugin
from ..plugins.torch import TorchPlugin
from .source import FunctionPackagingError

MPI_HOSTFILE = HOSTFILE_PATH

__all__ = ["MPI_HOSTFILE", "FunctionLauncher", "Launcher", "bootstrap_program", "launcher_command", "launcher_for"]


class Launcher:
    """The built-in launchers, as their policy plugins declare them (`function_launcher`); a plugin's
    own policy may bring its own, which `launcher_for` returns alike."""

    TORCHRUN: ClassVar[FunctionLauncher] = TorchPlugin.function_launcher  # PET_* env: world size, rank, rendezvous
    MPIRUN: ClassVar[FunctionLauncher] = MPIPlugin.function_launcher  # ranks on the hosts of the mounted hostfile
    PYTHON: ClassVar[FunctionLauncher] = PYTHON_LAUNCHER  # jax, xgboost, plain: the function reads the policy's env


def launcher_for(runtime: Runtime, registry: PluginRegistry | None = None) -> FunctionLauncher:
    """The launcher the runtime's policy plugin declares in `registry` (None: the default registry);
    `python` without a policy."""
    if runtime.labels.get(c.LABEL_FRAMEWORK) == "torchtune":
        raise FunctionPackagingError(
            f"runtime {runtime.name}: a torchtune runtime runs `tune run` recipes (BuiltinTrainer), not functions; "
            "use a torch runtime such as torch-distributed"
        )
    policies = registry.policies if registry is not None else default_framework().policies
    plugin = policies.plugin_of(runtime)
    launcher = function_launcher(plugin) if plugin is not None else PYTHON_LAUNCHER
    if launcher.refusal:
        able = [key for key, declared in policies.launchers() if not declared.refusal]
        raise FunctionPackagingError(
            f"runtime {runtime.name}: {launcher.refusal}; functions run on {', '.join(able)} or plain runtimes"
        )
    return launcher


@lru_cache(maxsize=1)
def bootstrap_program() -> str:
    return (Path(__file__).parent / "bootstrap.py").read_text(encoding="utf-8")


def launcher_command(launcher: FunctionLauncher) -> list[str]:
    """`spec.trainer.command`; the payload digest and the payload follow as `spec.trainer.args`."""
    return [*launcher.argv, "python", "-c", bootstrap_program()]
