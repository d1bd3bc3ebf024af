"""Program cost: N TrainJob components against a program that registers the same JobSets directly.

Both programs run through the real engine (tools/bootstrap's toolchain), offline: a file backend in a
temporary directory and the kubernetes provider in render mode (`renderYamlToDirectory`), as the
engine tests do. The TrainJob program is written as users write it (README): one bundled
`ClusterTrainingRuntime` and N `TrainJob(runtime=torch, trainer=TrainerArgs(...))`. The direct program
registers N `kubernetes.apiextensions.CustomResource` JobSets, rendered beforehand (so it pays
nothing for rendering). For each N, each operation is timed on a fresh stack: `preview` (everything
new), `up`, then a `preview` with no change; the ratio is TrainJob time / direct time, best of
`--repeat` rounds, the programs measured in the same run, alternately, each in a fresh process.

    .venv/bin/python bench/pulumi/run.py [--sizes 1 20 100] [--repeat N] [--library DIR]

`--library DIR` benchmarks another checkout's `components/` (e.g. a `git worktree` of an older commit).
A third program, the floor, puts each direct JobSet under an empty component of the TrainJob's type:
what one component per JobSet costs by itself.

Target: <= 1.3x for all three operations at N = 100. Results (an idle 2-core machine, session 7,
best of 3; wall-time ratio to the direct program, floor in the last column; four more runs at
N = 100, the decomposition of the difference, and where the time goes: bench/pulumi/README.md):

    | N   | preview | up    | no-change preview | floor (preview / up / no-change) |
    | 1   | 1.03x   | 1.03x | 1.03x             | 1.01x / 1.01x / 1.01x            |
    | 20  | 1.10x   | 1.13x | 1.19x             | 1.12x / 1.06x / 1.11x            |
    | 100 | 1.44x   | 1.39x | 1.32x             | 1.36x / 1.24x / 1.29x            |
    (before: 3.03x / 3.06x / 2.57x at N = 100)
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
OPERATIONS = ("preview", "up", "no-change preview")
IMAGE = "registry.local/train:1"
PASSPHRASE = "bench"


def import_library(library: Path | None) -> None:
    """The library under test first on sys.path: this checkout's, or another's; also for the processes the
    engine starts (the dynamic-provider plugin imports the library's providers by reference)."""
    components = str((library or REPO) / "components")
    sys.path.insert(0, str(REPO))  # tests.toolchain
    sys.path.insert(0, components)
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [components, os.environ.get("PYTHONPATH")]))


@dataclass(frozen=True)
class Variant:
    name: str
    program: Callable[[int, str], Callable[[], None]]


def trainjob_program(count: int, render_dir: str) -> Callable[[], None]:
    def program() -> None:
        import pulumi
        import pulumi_kubernetes as k8s

        from pulumi_kubeflow_trainer import ClusterTrainingRuntime, TrainerArgs, TrainJob

        opts = pulumi.ResourceOptions(provider=k8s.Provider("render", render_yaml_to_directory=render_dir))
        torch = ClusterTrainingRuntime.bundled("torch-distributed", opts=opts)
        for index in range(count):
            trainer = TrainerArgs(image=IMAGE, num_nodes=2, command=["torchrun", "train.py"], resources_per_node={"limits": {"cpu": "2"}})
            TrainJob(f"job-{index}", runtime=torch, namespace="team", trainer=trainer, opts=opts)

    return program


def rendered_jobsets(count: int) -> list[dict[str, Any]]:
    """The JobSets the TrainJob program registers, as plain manifests."""
    from pulumi_kubeflow_trainer import render
    from pulumi_kubeflow_trainer.blueprints import bundled_runtime

    trainer = {"image": IMAGE, "numNodes": 2, "command": ["torchrun", "train.py"], "resourcesPerNode": {"limits": {"cpu": "2"}}}
    trainjobs = [
        {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob",
         "metadata": {"name": f"job-{index}", "namespace": "team"},
         "spec": {"runtimeRef": {"name": "torch-distributed"}, "trainer": trainer}}
        for index in range(count)
    ]
    manifests = render([bundled_runtime("torch-distributed"), *trainjobs], runtime_snapshot=False)
    return [manifest for manifest in manifests if manifest["kind"] == "JobSet"]


