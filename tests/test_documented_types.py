"""The Python examples of README and the docs type-check with `mypy --strict` as a user's
program that installed the package.

Each ```python block becomes a module of its own in a temporary directory, outside this repo's mypy
configuration (a block whose first line is `# continued` goes on from the block before it; one whose
first line is `# train.py` is the reader's own training module, which needs torch: it is compiled, and
a typed stand-in with its signature takes its place). The package is found on the path (`PYTHONPATH`, where mypy requires a `py.typed` marker,
as in site-packages), so what mypy checks is what a user's checker sees: the published types, without
the errors of the package itself. A misspelt argument, a wrong `wait_for` or a name the package does
not export fails here.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)
# What README's examples take from the reader's program: an image built elsewhere (its `ref` an Output)
# and the `train` function of their train.py.
READER_NAMES = '''import pulumi


class _BuiltImage:
    ref: pulumi.Output[str]


my_image = _BuiltImage()
hf_token_output: pulumi.Output[str] = pulumi.Output.secret("token")
'''
READER_TRAIN_MODULE = "def train(epochs: int, lr: float, bucket: str = '') -> None:\n    pass\n"
DOCUMENTS = ("README.md", "docs/data-scientists.md", "docs/components.md", "docs/kueue.md", "docs/controller-mode.md",
             "docs/watching.md")
TUTORIALS = ("README.md", "docs/data-scientists.md")  # each shows at least two programs with a TrainJob
READER_MODULE = "# train.py"
# mypy's cache outside the repo, as the other tool caches, one per environment (tools/test --lowest has
# its own): a warm check takes seconds, a cold one a minute.
CACHE = (
    Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "pulumi-kubeflow-trainer" / "mypy-readme"
    / hashlib.sha256(sys.prefix.encode()).hexdigest()[:12]
)


CONTINUED = "# continued"  # the first line of a block that goes on from the block before it


def python_blocks(document: str) -> list[str]:
    return PYTHON_BLOCK.findall((REPO / document).read_text(encoding="utf-8"))


def examples(document: str) -> list[str]:
    """The programs of a document's ```python blocks: one per block, a `# continued` block appended to the
    one before, the reader's own `# train.py` left out."""
    programs: list[str] = []
    for block in python_blocks(document):
        if block.startswith(READER_MODULE):
            continue
        if block.startswith(CONTINUED) and programs:
            programs[-1] += block
        else:
            programs.append(block)
    return programs


def user_side_mypy(directory: Path, target: str) -> subprocess.CompletedProcess[str]:
    """`mypy --strict target` in `directory`, with its own configuration and the package on the path."""
    (directory / "mypy.ini").write_text("[mypy]\nstrict = True\n", encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(CACHE), "--config-file", "mypy.ini", target],
        cwd=directory, env={**os.environ, "PYTHONPATH": str(REPO / "components")}, capture_output=True, text=True, timeout=600,
    )


def test_each_tutorial_has_python_examples_to_check() -> None:
    for document in TUTORIALS:
        programs = examples(document)
        assert len(programs) >= 2, document
        assert any("TrainJob(" in program for program in programs), document


def test_the_readers_own_training_module_in_the_docs_is_valid_python() -> None:
    modules = [block for document in DOCUMENTS for block in python_blocks(document) if block.startswith(READER_MODULE)]
    assert modules, f"docs/data-scientists.md starts its train.py block with {READER_MODULE!r}"
    for module in modules:
        compile(module, "train.py", "exec")


def test_the_documented_examples_pass_mypy_strict_against_the_published_types(tmp_path: Path) -> None:
    for document in DOCUMENTS:
        stem = Path(document).stem.replace("-", "_").lower()
        for index, program in enumerate(examples(document)):
            (tmp_path / f"{stem}_example_{index}.py").write_text(READER_NAMES + program, encoding="utf-8")
    (tmp_path / "train.py").write_text(READER_TRAIN_MODULE, encoding="utf-8")
    result = user_side_mypy(tmp_path, ".")
    hint = f"(each ```python block is a program of its own; one that goes on from the block before starts with `{CONTINUED}`)"
    assert result.returncode == 0, f"mypy --strict on the examples of {', '.join(DOCUMENTS)} {hint}:\n{result.stdout}{result.stderr}"


def test_the_check_sees_real_types_not_any(tmp_path: Path) -> None:
    """The same check fails on a wrong argument, so the types it passes are not Any."""
    wrong = (
        "from pulumi_kubeflow_trainer import ClusterTrainingRuntime, TrainerArgs, TrainJob\n"
        'TrainJob("j", runtime_ref="torch-distributed", wait_for="finished", trainer=TrainerArgs(num_nodes="2"))\n'
        "reveal_type(TrainerArgs.from_function)\n"
        'reveal_type(ClusterTrainingRuntime.bundled("torch-distributed", deploy=True))\n'
    )
    (tmp_path / "wrong.py").write_text(wrong, encoding="utf-8")
    result = user_side_mypy(tmp_path, "wrong.py")
    assert result.returncode == 1, result.stdout + result.stderr
    assert 'Argument "wait_for" to "TrainJob" has incompatible type "Literal[\'finished\']"' in result.stdout
    assert 'Argument "num_nodes" to "TrainerArgs" has incompatible type "str"' in result.stdout
    assert "-> pulumi_kubeflow_trainer.functions.trainer.FunctionTrainer" in result.stdout
    assert 'Revealed type is "pulumi_kubeflow_trainer.resources.runtime.ClusterTrainingRuntime"' in result.stdout
