"""The differential test over training-operator v1.8.1's examples: every one migrated and rendered, or
refused, as the table in examples.py says; the migrated ones against the Pods v1's own code makes of
them (tools/oracle-v1), see differential.py.

Per v1 Pod and the v2 Pod of the same rank: the user's containers, Pod fields, labels and annotations
are equal, except where migrate() reported a loss at that field's path; the distributed env follows
the env mapping exactly (compare.MappingError otherwise); the Pod counts agree, and so do the
processes per node (torch's PET_NPROC_PER_NODE, MPI's hostfile slots).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pulumi_kubeflow_trainer import TrainJobInvalidError
from pulumi_kubeflow_trainer.migration import migrate

from .differential import assert_makes_the_pods_v1_made
from .examples import EXAMPLES, MIGRATED, REFUSED, Example
from .oracle_v1 import answers


@pytest.fixture(scope="module")
def v1_answers(oracle_v1: Path, v1_examples: Path) -> dict[tuple[str, int], dict[str, Any]]:
    return answers(oracle_v1, [v1_examples / example.path for example in MIGRATED])


def test_the_table_lists_every_example_of_the_module(v1_examples: Path) -> None:
    found = sorted(str(path.relative_to(v1_examples)) for path in v1_examples.rglob("*.yaml"))
    assert found == sorted(example.path for example in EXAMPLES)
    assert len(found) == 32


@pytest.mark.parametrize("example", MIGRATED, ids=lambda example: example.path)
def test_a_v1_example_migrates_renders_and_makes_the_pods_v1_made(
    example: Example, v1_examples: Path, v1_answers: dict[tuple[str, int], dict[str, Any]]
) -> None:
    path = v1_examples / example.path
    result = migrate(path)
    assert result.jobs, "no job migrated"
    assert ("migrated with losses" if result.losses else "migrated") == example.outcome, [str(loss) for loss in result.losses]
    for job in result.jobs:
        assert_makes_the_pods_v1_made(path, job, v1_answers)


@pytest.mark.parametrize("example", REFUSED, ids=lambda example: example.path)
def test_a_v1_example_v2_cannot_run_is_refused_with_its_file_and_why(example: Example, v1_examples: Path) -> None:
    path = v1_examples / example.path
    with pytest.raises(TrainJobInvalidError) as refused:
        migrate(path)
    for error in refused.value.errors:
        assert error.source.startswith(f"{path}#"), error.describe()
        assert error.path == "kind"
        kind = error.source.split("(")[1].split("/")[0]
        if kind in ("TFJob", "MXJob"):
            framework = "TensorFlow" if kind == "TFJob" else "MXNet"
            assert f"v2 has no runtime for {framework}" in error.message
        else:
            assert "not a Training Operator v1 job" in error.message
