"""The bundled runtimes (runtimes/*.yaml): naming, model round trip, rendering, golden manifests."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

import pulumi_kubeflow_trainer as kt
from pulumi_kubeflow_trainer.blueprints import (
    bundled_runtime,
    bundled_runtime_names,
    bundled_runtimes,
    list_runtimes,
    load_runtime_file,
    runtimes_dir,
)
from pulumi_kubeflow_trainer.framework.errors import BlueprintError
from pulumi_kubeflow_trainer.ssh import seeded_key_generator
from pulumi_kubeflow_trainer.yamlio import dump_all
from tests.builders import TrainJobBuilder, by_kind, canonical_quantities, make_runtime, make_trainjob, render_one

BUNDLED = sorted(runtimes_dir().glob("*.yaml"))
# `tune run` is rewritten only for the models upstream knows (SEMANTICS §3.4); the others use their own command.
TUNE_RUN = {"torchtune-llama3.2-1b", "torchtune-llama3.2-3b", "torchtune-qwen2.5-1.5b"}


def golden_trainjob(name: str) -> TrainJobBuilder:
    """The TrainJob each golden file shows: what a user would typically submit against that runtime."""
    trainjob = make_trainjob("team", "example").runtime_ref(name).uid("00000000-0000-4000-8000-000000000000")
    if name in TUNE_RUN:
        return trainjob.command("tune", "run").dataset("hf://tatsu-lab/alpaca").model("hf://org/model", secret="hf-token")
    if name.startswith("torchtune-"):
        return trainjob.dataset("hf://tatsu-lab/alpaca").model("hf://org/model", secret="hf-token")
    return trainjob.num_nodes(2).env(EXAMPLE="1").resources(limits={"nvidia.com/gpu": 1})


def test_the_bundled_runtimes_are_all_found() -> None:
    assert [runtime.name for runtime in bundled_runtimes()] == [path.stem for path in BUNDLED]
    assert len(BUNDLED) >= 10


@pytest.mark.parametrize("path", BUNDLED, ids=lambda path: path.stem)
def test_file_name_is_the_runtime_name(path: Path) -> None:
    document = yaml.safe_load(path.read_text())
    assert document["metadata"]["name"] == path.stem
    assert load_runtime_file(path).name == path.stem


@pytest.mark.parametrize("path", BUNDLED, ids=lambda path: path.stem)
def test_model_round_trip_gives_the_yaml_back(path: Path) -> None:
    runtime = load_runtime_file(path)
    assert runtime.to_manifest() == canonical_quantities(yaml.safe_load(path.read_text()))
    assert type(runtime).model_validate(yaml.safe_load(path.read_text())) == runtime


@pytest.mark.parametrize("path", BUNDLED, ids=lambda path: path.stem)
def test_renders_with_a_minimal_trainjob(path: Path) -> None:
    runtime = load_runtime_file(path)
    trainjob = make_trainjob("team", "job").runtime_ref(runtime.name)
    if runtime.spec.ml_policy and runtime.spec.ml_policy.flux:
        trainjob.num_nodes(1)
    manifests = render_one(trainjob, runtime, runtime_snapshot=True)
    assert by_kind(manifests, "JobSet")["metadata"]["name"] == "job"


@pytest.mark.parametrize("path", BUNDLED, ids=lambda path: path.stem)
def test_golden_manifests(path: Path, golden) -> None:
    runtime = load_runtime_file(path)
    manifests = render_one(golden_trainjob(runtime.name), runtime, key_generator=seeded_key_generator("golden"), runtime_snapshot=True)
    golden.check(f"{runtime.name}.yaml", dump_all(manifests))


def test_a_file_whose_name_differs_from_the_runtime_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "wrong-name.yaml"
    path.write_text(yaml.safe_dump(make_runtime("right-name").torch().trainer().obj()))
    with pytest.raises(BlueprintError, match=f"{path}: metadata.name 'right-name' must equal the file name 'wrong-name'"):
        load_runtime_file(path)


def test_a_file_with_two_documents_is_rejected(tmp_path: Path) -> None:
    path = tmp_path / "rt.yaml"
    runtime = make_runtime("rt").torch().trainer().obj()
    path.write_text(yaml.safe_dump_all([runtime, runtime]))
    with pytest.raises(BlueprintError, match="must hold exactly one TrainingRuntime or ClusterTrainingRuntime"):
        load_runtime_file(path)


def test_an_invalid_file_names_itself_and_the_field(tmp_path: Path) -> None:
    path = tmp_path / "rt.yaml"
    path.write_text(yaml.safe_dump(make_runtime("rt").mpi(numProcPerNode=2**31).trainer().obj()))
    with pytest.raises(BlueprintError) as raised:
        load_runtime_file(path)
    assert str(raised.value).startswith(f"{path}: ")
    assert "spec.mlPolicy.mpi.numProcPerNode: Invalid value: 2147483648: input should be less than or equal to 2147483647" in str(raised.value)


def test_bundled_runtime_by_name() -> None:
    assert bundled_runtime("torch-distributed").name == "torch-distributed"
    with pytest.raises(BlueprintError, match="no bundled runtime named 'nope'; the bundled runtimes are: deepspeed-distributed, "):
        bundled_runtime("nope")
    with pytest.raises(BlueprintError, match="no bundled runtime named 'pytorch-distributed'; did you mean 'torch-distributed'?"):
        bundled_runtime("pytorch-distributed")


def test_list_runtimes_gives_each_bundled_runtime_with_its_framework_and_description() -> None:
    listed = {runtime.name: runtime for runtime in list_runtimes()}
    assert list(listed) == [runtime.name for runtime in bundled_runtimes()] == bundled_runtime_names()
    assert (listed["torch-distributed"].framework, listed["torch-distributed"].description) == ("torch", "PyTorch DDP/FSDP with torchrun")
    assert (listed["deepspeed-distributed"].framework, listed["deepspeed-distributed"].description) == ("deepspeed", "deepspeed over OpenMPI")
    assert all(runtime.framework and runtime.description for runtime in listed.values())
    assert kt.list_runtimes() == list_runtimes(), "exported at the top level"
