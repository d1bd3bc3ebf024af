"""The component's side of bench/render: constructions timed under Pulumi's mocks."""

from __future__ import annotations

import itertools
import time
import timeit
from collections.abc import Callable
from typing import Any

_names = itertools.count()


class _EchoMocks:
    """Mocks that answer every resource with its own inputs, as a preview of a new stack does."""

    def new_resource(self, args: Any) -> tuple[str, dict[str, Any]]:
        return f"{args.name}-id", dict(args.inputs)

    def call(self, args: Any) -> dict[str, Any]:
        return {}


def construct_seconds(
    pulumi: Any, runtime_name: str, trainjob: dict[str, Any], repeat: int, clock: Callable[[], float] = time.process_time
) -> tuple[float, float]:
    """Seconds per `TrainJob(...)` and per direct registration of the JobSet it renders, by `clock`."""
    import pulumi_kubernetes as k8s

    import pulumi_kubeflow_trainer as kt
    from pulumi_kubeflow_trainer.blueprints import bundled_runtime

    pulumi.runtime.set_mocks(_EchoMocks(), project="bench", stack="bench", preview=True)
    runtime = bundled_runtime(runtime_name)
    jobset = next(m for m in kt.render([runtime, trainjob], runtime_snapshot=False) if m["kind"] == "JobSet")
    results: dict[str, float] = {}

    @pulumi.runtime.test
    def measure() -> None:
        def component() -> None:
            kt.TrainJob(f"tj{next(_names)}", manifest=trainjob, runtime=runtime)

        def direct() -> None:
            k8s.apiextensions.CustomResource(
                f"js{next(_names)}", api_version=jobset["apiVersion"], kind="JobSet",
                metadata=jobset["metadata"], spec=jobset["spec"],
            )

        for name, function in (("component", component), ("direct", direct)):
            timer = timeit.Timer(function, timer=clock)
            results[name] = min(timer.repeat(repeat=repeat, number=200)) / 200

    measure()
    return results["component"], results["direct"]