def direct_program(count: int, render_dir: str) -> Callable[[], None]:
    jobsets = rendered_jobsets(count)

    def program() -> None:
        import pulumi
        import pulumi_kubernetes as k8s

        opts = pulumi.ResourceOptions(provider=k8s.Provider("render", render_yaml_to_directory=render_dir))
        for jobset in jobsets:
            k8s.apiextensions.CustomResource(
                f"{jobset['metadata']['name']}-jobset", api_version=jobset["apiVersion"], kind=jobset["kind"],
                metadata=jobset["metadata"], spec=jobset["spec"], opts=opts,
            )

    return program


def component_floor_program(count: int, render_dir: str) -> Callable[[], None]:
    """The direct program with each JobSet under an empty component of the TrainJob's type: what one
    component per JobSet costs by itself, the floor of any component library."""
    jobsets = rendered_jobsets(count)

    def program() -> None:
        import pulumi
        import pulumi_kubernetes as k8s

        opts = pulumi.ResourceOptions(provider=k8s.Provider("render", render_yaml_to_directory=render_dir))
        for jobset in jobsets:
            name = jobset["metadata"]["name"]
            parent = pulumi.ComponentResource("kubeflow:trainer:TrainJob", name, None, opts)
            k8s.apiextensions.CustomResource(
                f"{name}-jobset", api_version=jobset["apiVersion"], kind=jobset["kind"],
                metadata=jobset["metadata"], spec=jobset["spec"], opts=pulumi.ResourceOptions(parent=parent),
            )

    return program


VARIANTS = [Variant("direct", direct_program), Variant("trainjob", trainjob_program), Variant("floor", component_floor_program)]
# `--before DIR`: the TrainJob program on another checkout's components/, in the same rounds.
BEFORE = Variant("before", trainjob_program)


def new_stack(root: Path, bin_dir: Path, program: Callable[[], None]):  # -> auto.Stack
    from tests.toolchain import inline_stack, isolated_engine_env

    env = isolated_engine_env(bin_dir, root, PASSPHRASE)
    return inline_stack("bench", "bench", program, env, bin_dir)


@dataclass(frozen=True)
class Timing:
    wall: float  # seconds, what the user waits
    cpu: float  # CPU seconds of this process (the inline program) and the engine's processes
    state: int = 0  # bytes of the stack's state (JSON) after the operation: the engine rewrites it on every step


def cpu_seconds() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def timed(operation: Callable[[], Any]) -> Timing:
    """Wall and CPU time. The CLI is a child of this process and waits for its plugins, so their CPU
    time is counted once the operation returns; CPU time barely moves when other work shares the cores."""
    wall, cpu = time.perf_counter(), cpu_seconds()
    operation()
    return Timing(time.perf_counter() - wall, cpu_seconds() - cpu)


def measure(variant: Variant, count: int, bin_dir: Path) -> dict[str, Timing]:
    """Each operation on a fresh stack."""
    with tempfile.TemporaryDirectory(prefix=f"bench-{variant.name}-{count}-") as tmp:
        root = Path(tmp)
        stack = new_stack(root, bin_dir, variant.program(count, str(root / "out")))
        quiet = {"on_output": lambda _line: None, "color": "never"}
        timings = {
            "preview": timed(lambda: stack.preview(**quiet)),
            "up": timed(lambda: stack.up(**quiet)),
            "no-change preview": timed(lambda: stack.preview(**quiet)),
        }
        changes = stack.preview(**quiet).change_summary
        assert set(changes) <= {"same"}, f"{variant.name} N={count}: the last preview must change nothing: {changes}"
        state = len(json.dumps(stack.export_stack().deployment))
        return {op: Timing(timing.wall, timing.cpu, state if op != "preview" else 0) for op, timing in timings.items()}


def best(rounds: list[dict[str, Timing]]) -> dict[str, Timing]:
    """Per operation, the least wall time and the least CPU time over the rounds."""
    return {
        op: Timing(min(r[op].wall for r in rounds), min(r[op].cpu for r in rounds), rounds[0][op].state) for op in OPERATIONS
    }


def ratio(results: dict[str, dict[str, Timing]], variant: str, op: str, *, time: bool = True) -> str:
    direct, measured = results["direct"][op], results[variant][op]
    if not time:
        return f"{measured.wall / direct.wall:.2f}x (CPU {measured.cpu / direct.cpu:.2f}x)"
    return f"{measured.wall:.2f} s = **{measured.wall / direct.wall:.2f}x** (CPU {measured.cpu / direct.cpu:.2f}x)"


