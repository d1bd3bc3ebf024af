"""`python -m tests.parity [--cases N] [--seed S] [--case INDEX]`: the differential run, with a report
of every difference (what the test asserts on). Needs the oracle (tools/build-oracle)."""

from __future__ import annotations

import argparse
import json
import sys

from .compare import report, run_cases
from .generator import generate, generate_case
from .oracle import Oracle, find_oracle
from .test_differential import DEFAULT_SEED, crd_dirs


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.parity")
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--seed", default=DEFAULT_SEED)
    parser.add_argument("--case", type=int, action="append", help="only this case index (repeatable); prints its input")
    parser.add_argument("--limit", type=int, default=40, help="causes shown")
    args = parser.parse_args()
    binary = find_oracle()
    if binary is None:
        print("no oracle: run tools/build-oracle", file=sys.stderr)
        return 2
    cases = [generate_case(args.seed, i) for i in args.case] if args.case else generate(args.seed, args.cases)
    run = run_cases(cases, Oracle(binary, crd_dirs()))
    if args.case:
        for verdict in run.verdicts:
            print(f"# case {verdict.case.id}: {verdict.outcome} {verdict.accepted_by} {list(verdict.case.features)}")
            print(verdict.case.yaml)
            print("# ours:", json.dumps(verdict.ours.objects if verdict.ours and verdict.ours.objects is not None else verdict.ours.errors, indent=1)[:6000])
            print("# upstream:", json.dumps(verdict.upstream, indent=1)[:6000])
            print("# detail:", verdict.detail)
    print(report(run, args.limit))
    return 1 if run.failures else 0


if __name__ == "__main__":
    sys.exit(main())
