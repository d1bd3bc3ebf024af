"""The community runtimes upstream ships (SEMANTICS §6, reference/runtimes/base/**) load and render."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from pulumi_kubeflow_trainer.api.runtime import ClusterTrainingRuntime
from pulumi_kubeflow_trainer.loading import load
from tests.builders import TrainJobBuilder, by_kind, canonical_quantities, env_of, job_counts, jobset_container, make_trainjob, render_one
from tests.conftest import upstream_runtime_files

UPSTREAM = upstream_runtime_files()
NAMES = {
    "torch-distributed",
    "deepspeed-distributed",
    "mlx-distributed",
    "jax-distributed",
    "xgboost-distributed",
    "torchtune-llama3.2-1b",
    "torchtune-llama3.2-3b",
    "torchtune-qwen2.5-1.5b",
    "torch-distributed-with-cache",
}


def runtime_of(path: Path) -> ClusterTrainingRuntime:
    (runtime,) = load(path)
    assert isinstance(runtime, ClusterTrainingRuntime)
    return runtime


def trainer_job(runtime: ClusterTrainingRuntime) -> str:
    """The replicated job with ancestor trainer (the launcher in the MPI runtimes)."""
    jobs = runtime.spec.template.spec.replicated_jobs or []
    return next(job.name for job in jobs if (job.template.metadata and job.template.metadata.labels or {}).get(
        "trainer.kubeflow.org/trainjob-ancestor-step") == "trainer")


def test_the_reference_holds_every_community_runtime(reference: Path) -> None:
    assert {runtime_of(path).name for path in UPSTREAM} == NAMES


@pytest.mark.parametrize("path", UPSTREAM, ids=lambda path: path.stem)
def test_upstream_runtime_round_trips_through_the_model(path: Path) -> None:
    assert runtime_of(path).to_manifest() == canonical_quantities(yaml.safe_load(path.read_text()))


@pytest.mark.parametrize("path", UPSTREAM, ids=lambda path: path.stem)
def test_upstream_runtime_renders_with_a_minimal_trainjob(path: Path) -> None:
    runtime = runtime_of(path)
    manifests = render_one(make_trainjob("team", "job").runtime_ref(runtime.name), runtime, runtime_snapshot=True)
    jobset = by_kind(manifests, "JobSet")
    template_jobs = [job.name for job in runtime.spec.template.spec.replicated_jobs]
    assert [job["name"] for job in jobset["spec"]["replicatedJobs"]] == template_jobs
    assert all(count == (1, 1) for count in job_counts(manifests).values())


def sized(runtime: ClusterTrainingRuntime) -> TrainJobBuilder:
    return make_trainjob("team", "job").runtime_ref(runtime.name).num_nodes(3).resources(
        requests={"cpu": "4", "memory": "16Gi"}, limits={"nvidia.com/gpu": 2}
    ).env(EXAMPLE="1")


@pytest.mark.parametrize("path", UPSTREAM, ids=lambda path: path.stem)
def test_upstream_runtime_renders_with_nodes_and_resources(path: Path) -> None:
    runtime = runtime_of(path)
    if runtime.name.startswith("torchtune-"):
        trainjob = sized(runtime).num_nodes(1)  # fine without `tune run`; several nodes are fine too
    else:
        trainjob = sized(runtime)
    manifests = render_one(trainjob, runtime)
    trainer = jobset_container(manifests, trainer_job(runtime))
    assert trainer["resources"]["limits"]["nvidia.com/gpu"] == "2"
    assert env_of(trainer)["EXAMPLE"] == "1"


@pytest.mark.parametrize(
    ("name", "want"),
    [
        ("torch-distributed", {"node": (3, 3)}),
        ("jax-distributed", {"node": (3, 3)}),
        ("xgboost-distributed", {"node": (3, 3)}),
        ("deepspeed-distributed", {"node": (2, 2), "launcher": (1, 1)}),
        ("mlx-distributed", {"node": (2, 2), "launcher": (1, 1)}),
        ("torch-distributed-with-cache", {"dataset-initializer": (1, 1), "node": (3, 3)}),
    ],
)
def test_three_nodes_size_the_right_jobs(name: str, want: dict[str, Any]) -> None:
    (path,) = [path for path in UPSTREAM if runtime_of(path).name == name]
    runtime = runtime_of(path)
    assert job_counts(render_one(sized(runtime), runtime)) == want


@pytest.mark.parametrize("name", ["torchtune-llama3.2-1b", "torchtune-llama3.2-3b", "torchtune-qwen2.5-1.5b"])
def test_upstream_torchtune_runtimes_take_initializer_uris_and_tune_run(name: str) -> None:
    (path,) = [path for path in UPSTREAM if runtime_of(path).name == name]
    runtime = runtime_of(path)
    trainjob = make_trainjob("team", "job").runtime_ref(name).command("tune", "run").dataset("hf://org/data").model("hf://org/model")
    manifests = render_one(trainjob, runtime)
    assert env_of(jobset_container(manifests, "dataset-initializer", "dataset-initializer"))["STORAGE_URI"] == "hf://org/data"
    assert env_of(jobset_container(manifests, "model-initializer", "model-initializer"))["STORAGE_URI"] == "hf://org/model"
    command = jobset_container(manifests, "node")["command"]
    assert command[:3] == ["tune", "run", "--rdzv_endpoint=job-node-0-0.job:29500"]
    assert command[3:5] == ["full_finetune_distributed", "--config"]
    assert command[-1] == "checkpointer.checkpoint_dir=/workspace/model"
