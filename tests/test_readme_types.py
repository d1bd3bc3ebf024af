"""README's Python examples type-check with `mypy --strict` as a user's program that installed the package.

Each ```python block becomes a module of its own in a temporary directory, outside this repo's mypy
configuration (a block whose first line is `# continued` goes on from the block before it). The package is found on the path (`PYTHONPATH`, where mypy requires a `py.typed` marker,
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
'''
READER_TRAIN_MODULE = "def train(epochs: int, lr: float) -> None:\n    pass\n"
# mypy's cache outside the repo, as the other tool caches, one per environment (tools/test --lowest has
# its own): a warm check takes seconds, a cold one a minute.
CACHE = (
    Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "pulumi-kubeflow-trainer" / "mypy-readme"
    / hashlib.sha256(sys.prefix.encode()).hexdigest()[:12]
)


CONTINUED = "# continued"  # the first line of a block that goes on from the block before it


def readme_examples() -> list[str]:
    """The programs of README's ```python blocks: one per block, a `# continued` block appended to the one before."""
    programs: list[str] = []
    for block in PYTHON_BLOCK.findall((REPO / "README.md").read_text(encoding="utf-8")):
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


def test_the_readme_has_python_examples_to_check() -> None:
    examples = readme_examples()
    assert len(examples) >= 3
    assert any("TrainJob(" in example for example in examples)


def test_the_readme_examples_pass_mypy_strict_against_the_published_types(tmp_path: Path) -> None:
    for index, example in enumerate(readme_examples()):
        (tmp_path / f"readme_example_{index}.py").write_text(READER_NAMES + example, encoding="utf-8")
    (tmp_path / "train.py").write_text(READER_TRAIN_MODULE, encoding="utf-8")
    result = user_side_mypy(tmp_path, ".")
    hint = f"(each ```python block is a program of its own; one that goes on from the block before starts with `{CONTINUED}`)"
    assert result.returncode == 0, f"mypy --strict on README's examples {hint}:\n{result.stdout}{result.stderr}"


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
