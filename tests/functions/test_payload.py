"""Packaging a function: what can be shipped, the errors for what cannot, and the bootstrap round trip."""

from __future__ import annotations

import base64
import inspect
import json
import os
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pulumi_kubeflow_trainer.framework.errors import TrainerError
from pulumi_kubeflow_trainer.functions import (
    MAX_ENCODED_BYTES,
    FunctionPackagingError,
    FunctionPayload,
    bootstrap_program,
    function_source,
)
from tests.functions import sample_functions, sample_helpers


def nested_factory() -> Callable[..., Any]:
    def nested(x):
        return x

    return nested


def closure_factory() -> Callable[..., Any]:
    captured = 3

    def uses_captured():
        return captured

    return uses_captured


class Holder:
    def method(self):
        return self


def _decorator(func: Callable[..., Any]) -> Callable[..., Any]:
    return func


@_decorator
def decorated():
    return 1


def repl_function() -> Callable[..., Any]:
    namespace: dict[str, Any] = {}
    exec("def typed_at_the_prompt():\n    return 1\n", namespace)
    return namespace["typed_at_the_prompt"]


class Output:
    """Looks like a pulumi.Output, which a program might pass by mistake."""

    def apply(self, func: Callable[..., Any]) -> Any:
        return func(None)


@dataclass(frozen=True)
class Refused:
    name: str
    make: Callable[[], FunctionPayload]
    message: str


REFUSED = [
    Refused("a lambda has no name to call", lambda: FunctionPayload.of(lambda: 1), "a lambda cannot be shipped"),
    Refused("a function typed at the REPL has no source", lambda: FunctionPayload.of(repl_function()), "source of typed_at_the_prompt is not available"),
    Refused("a builtin is not a def", lambda: FunctionPayload.of(print), "expected a function defined with def"),
    Refused("a closure's variables would not travel", lambda: FunctionPayload.of(closure_factory()), r"enclosing function \(captured\)"),
    Refused("a method needs its class", lambda: FunctionPayload.of(Holder.method), "Holder.method is a method"),
    Refused("a decorator would lose its imports", lambda: FunctionPayload.of(decorated), "is decorated"),
    Refused(
        "an argument that is not JSON names the argument",
        lambda: FunctionPayload.of(sample_functions.greet, {"name": object()}),
        r"func_args\['name'\]: <object object at .*> is not JSON-serialisable",
    ),
    Refused(
        "a Pulumi Output is known too late and env is the way",
        lambda: FunctionPayload.of(sample_functions.greet, {"name": Output()}),
        r"func_args\['name'\]: a Pulumi Output is known only at deploy time.*pass it through env=",
    ),
    Refused(
        "a tuple would arrive as a list",
        lambda: FunctionPayload.of(sample_functions.greet, {"name": ("a", "b")}),
        r"func_args\['name'\]: \('a', 'b'\) would arrive as \['a', 'b'\]",
    ),
    Refused(
        "NaN is not JSON",
        lambda: FunctionPayload.of(sample_functions.greet, {"name": float("nan")}),
        r"func_args\['name'\]: nan is not JSON-serialisable",
    ),
    Refused(
        "arguments must fit the signature",
        lambda: FunctionPayload.of(sample_functions.greet, {"nam": "x"}),
        r"func_args: do not fit greet\(name, punctuation='!'\)",
    ),
    Refused("a package is not a module", lambda: FunctionPayload.of(sample_functions.greet, modules=[json]), "json is a package"),
    Refused("a compiled module has no source", lambda: FunctionPayload.of(sample_functions.greet, modules=[sys]), "sys has no .py source"),
    Refused("modules are module objects", lambda: FunctionPayload.of(sample_functions.greet, modules=["sample_helpers"]), "expected imported modules"),
    Refused("a module is shipped once", lambda: FunctionPayload.of(sample_functions.greet, modules=[sample_helpers, sample_helpers]), "given twice"),
    Refused(
        "a package spec may not be a pip option",
        lambda: FunctionPayload.of(sample_functions.greet, packages=["--index-url=http://x"]),
        "is not a requirement",
    ),
    Refused("packages are a list, not one string", lambda: FunctionPayload.of(sample_functions.greet, packages="numpy"), "got the string 'numpy'"),
    Refused(
        "a payload over one argument's limit is refused",
        lambda: FunctionPayload.of(sample_functions.greet, {"name": "x" * MAX_ENCODED_BYTES}),
        "one command argument may carry at most",
    ),
]


@pytest.mark.parametrize("case", REFUSED, ids=lambda case: case.name)
def test_what_cannot_be_shipped_is_refused_with_a_clear_message(case: Refused) -> None:
    with pytest.raises(FunctionPackagingError, match=case.message):
        case.make()


def test_packaging_errors_are_trainer_errors() -> None:
    assert issubclass(FunctionPackagingError, TrainerError)


def test_a_top_level_function_is_shipped_exactly_as_written_in_its_file() -> None:
    source = function_source(sample_functions.echo_what_arrived)
    assert source.file_name == "sample_functions.py"
    assert source.text == inspect.getsource(sample_functions.echo_what_arrived)
    assert source.text.encode() in Path(sample_functions.__file__).read_bytes()


