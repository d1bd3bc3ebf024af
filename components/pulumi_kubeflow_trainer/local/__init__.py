"""Local runs: every Pod of a TrainJob's JobSet as a process on this host, in JobSet order.

    result = run_local(render([trainjob, runtime]), timeout=600)
    assert result.ok, result.message
"""

from .cli import add_arguments, main, run
from .plan import LocalRunError
from .runner import LocalRunResult, run_local

__all__ = ["LocalRunError", "LocalRunResult", "add_arguments", "main", "run", "run_local"]
