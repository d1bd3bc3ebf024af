"""Differential test: our render() against upstream's own code (the oracle, tools/oracle) on seeded
inputs across every plugin. A difference fails unless docs/parity.md's table of deliberate
differences accepts it. KFT_PARITY_CASES (default 1000) and KFT_PARITY_SEED choose the inputs."""

from __future__ import annotations

import os
import time
from pathlib import Path

from tests.conftest import require_reference

from .compare import DELIBERATE, report, run_cases, table_ids
from .generator import FAMILIES, generate
from .oracle import Oracle

DEFAULT_SEED = "parity-1"
CASES = int(os.environ.get("KFT_PARITY_CASES", "1000"))
SEED = os.environ.get("KFT_PARITY_SEED", DEFAULT_SEED)


def crd_dirs() -> list[Path]:
    """The oracle has the trainer, JobSet and coscheduling CRDs; Volcano's PodGroup comes from the reference."""
    return [require_reference() / "crds" / "volcano"]


def test_render_matches_upstream_on_generated_inputs(oracle_bin: Path) -> None:
    cases = generate(SEED, CASES)
    started = time.monotonic()
    run = run_cases(cases, Oracle(oracle_bin, crd_dirs()))
    elapsed = time.monotonic() - started
    print(f"\nparity: {run.summary()} ({elapsed:.0f}s)")
    assert not run.failures, report(run)
    assert {case.family for case in cases} == set(FAMILIES)


def test_every_deliberate_rule_is_a_row_of_the_table() -> None:
    rows = table_ids()
    assert set(DELIBERATE) <= set(rows), f"rules without a row in docs/parity.md: {sorted(set(DELIBERATE) - set(rows))}"
    untested = {row for row, how in rows.items() if row not in DELIBERATE and "not generated" not in how}
    assert not untested, f"rows of docs/parity.md that say they are tested but have no rule: {sorted(untested)}"