def test_a_nested_function_is_dedented_to_run_at_top_level() -> None:
    source = function_source(nested_factory())
    assert source.text.startswith("def nested(x):")


@dataclass(frozen=True)
class Digest:
    name: str
    other: FunctionPayload
    same: bool


def greet_payload(name: str = "ada", modules: tuple[Any, ...] = (sample_helpers,), package: str = "numpy") -> FunctionPayload:
    return FunctionPayload.of(sample_functions.greet, {"name": name}, list(modules), [package], ["https://packages.example/simple"])


BASE = greet_payload()
DIGESTS = [
    Digest("the same inputs give the same digest", greet_payload(), True),
    Digest("another argument value changes the digest", greet_payload(name="bob"), False),
    Digest("another package changes the digest", greet_payload(package="pandas"), False),
    Digest("dropping a module changes the digest", greet_payload(modules=()), False),
    Digest("another function changes the digest", FunctionPayload.of(sample_functions.fail_on_process, {"failing_process": 1, "exit_code": 2}), False),
]


@pytest.mark.parametrize("case", DIGESTS, ids=lambda case: case.name)
def test_the_digest_identifies_the_payload(case: Digest) -> None:
    assert (case.other.sha256 == BASE.sha256) is case.same
    assert (case.other.encoded() == BASE.encoded()) is case.same


def test_the_payload_is_canonical_json_in_base64() -> None:
    document = json.loads(base64.b64decode(BASE.encoded()))
    assert document["function"] == "greet"
    assert document["args"] == {"name": "ada"}
    assert document["modules"] == [
        {"name": "tests.functions.sample_helpers", "path": "tests/functions/sample_helpers.py", "source": Path(sample_helpers.__file__).read_text()}
    ]
    assert (document["packages"], document["indexUrls"]) == (["numpy"], ["https://packages.example/simple"])


def _run_bootstrap(payload: FunctionPayload, digest: str | None, cwd: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-c", bootstrap_program(), digest or payload.sha256, payload.encoded()]
    return subprocess.run(argv, capture_output=True, text=True, cwd=cwd, env=dict(os.environ, PYTHONPATH=""))


def test_the_bootstrap_runs_the_function_with_its_arguments_and_shipped_modules(tmp_path: Any) -> None:
    payload = FunctionPayload.of(sample_functions.greet, {"name": "ada", "punctuation": "?"}, modules=[sample_helpers])
    result = _run_bootstrap(payload, None, str(tmp_path))  # tmp_path: the tests package is not importable there
    assert result.returncode == 0, result.stderr
    assert result.stdout == "hello, ada?\n"


def tiny_wheel(directory: Path) -> None:
    """A one-module wheel, so pip installs without an index."""
    files = {
        "tinypkg.py": "VALUE = 42\n",
        "tinypkg-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: tinypkg\nVersion: 1.0\n",
        "tinypkg-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = "".join(f"{path},,\n" for path in [*files, "tinypkg-1.0.dist-info/RECORD"])
    with zipfile.ZipFile(directory / "tinypkg-1.0-py3-none-any.whl", "w") as wheel:
        for path, text in {**files, "tinypkg-1.0.dist-info/RECORD": record}.items():
            wheel.writestr(path, text)


def test_the_bootstrap_installs_packages_once_per_node_before_calling_the_function(tmp_path: Path) -> None:
    wheels, target, node_tmp = tmp_path / "wheels", tmp_path / "site", tmp_path / "tmp"
    for directory in (wheels, target, node_tmp):
        directory.mkdir()
    tiny_wheel(wheels)
    payload = FunctionPayload.of(sample_functions.use_installed_package, packages=["tinypkg==1.0"])
    # pip reads its options from PIP_* too: no index, the local wheel, and a target dir instead of this venv.
    env = dict(os.environ, PIP_NO_INDEX="1", PIP_FIND_LINKS=str(wheels), PIP_TARGET=str(target), PYTHONPATH=str(target), TMPDIR=str(node_tmp))
    argv = [sys.executable, "-c", bootstrap_program(), payload.sha256, payload.encoded()]
    first = subprocess.run(argv, capture_output=True, text=True, cwd=tmp_path, env=env)
    assert (first.returncode, first.stdout) == (0, "tinypkg 42\n"), first.stderr
    stamps = sorted(path.suffix for path in node_tmp.glob("kubeflow-trainer-pip-*"))
    assert stamps == [".done", ".lock"]  # a second process on this node skips pip
    shutil.rmtree(wheels)  # were pip to run again, it would find nothing to install and fail
    second = subprocess.run(argv, capture_output=True, text=True, cwd=tmp_path, env={**env, "PIP_RETRIES": "0", "PIP_TIMEOUT": "1"})
    assert (second.returncode, second.stdout) == (0, "tinypkg 42\n"), second.stderr


def test_the_bootstrap_refuses_a_payload_that_does_not_match_its_digest(tmp_path: Any) -> None:
    result = _run_bootstrap(BASE, "0" * 64, str(tmp_path))
    assert result.returncode == 1
    assert "does not match its sha256" in result.stderr


def test_the_bootstrap_program_is_a_constant_without_user_code() -> None:
    assert "greet" not in bootstrap_program()
    compile(bootstrap_program(), "bootstrap", "exec")
