"""The payload: a function, its JSON arguments, helper modules and packages, as one base64 argument.

Base64 is the packaging because its alphabet (`A-Z a-z 0-9 + / =`) holds nothing that any layer between
the manifest and the interpreter could interpret: no shell (there is none, the command is exec'd), no
kubelet `$(VAR)` expansion, no heredoc delimiter, no quoting, no encoding. The bootstrap checks the
SHA-256 of the decoded bytes, so what runs is provably what was packaged.
"""

from __future__ import annotations

import base64
import hashlib
import inspect
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .source import FunctionPackagingError, FunctionSource, ShippedModule, function_source, module_source

PAYLOAD_FORMAT = 1
# Linux refuses a single argv/env string longer than MAX_ARG_STRLEN (32 pages = 131072 bytes, with the NUL).
MAX_ENCODED_BYTES = 131072 - 1


@dataclass(frozen=True)
class FunctionPayload:
    """Everything the nodes need to call the function, with a stable digest of it."""

    function: FunctionSource
    args: dict[str, Any] | None
    modules: tuple[ShippedModule, ...] = ()
    packages: tuple[str, ...] = ()
    index_urls: tuple[str, ...] = ()

    @classmethod
    def of(
        cls,
        func: Callable[..., Any],
        func_args: Mapping[str, Any] | None = None,
        modules: Sequence[Any] | None = None,
        packages: Sequence[str] | None = None,
        index_urls: Sequence[str] | None = None,
    ) -> FunctionPayload:
        shipped = tuple(sorted((module_source(module) for module in modules or ()), key=lambda m: m.name))
        _require_unique(module.name for module in shipped)
        payload = cls(
            function_source(func),
            json_arguments(func, func_args),
            shipped,
            _package_specs(packages),
            tuple(_strings(index_urls, "pip_index_urls")),
        )
        payload.encoded()  # size check now, not at deploy time
        return payload

    def to_json(self) -> bytes:
        """Canonical JSON (sorted keys, no spaces, UTF-8): the same inputs give the same bytes everywhere."""
        document = {
            "format": PAYLOAD_FORMAT,
            "function": self.function.name,
            "file": self.function.file_name,
            "source": self.function.text,
            "args": self.args,
            "modules": [{"name": m.name, "path": m.path, "source": m.text} for m in self.modules],
            "packages": list(self.packages),
            "indexUrls": list(self.index_urls),
        }
        return json.dumps(document, sort_keys=True, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.to_json()).hexdigest()

    def encoded(self) -> str:
        encoded = base64.b64encode(self.to_json()).decode("ascii")
        if len(encoded) > MAX_ENCODED_BYTES:
            raise FunctionPackagingError(
                f"func: the function, its arguments and modules come to {len(encoded)} bytes once encoded; one "
                f"command argument may carry at most {MAX_ENCODED_BYTES} (Linux MAX_ARG_STRLEN): move code into "
                "the image or a package, and data into a volume or the dataset initializer"
            )
        return encoded


def json_arguments(func: Callable[..., Any], func_args: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """`func_args` checked to fit the signature and to come back unchanged from JSON."""
    if func_args is None:
        return None
    if not isinstance(func_args, Mapping):
        raise FunctionPackagingError(f"func_args: expected a dict of keyword arguments, got {type(func_args).__name__}")
    for name, value in func_args.items():
        if not isinstance(name, str):
            raise FunctionPackagingError(f"func_args: argument names must be strings, got {name!r}")
        _require_json(value, f"func_args[{name!r}]")
    try:
        inspect.signature(func).bind(**func_args)
    except TypeError as error:
        raise FunctionPackagingError(f"func_args: do not fit {func.__name__}{inspect.signature(func)}: {error}") from None
    return dict(func_args)


def _require_json(value: Any, where: str) -> None:
    if type(value).__name__ == "Output" and hasattr(value, "apply"):
        raise FunctionPackagingError(
            f"{where}: a Pulumi Output is known only at deploy time, and the payload is built at preview; pass it "
            "through env= (which takes Outputs) and read os.environ inside the function"
        )
    try:
        text = json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise FunctionPackagingError(
            f"{where}: {_short(value)} is not JSON-serialisable ({error}); pass str, int, float, bool, None, "
            "lists and dicts with string keys, and load anything bigger inside the function"
        ) from None
    back = json.loads(text)
    if not _same(back, value):
        raise FunctionPackagingError(
            f"{where}: {_short(value)} would arrive as {_short(back)} (JSON has no tuples, sets or non-string keys); "
            "pass it in its JSON form"
        )


def _same(a: Any, b: Any) -> bool:
    # bool is an int and 1 == 1.0 in Python; JSON keeps both types apart, so compare types too.
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    return bool(a == b)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _package_specs(packages: Sequence[str] | None) -> tuple[str, ...]:
    specs = tuple(_strings(packages, "packages"))
    for spec in specs:
        if not spec.strip() or spec.lstrip().startswith("-"):
            # A leading dash would be read by pip as an option (`--index-url ...`, `-r file`).
            raise FunctionPackagingError(f"packages: {spec!r} is not a requirement such as 'numpy' or 'pandas>=2'")
    return specs


def _strings(values: Sequence[str] | None, where: str) -> list[str]:
    if values is None:
        return []
    if isinstance(values, str):
        raise FunctionPackagingError(f"{where}: expected a list of strings, got the string {values!r}")
    for value in values:
        if not isinstance(value, str):
            raise FunctionPackagingError(f"{where}: expected strings, got {type(value).__name__} {value!r}")
    return list(values)


def _require_unique(names: Any) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise FunctionPackagingError(f"modules: {name} is given twice")
        seen.add(name)
