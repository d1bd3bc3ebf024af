"""Where the code of a function trainer comes from: the function's own source, and helper modules' files."""

from __future__ import annotations

import inspect
import re
import textwrap
import types
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..framework.errors import TrainerError

_PLAIN_FILE_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*\.py$")


class FunctionPackagingError(TrainerError):
    """A function, its arguments or its modules cannot be shipped to the trainer nodes as they are."""


@dataclass(frozen=True)
class FunctionSource:
    """The text of one function as it will run on the nodes, and the file name it runs under."""

    name: str
    file_name: str
    text: str


@dataclass(frozen=True)
class ShippedModule:
    """A helper module shipped next to the function: `path` is where it lands on sys.path."""

    name: str
    path: str
    text: str


def function_source(func: Callable[..., Any]) -> FunctionSource:
    """The source of a plain, self-contained function defined in a file (or a notebook cell)."""
    _require_plain_function(func)
    try:
        text = inspect.getsource(func)
    except (OSError, TypeError):
        raise FunctionPackagingError(
            f"func: the source of {func.__qualname__} is not available (defined in the REPL, with exec, or in a "
            "compiled module); define it in a .py file or a notebook cell"
        ) from None
    if text[:1].isspace():
        # Only a nested definition is indented; a top-level one is shipped exactly as written.
        text = textwrap.dedent(text)
    if text.lstrip().startswith("@"):
        raise FunctionPackagingError(
            f"func: {func.__qualname__} is decorated; on the nodes the decorator would run without the imports of "
            "its module: drop the decorator or apply it inside the function"
        )
    return FunctionSource(func.__name__, _file_name(func), text)


def _require_plain_function(func: Any) -> None:
    if not inspect.isfunction(func):
        raise FunctionPackagingError(f"func: expected a function defined with def, got {type(func).__name__} {func!r}")
    if func.__name__ == "<lambda>":
        raise FunctionPackagingError("func: a lambda cannot be shipped (it has no name to call); define it with def in a .py file")
    qualified = func.__qualname__.split(".<locals>.")[-1]
    if "." in qualified:
        raise FunctionPackagingError(f"func: {func.__qualname__} is a method; use a module-level function")
    if func.__code__.co_freevars:
        names = ", ".join(func.__code__.co_freevars)
        raise FunctionPackagingError(
            f"func: {func.__qualname__} uses variables of the enclosing function ({names}), which do not travel "
            "with its source; pass them through func_args"
        )


def _file_name(func: Callable[..., Any]) -> str:
    try:
        name = Path(inspect.getfile(func)).name
    except TypeError:
        name = ""
    # Notebook cells live in files such as `<ipython-input-3>` or `1234.py`; any odd name gets the function's.
    return name if _PLAIN_FILE_NAME.match(name) else f"{func.__name__}.py"


def module_source(module: Any) -> ShippedModule:
    """A plain module's whole file, to be importable by the same name on the nodes."""
    if not isinstance(module, types.ModuleType):
        raise FunctionPackagingError(f"modules: expected imported modules, got {type(module).__name__} {module!r}")
    name = module.__name__
    if name == "__main__":
        raise FunctionPackagingError("modules: __main__ (the script itself) cannot be shipped; move the helpers into a module")
    if hasattr(module, "__path__"):
        raise FunctionPackagingError(
            f"modules: {name} is a package; ship its modules one by one or install it with packages=[...]"
        )
    file = getattr(module, "__file__", None)
    if not file or not file.endswith(".py"):
        raise FunctionPackagingError(
            f"modules: {name} has no .py source file (built-in or compiled); install it with packages=[...]"
        )
    try:
        text = Path(file).read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise FunctionPackagingError(f"modules: {name} ({file}) is not UTF-8 text") from None
    return ShippedModule(name, name.replace(".", "/") + ".py", text)
