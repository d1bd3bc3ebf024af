"""load(): YAML text, files, directories, dicts and models to API models; bad input is a TrainerError."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from pulumi_kubeflow_trainer.api.core import KubeObject
from pulumi_kubeflow_trainer.api.jobset import JobSet
from pulumi_kubeflow_trainer.api.trainjob import TrainJob
from pulumi_kubeflow_trainer.framework.errors import ManifestError, TrainJobInvalidError
from pulumi_kubeflow_trainer.loading import MAX_DEPTH, load

from tests.builders import make_runtime, make_trainjob

SECRET = "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n"


@dataclass(frozen=True)
class Bad:
    name: str
    source: object
    says: str


BAD = [
    Bad("a single long line is YAML text, not a file name", "x" * 5000, "expected a Kubernetes object (a mapping), got str"),
    Bad("a name that is no file is YAML text", "no-such-file.yaml", "document 1: expected a Kubernetes object (a mapping), got str"),
    Bad("invalid YAML names the line and column", "a: [\n", "YAML:2:1: invalid YAML"),
    Bad("a node containing itself through an alias has no JSON form", SECRET + "data: &d {x: *d}\n", "YAML:4:14: data.x: the alias *d refers to an enclosing node"),
    Bad("a list containing itself has no JSON form", SECRET + "data: &l [1, *l]\n", "data[1]: the alias *l refers to an enclosing node"),
    Bad(f"nesting deeper than {MAX_DEPTH} levels is rejected", SECRET + "data: " + "[" * 300 + "]" * 300 + "\n", f"nests deeper than {MAX_DEPTH} levels"),
    Bad("a number is not a source", 42, "cannot load int"),
    Bad("a document without apiVersion is not an object", {"kind": "TrainJob"}, "apiVersion and kind are required"),
]


@pytest.mark.parametrize("case", BAD, ids=lambda case: case.name)
def test_bad_sources_are_manifest_errors(case: Bad) -> None:
    with pytest.raises(ManifestError, match=re.escape(case.says)):
        load(case.source)


def test_shared_aliases_that_do_not_nest_are_fine() -> None:
    (secret,) = load(SECRET + "data: {a: &x {k: v}, b: *x}\n")
    assert secret.to_manifest()["data"] == {"a": {"k": "v"}, "b": {"k": "v"}}


def test_empty_documents_are_skipped() -> None:
    assert len(load("---\n---\n" + SECRET + "---\n")) == 1


def test_kinds_pick_their_models_and_others_pass_through() -> None:
    jobset = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "j"}}
    other_jobset = {"apiVersion": "example.com/v1", "kind": "JobSet", "metadata": {"name": "j"}}
    models = load([make_trainjob().runtime_ref("rt").obj(), jobset, other_jobset, SECRET])
    assert [type(model) for model in models] == [TrainJob, JobSet, KubeObject, KubeObject]


def test_errors_of_every_document_are_reported_with_their_source(tmp_path: Path) -> None:
    path = tmp_path / "two.yaml"
    path.write_text(yaml.safe_dump_all([make_trainjob("team", "a").runtime_ref("rt").num_nodes(-1).obj(), make_runtime("r").mpi(numProcPerNode=0).obj()]))
    with pytest.raises(TrainJobInvalidError) as raised:
        load(path)
    assert [error.describe().split(": ")[0] for error in raised.value.errors] == [f"{path}#1 (TrainJob/a)", f"{path}#2 (ClusterTrainingRuntime/r)"]


def test_directories_are_read_recursively_in_name_order(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "x.yml").write_text(yaml.safe_dump(make_trainjob("team", "second").runtime_ref("rt").obj()))
    (tmp_path / "a.yaml").write_text(yaml.safe_dump(make_trainjob("team", "first").runtime_ref("rt").obj()))
    (tmp_path / "notes.txt").write_text("not yaml: [")
    assert [model.name for model in load(tmp_path)] == ["first", "second"]


def test_models_pass_through_unchanged() -> None:
    model = make_trainjob().runtime_ref("rt").build()
    assert load([model])[0] is model
