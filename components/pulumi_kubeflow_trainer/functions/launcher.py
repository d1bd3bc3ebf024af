"""Which launcher starts a function on a runtime, and the exact command it gets.

The command is exec'd by the container runtime, never by a shell: each list item reaches the program
as one argv string. The bootstrap program (bootstrap.py, passed with `python -c`) is a constant of this
library; the user's code only ever travels in the base64 argument after it.
"""

from __future__ import annotations

from enum import Enum
from functools import lru_cache
from pathlib import Path

from ..api import constants as c
from ..api.runtime import Runtime
from .source import FunctionPackagingError

MPI_HOSTFILE = "/etc/mpi/hostfile"


class Launcher(str, Enum):
    """How a node starts the function: the runtime's ML policy decides."""

    TORCHRUN = "torchrun"  # mlPolicy.torch: world size, node rank and rendezvous come from the PET_* env
    MPIRUN = "mpirun"  # mlPolicy.mpi: ranks on the hosts of the hostfile the MPI plugin mounts
    PYTHON = "python"  # jax, xgboost, plain: the policy's env (JAX_*, DMLC_*) is read by the function


def launcher_for(runtime: Runtime) -> Launcher:
    framework = runtime.labels.get(c.LABEL_FRAMEWORK)
    policy = runtime.spec.ml_policy
    if framework == "torchtune":
        raise FunctionPackagingError(
            f"runtime {runtime.name}: a torchtune runtime runs `tune run` recipes (BuiltinTrainer), not functions; "
            "use a torch runtime such as torch-distributed"
        )
    if policy is not None and policy.flux is not None:
        # The Flux plugin joins the command into one string for `flux submit`, which would split the program.
        raise FunctionPackagingError(
            f"runtime {runtime.name}: a Flux runtime re-joins the command into one string; functions run on "
            "torch, mpi, jax, xgboost or plain runtimes"
        )
    if policy is not None and policy.torch is not None:
        return Launcher.TORCHRUN
    if policy is not None and policy.mpi is not None:
        return Launcher.MPIRUN
    return Launcher.PYTHON


@lru_cache(maxsize=1)
def bootstrap_program() -> str:
    return (Path(__file__).parent / "bootstrap.py").read_text(encoding="utf-8")


def launcher_command(launcher: Launcher) -> list[str]:
    """`spec.trainer.command`; the payload digest and the payload follow as `spec.trainer.args`."""
    program = ["python", "-c", bootstrap_program()]
    if launcher is Launcher.TORCHRUN:
        # --no-python: torchrun execs `python -c <bootstrap> <args>` per process instead of `python <file>`.
        return ["torchrun", "--no-python", *program]
    if launcher is Launcher.MPIRUN:
        return ["mpirun", "--hostfile", MPI_HOSTFILE, *program]
    return program
