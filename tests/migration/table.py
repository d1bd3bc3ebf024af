"""docs/migration.md's generated tables: the env mapping (from migration.envmap) and every example of
training-operator v1.8.1 with what migrate() makes of it. test_docs.py fails when the page's copy is
out of date; `python -m tests.migration.table` prints both (the examples need tools/build-oracle-v1)."""

from __future__ import annotations

import sys
from pathlib import Path

from pulumi_kubeflow_trainer import TrainJobInvalidError
from pulumi_kubeflow_trainer.migration import ENV_MAPPINGS, V2_ONLY, migrate

from .examples import EXAMPLES, Example
from .oracle_v1 import examples_of, find_oracle_v1

BY = {"policy": "v2's policy", "trainjob": "the TrainJob (`spec.trainer.env`)", "dropped": "nothing"}


def env_table() -> str:
    lines = ["| framework | v1 sets | in v2, set by | v2's value |", "| --- | --- | --- | --- |"]
    lines += [f"| {item.framework} | `{item.v1}` | {BY[item.by]} | {item.how} |" for item in ENV_MAPPINGS]
    lines += [f"| {framework} | (not set) `{name}` | v2's policy | {how} |" for framework, name, how in V2_ONLY]
    return "\n".join(lines) + "\n"


def examples_table(examples: Path) -> str:
    lines = ["| example | outcome | runtime | lost, or why refused |", "| --- | --- | --- | --- |"]
    lines += [_row(example, examples) for example in EXAMPLES]
    return "\n".join(lines) + "\n"


def _row(example: Example, examples: Path) -> str:
    try:
        result = migrate(examples / example.path)
    except TrainJobInvalidError as refused:
        kinds = ", ".join(dict.fromkeys(error.source.split("(")[1].split("/")[0] for error in refused.errors))
        why = "; ".join(dict.fromkeys(_refusal(error.message) for error in refused.errors))
        return f"| `{example.path}` | refused | - | {kinds}: {why} |"
    outcome = "migrated with losses" if result.losses else "migrated"
    runtimes = ", ".join(
        f"`{job.runtime}` (bundled)" if not job.generated_because else f"generated TrainingRuntime ({'; '.join(job.generated_because)})"
        for job in result.jobs
    )
    lost = "<br>".join(f"`{loss.path}`" for loss in result.losses) or "-"
    return f"| `{example.path}` | {outcome} | {runtimes} | {lost} |"


def _refusal(message: str) -> str:
    if "v2 has no runtime for" in message:
        return "v2 has no runtime for " + message.split("v2 has no runtime for ")[1].split(":")[0]
    return "not a Training Operator v1 job (apply it as it is)"


def main() -> int:
    binary = find_oracle_v1()
    print(env_table())
    if binary is None:
        print("no examples: run tools/build-oracle-v1", file=sys.stderr)
        return 1
    print(examples_table(examples_of(binary)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
