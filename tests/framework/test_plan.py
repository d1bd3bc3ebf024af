"""The render plan: made once per runtime, and what renders take from it."""

from __future__ import annotations

import pytest

from pulumi_kubeflow_trainer.blueprints import bundled_runtime
from pulumi_kubeflow_trainer.framework.compiled import CompiledRuntime
from pulumi_kubeflow_trainer.framework.info import numbered_lines
from pulumi_kubeflow_trainer.plugins import default_framework


@pytest.mark.parametrize(("head", "tail"), [("job-node-0-", ".job slots=2\n"), ("", ""), ("a-", ":1\n")])
def test_numbered_lines_are_the_lines_written_one_by_one(head: str, tail: str) -> None:
    for count in [*range(-2, 250), 999, 1000, 1001, 1024, 9999, 10_000, 12_345, 100_000]:
        assert numbered_lines(head, tail, count) == "".join(f"{head}{index}{tail}" for index in range(count)), count


def test_numbered_lines_with_the_index_marker_in_a_name_are_still_right() -> None:
    assert numbered_lines("a\x00-", "\x00", 25) == "".join(f"a\x00-{index}\x00" for index in range(25))


def test_a_plan_is_made_once_per_runtime_and_framework() -> None:
    compiled = CompiledRuntime.of(bundled_runtime("torch-distributed"))
    assert default_framework().plan(compiled) is default_framework().plan(compiled)


@pytest.mark.parametrize(("runtime", "node_jobs"), [("deepspeed-distributed", {"node"}), ("mpi-distributed", set()),
                                                    ("torch-distributed", set())])
def test_the_mpi_plugin_declares_its_node_job_a_trainer_node_when_the_launcher_is_one(runtime: str, node_jobs: set[str]) -> None:
    plan = default_framework().plan(CompiledRuntime.of(bundled_runtime(runtime)))
    assert plan.trainer_node_jobs == node_jobs
