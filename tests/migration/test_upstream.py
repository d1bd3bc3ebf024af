"""Upstream Trainer v2.3.0 takes what migrate makes: every migrated example and crafted job, with the
runtime it names, run through the parity oracle (tools/build-oracle: upstream's admission, webhooks
and controller) renders there, and as render() renders it (docs/parity.md's rules)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pulumi_kubeflow_trainer.blueprints import bundled_runtime
from pulumi_kubeflow_trainer.migration import migrate
from tests.toolchain import required

from ..parity.compare import report, run_cases
from ..parity.generator import Case, dump
from ..parity.oracle import Oracle, find_oracle
from ..parity.test_differential import crd_dirs
from .examples import MIGRATED
from .test_v1jobs import CASES, JOBS


@pytest.fixture(scope="module")
def upstream_oracle() -> Path:
    return required(find_oracle(), "no parity oracle: run tools/build-oracle (or set PULUMI_KFT_ORACLE)")


def documents(path: Path) -> list[list[dict[str, Any]]]:
    """Per migrated job: its manifests, in the namespace `kubectl apply` would put them in (the API
    server's, which the oracle's snapshot of a namespaced runtime shows), and the bundled runtime it names."""
    found = []
    for job in migrate(path).jobs:
        runtime = [] if job.generated_because else [bundled_runtime(job.runtime).to_manifest()]
        applied = [{**manifest, "metadata": {"namespace": "default", **manifest["metadata"]}} for manifest in job.manifests]
        found.append([*runtime, *applied])
    return found


def test_upstream_accepts_every_migrated_job_and_renders_it_as_render_does(upstream_oracle: Path, v1_examples: Path) -> None:
    paths = [v1_examples / example.path for example in MIGRATED] + [JOBS / case.file for case in CASES]
    cases = [Case(index, "migration", dump(docs), (str(path),))
             for index, (path, docs) in enumerate((path, docs) for path in paths for docs in documents(path))]
    assert len(cases) == len(paths)
    run = run_cases(cases, Oracle(upstream_oracle, crd_dirs()))
    assert not run.failures, report(run)
    assert all(verdict.outcome == "agree" for verdict in run.verdicts), [(v.case.features, v.outcome) for v in run.verdicts]
