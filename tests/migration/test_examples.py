"""The differential test: every example of training-operator v1.8.1, migrated and rendered, against the
Pods v1's own code makes of it (tools/oracle-v1).

Per v1 Pod and the v2 Pod of the same rank: the user's containers, Pod fields, labels and annotations
are equal, except where migrate() reported a loss at that field's path; the distributed env follows
the env mapping exactly (compare.MappingError otherwise); the Pod counts agree, and so do the
processes per node (torch's PET_NPROC_PER_NODE, MPI's hostfile slots).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pulumi_kubeflow_trainer import TrainJobInvalidError, render
from pulumi_kubeflow_trainer.api import constants as c
from pulumi_kubeflow_trainer.blueprints import bundled_runtime
from pulumi_kubeflow_trainer.migration import MigratedJob, migrate
from pulumi_kubeflow_trainer.migration.plan import node_host
from pulumi_kubeflow_trainer.ssh import seeded_key_generator

from .compare import Comparison
from .examples import EXAMPLES, MIGRATED, REFUSED, Example
from .oracle_v1 import answers
from .pods import pairs, v1_pods, v2_pods


@pytest.fixture(scope="module")
def v1_answers(oracle_v1: Path, v1_examples: Path) -> dict[tuple[str, int], dict[str, Any]]:
    return answers(oracle_v1, [v1_examples / example.path for example in MIGRATED])


def test_the_table_lists_every_example_of_the_module(v1_examples: Path) -> None:
    found = sorted(str(path.relative_to(v1_examples)) for path in v1_examples.rglob("*.yaml"))
    assert found == sorted(example.path for example in EXAMPLES)
    assert len(found) == 32


def document_of(job: MigratedJob) -> tuple[str, int]:
    where = job.source.split(" (")[0]
    file, _, number = where.rpartition("#")
    return file, int(number)


def rendered_jobset(job: MigratedJob) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The JobSet (and all objects) render() makes of the migrated TrainJob, with its bundled runtime if it names one."""
    objects: list[Any] = list(job.manifests)
    if not any(manifest["kind"] == c.TRAINING_RUNTIME_KIND for manifest in job.manifests):
        objects.append(bundled_runtime(job.runtime))
    manifests = render(objects, key_generator=seeded_key_generator("migration"))
    return next(manifest for manifest in manifests if manifest["kind"] == "JobSet"), manifests


def covered(path: str, job: MigratedJob) -> bool:
    """A difference at `path` is one migrate() reported: at that path, or at a field containing it."""
    return any(path == loss.path or path.startswith(loss.path + ".") or path.startswith(loss.path + "[")
               for loss in job.losses)


@pytest.mark.parametrize("example", MIGRATED, ids=lambda example: example.path)
def test_a_v1_example_migrates_renders_and_makes_the_pods_v1_made(
    example: Example, v1_examples: Path, v1_answers: dict[tuple[str, int], dict[str, Any]]
) -> None:
    result = migrate(v1_examples / example.path)
    assert result.jobs, "no job migrated"
    assert ("migrated with losses" if result.losses else "migrated") == example.outcome, [str(loss) for loss in result.losses]
    for job in result.jobs:
        answer = v1_answers[document_of(job)]
        assert not answer.get("error"), f"v1 refuses {job.source}: {answer['error']}"
        jobset, manifests = rendered_jobset(job)
        manifest = _original(v1_examples / example.path, job)
        comparison = Comparison(manifest)
        v1, v2 = v1_pods(answer), v2_pods(jobset)
        assert len(v1) == len(v2), f"v1 makes {len(v1)} Pods, v2 {len(v2)}"
        unexplained = []
        for old, new in pairs(job.kind, v1, v2):
            assert new is not None, f"no v2 Pod does the work of v1's {old.role}-{old.index}"
            unexplained += [path for path in comparison.pair(old, new) if not covered(path, job)]
        assert not unexplained, f"differences migrate did not report: {sorted(set(unexplained))}"
        if job.kind == "MPIJob":
            assert_same_hostfile(answer, manifests, job.name)


def _original(path: Path, job: MigratedJob) -> dict[str, Any]:
    from pulumi_kubeflow_trainer.yamlio import load_documents

    documents = [document for document in load_documents(path.read_text()) if document is not None]
    return next(document for document in documents if document["metadata"]["name"] == job.name)  # type: ignore[no-any-return]


def assert_same_hostfile(answer: dict[str, Any], manifests: list[dict[str, Any]], name: str) -> None:
    """v1's hostfile (`<job>-worker-<i> slots=<n>`) and v2's, host for host, slots for slots."""
    v1_config = next(item for item in answer["configMaps"] if item["metadata"]["name"] == f"{name}-config")
    v2_config = next(item for item in manifests if item["kind"] == "ConfigMap" and item["metadata"]["name"] == f"{name}-mpi-hostfile")
    expected = []
    for line in v1_config["data"]["hostfile"].splitlines():
        host, slots = line.split(" ")
        index = host.rpartition("-")[2]
        expected.append(f"{node_host(name, int(index))} {slots}" if "-worker-" in host else f"{name}-launcher-0-0.{name} {slots}")
    assert v2_config["data"]["hostfile"].splitlines() == expected


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
