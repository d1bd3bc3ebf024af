"""Render speed on the user's path: the public calls, each against floors measured in the same run.

    .venv/bin/python bench/render/run.py [--repeat 7] [--cli-runs 5] [--clock cpu|wall]

What is timed is what users call, with nothing pre-built:
  * `render(objects)`: the TrainJob and its runtime as loaded models (what a program that loaded them
    once passes each time), as manifest dicts, and as YAML text;
  * the CLI, `trainjob render -f trainjob.yaml -f runtime.yaml` in a new process, with the process
    start (Python, the imports) reported apart;
  * the Pulumi component, `TrainJob(...)` under Pulumi's mocks, against registering the same JobSet
    directly.
The floor is `copy.deepcopy` of the runtime's JobSet template (`spec.template` of its manifest): any
renderer must at least copy it. Best of `--repeat` rounds, so background load adds noise, not bias;
CPU time by default (`--clock wall` for the wall clock), so other processes' turns are not counted.
Targets (issue 10): torch `render(models)` <= 2x the floor; MPI 1,024 nodes <= 1.5x MPI 1 node.
"""

from __future__ import annotations

import argparse
import copy
import statistics
import subprocess
import sys
import tempfile
import time
import timeit
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "components"))

import pulumi_kubeflow_trainer as kt  # noqa: E402
from pulumi_kubeflow_trainer.blueprints import bundled_runtime  # noqa: E402
from pulumi_kubeflow_trainer.yamlio import dump_all  # noqa: E402


@dataclass(frozen=True)
class Case:
    name: str
    runtime: str
    trainer: dict[str, Any]


TORCH = Case("torch, 4 nodes", "torch-distributed", {"numNodes": 4, "resourcesPerNode": {"requests": {"cpu": "4", "nvidia.com/gpu": "2"},
                                                                              "limits": {"nvidia.com/gpu": "2"}}})
MPI_CASES = [Case(f"MPI, {n} node{'s' if n > 1 else ''}", "deepspeed-distributed", {"numNodes": n}) for n in (1, 64, 1024)]
TORCHTUNE = Case("torchtune LoRA", "torchtune-llama3.2-1b", {"command": ["tune", "run"], "args": ["model.lora_attn_modules=[q_proj]"]})


def trainjob_manifest(case: Case) -> dict[str, Any]:
    return {
        "apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "TrainJob",
        "metadata": {"name": "bench", "namespace": "default"},
        "spec": {"runtimeRef": {"name": case.runtime}, "trainer": case.trainer},
    }


CLOCKS: dict[str, Callable[[], float]] = {"cpu": time.process_time, "wall": time.perf_counter}
CLOCK = CLOCKS["cpu"]  # CPU time: on a shared machine the wall clock also counts the other processes' turns


def best_time(function: Callable[[], Any], repeat: int) -> float:
    """Seconds per call: the best of `repeat` rounds, each long enough to be measured (~0.2 s)."""
    timer = timeit.Timer(function, timer=CLOCK)
    number, _ = timer.autorange()
    return min(timer.repeat(repeat=repeat, number=number)) / number


def row(name: str, seconds: float, floor: float, note: str = "") -> None:
    print(f"  {name:<34} {seconds * 1e6:>10.1f} µs {seconds / floor:>7.2f}x  {note}")


def bench_render(repeat: int) -> dict[str, float]:
    """`render()` per case from models, dicts and YAML; returns seconds per render from models by case."""
    from_models: dict[str, float] = {}
    for case in [TORCH, *MPI_CASES, TORCHTUNE]:
        runtime = bundled_runtime(case.runtime).to_manifest()
        manifests = [runtime, trainjob_manifest(case)]
        models = kt.load(manifests)
        text = dump_all(manifests)
        kt.render(models)  # warm: the first render of a runtime compiles it, as any long-lived program's does
        floor = best_time(lambda runtime=runtime: copy.deepcopy(runtime["spec"]["template"]), repeat)
        print(f"{case.name}: floor (deep copy of the runtime's JobSet template) {floor * 1e6:.1f} µs")
        from_models[case.name] = best_time(lambda models=models: kt.render(models), repeat)
        row("render(models)", from_models[case.name], floor)
        row("render(manifest dicts)", best_time(lambda manifests=manifests: kt.render(manifests), repeat), floor, "includes every CRD rule")
        row("render(YAML text)", best_time(lambda text=text: kt.render(text), repeat), floor, "includes parsing")
    return from_models


def bench_cli(runs: int) -> None:
    """`trainjob render` per file pair in a new process, and what a process start alone costs."""
    with tempfile.TemporaryDirectory() as tmp:
        trainjob, runtime = Path(tmp, "trainjob.yaml"), Path(tmp, "runtime.yaml")
        trainjob.write_text(dump_all([trainjob_manifest(TORCH)]))
        runtime.write_text(dump_all([bundled_runtime(TORCH.runtime).to_manifest()]))
        start = [sys.executable, "-c", "import pulumi_kubeflow_trainer.cli"]
        cli = [sys.executable, "-m", "pulumi_kubeflow_trainer", "render", "-f", str(trainjob), "-f", str(runtime)]
        started, rendered = _best_run(start, runs), _best_run(cli, runs)
    print("CLI (new process each run):")
    print(f"  {'process start + imports':<34} {started * 1e3:>10.1f} ms")
    print(f"  {'trainjob render -f tj -f runtime':<34} {rendered * 1e3:>10.1f} ms  ({(rendered - started) * 1e3:.1f} ms beyond the start)")


def _best_run(argv: list[str], runs: int) -> float:
    env = {"PYTHONPATH": str(REPO / "components"), "PATH": "/usr/bin:/bin"}
    best = float("inf")
    for _ in range(runs):
        began = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=env)
        best = min(best, time.perf_counter() - began)
    return best


def bench_component(repeat: int) -> None:
    """`TrainJob(...)` under Pulumi's mocks, against registering the JobSet it renders directly."""
    import pulumi
    from bench_mocks import construct_seconds

    runtime = bundled_runtime(TORCH.runtime).to_manifest()
    floor = best_time(lambda: copy.deepcopy(runtime["spec"]["template"]), repeat)
    component, direct = construct_seconds(pulumi, TORCH.runtime, trainjob_manifest(TORCH), repeat, CLOCK)
    print("Pulumi component (under mocks; construction in the program's thread):")
    row("TrainJob(...)", component, floor, f"{component / direct:.2f}x registering the JobSet directly")
    row("the JobSet registered directly", direct, floor)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--cli-runs", type=int, default=5)
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu", help="what the in-process timings count")
    args = parser.parse_args()
    global CLOCK
    CLOCK = CLOCKS[args.clock]
    print(f"in-process timings: {args.clock} time per call, best of {args.repeat}; the CLI: wall time, best of {args.cli_runs}")
    print(f"{'':<36} {'time':>13} {'ratio':>8}")
    from_models = bench_render(args.repeat)
    bench_cli(args.cli_runs)
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    bench_component(args.repeat)
    mpi_1, mpi_1024 = from_models[MPI_CASES[0].name], from_models[MPI_CASES[-1].name]
    print(f"MPI 1,024 nodes / MPI 1 node: {mpi_1024 / mpi_1:.2f}x (target <= 1.5x)")
    print(f"geometric mean of render(models) times: {statistics.geometric_mean(from_models.values()) * 1e6:.1f} µs")


if __name__ == "__main__":
    main()
