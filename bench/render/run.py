"""Render speed: microseconds per TrainJob, against a floor measured in the same run.

The floor is what any renderer must at least do: deep-copy the runtime's JobSet template
(`copy.deepcopy`). Each case reports best-of-N timings, so background load inflates nothing but noise.

    .venv/bin/python bench/render/run.py [--repeat 7]
"""

from __future__ import annotations

import argparse
import copy
import statistics
import sys
import timeit
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "components"))

from pulumi_kubeflow_trainer.api.trainjob import TrainJob  # noqa: E402
from pulumi_kubeflow_trainer.blueprints import bundled_runtime  # noqa: E402
from pulumi_kubeflow_trainer.framework.context import RenderContext  # noqa: E402
from pulumi_kubeflow_trainer.framework.render import Renderer  # noqa: E402


@dataclass(frozen=True)
class Case:
    name: str
    runtime: str
    trainer: dict
    budget: str


CASES = [
    Case("torch, 4 nodes", "torch-distributed", {"numNodes": 4, "resourcesPerNode": {"limits": {"nvidia.com/gpu": 8}}}, "<= 4x floor"),
    Case("MPI, 1 node", "deepspeed-distributed", {"numNodes": 1}, ""),
    Case("MPI, 64 nodes", "deepspeed-distributed", {"numNodes": 64}, ""),
    Case("MPI, 1024 nodes", "deepspeed-distributed", {"numNodes": 1024}, "< 50 ms"),
    Case("torchtune LoRA", "torchtune-llama3.2-1b", {"command": ["tune", "run"], "args": ["model.lora_attn_modules=[q_proj]"]}, ""),
]


def trainjob(runtime: str, trainer: dict) -> TrainJob:
    return TrainJob.model_validate(
        {"metadata": {"name": "bench", "namespace": "default"}, "spec": {"runtimeRef": {"name": runtime}, "trainer": trainer}}
    )


def best_time(function, repeat: int) -> float:
    """Seconds per call: the best of `repeat` rounds, each long enough to be measured (~0.2 s)."""
    timer = timeit.Timer(function)
    number, _ = timer.autorange()
    return min(timer.repeat(repeat=repeat, number=number)) / number


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"{'case':<18} {'render µs':>11} {'floor µs':>10} {'ratio':>7}  budget")
    ratios = []
    for case in CASES:
        runtime = bundled_runtime(case.runtime)
        renderer = Renderer([runtime], context=RenderContext())
        job = trainjob(case.runtime, case.trainer)
        renderer.render(job)  # warm: compiles the runtime and caches its snapshot, as a long-lived program would
        template = renderer.resolve(job).jobset_spec
        floor = best_time(lambda: copy.deepcopy(template), args.repeat)
        rendered = best_time(lambda: renderer.render(job), args.repeat)
        ratios.append(rendered / floor)
        print(f"{case.name:<18} {rendered * 1e6:>11.1f} {floor * 1e6:>10.1f} {rendered / floor:>6.1f}x  {case.budget}")
    print(f"geometric mean ratio: {statistics.geometric_mean(ratios):.1f}x")


if __name__ == "__main__":
    main()