def columns(variants: list[str]) -> list[str]:
    """Per operation: the direct program's time, then each other program's ratio to it."""
    names = {"trainjob": "TrainJob", "floor": "floor", "before": "TrainJob before"}
    return [f"{op}: direct" if name == "direct" else names[name] for op in OPERATIONS for name in variants]


def report(count: int, results: dict[str, dict[str, Timing]], variants: list[str]) -> str:
    """One row: per operation, the direct program's time, the TrainJob program's and its ratio, the ratio
    of the one-empty-component-per-JobSet floor (and of the TrainJob program before, with --before)."""
    cells = [
        f"{results['direct'][op].wall:.2f} s" if name == "direct" else ratio(results, name, op, time=name == "trainjob")
        for op in OPERATIONS
        for name in variants
    ]
    return f"| {count} | " + " | ".join(cells) + " |"


def state_sizes(count: int, results: dict[str, dict[str, Timing]], variants: list[str]) -> str:
    sizes = ", ".join(f"{name} {results[name]['up'].state / 1000:.0f} kB" for name in variants)
    return f"N = {count}, state after up: {sizes}"


def measure_in_subprocess(variant: str, count: int, library: Path | None) -> dict[str, Timing]:
    """One measurement in a fresh interpreter: no heap, caches or SDK state left by earlier programs
    (the inline program runs in the measuring process, so its garbage would slow the next one)."""
    argv = [sys.executable, __file__, "--measure", variant, str(count)] + (["--library", str(library)] if library else [])
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"{variant} N={count} failed:\n{done.stderr[-4000:]}")
    return {op: Timing(*values) for op, values in json.loads(done.stdout.splitlines()[-1]).items()}


def measure_here(variant_name: str, count: int) -> None:
    from tests.toolchain import find_engine_bin

    bin_dir = find_engine_bin()
    if bin_dir is None:
        sys.exit("no Pulumi toolchain: run tools/bootstrap (or set PULUMI_KFT_BIN)")
    variant = next(variant for variant in [*VARIANTS, BEFORE] if variant.name == variant_name)
    # Every variant starts with the same modules loaded (the direct one renders its JobSets with the
    # library): the timings are the programs', not one-off imports (~0.5 s for this library).
    import pulumi_kubernetes  # noqa: F401

    import pulumi_kubeflow_trainer.resources  # noqa: F401

    timings = measure(variant, count, bin_dir)
    print(json.dumps({op: [timing.wall, timing.cpu, timing.state] for op, timing in timings.items()}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 20, 100])
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--library", type=Path, default=None, help="a checkout whose components/ to benchmark")
    parser.add_argument("--before", type=Path, default=None, help="also the TrainJob program on this checkout's components/, in the same rounds")
    parser.add_argument("--measure", nargs=2, metavar=("VARIANT", "N"), help=argparse.SUPPRESS)  # one child run
    args = parser.parse_args()
    import_library(args.library)
    os.environ.pop("KUBECONFIG", None)  # inline programs run here; render mode refuses a kubeconfig
    if args.measure:
        measure_here(args.measure[0], int(args.measure[1]))
        return
    import pulumi_kubeflow_trainer

    print(f"library: {Path(pulumi_kubeflow_trainer.__file__).parent}" + (f", before: {args.before}" if args.before else ""), flush=True)
    variants = [*VARIANTS, BEFORE] if args.before else VARIANTS
    names = [variant.name for variant in variants]
    header = columns(names)
    print(f"| N | {' | '.join(header)} |\n|" + " --- |" * (len(header) + 1), flush=True)
    sizes = []
    for count in args.sizes:
        rounds: dict[str, list[dict[str, Timing]]] = {name: [] for name in names}
        for _ in range(args.repeat):
            for variant in variants:
                library = args.before if variant is BEFORE else args.library
                rounds[variant.name].append(measure_in_subprocess(variant.name, count, library))
        results = {name: best(values) for name, values in rounds.items()}
        print(report(count, results, names), flush=True)
        sizes.append(state_sizes(count, results, names))
    print("\n".join(sizes))


if __name__ == "__main__":
    main()
