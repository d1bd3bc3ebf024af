"""Every manifest we emit, and every TrainJob and runtime we accept, against the upstream CRD schemas.

The CRDs carry OpenAPI v3 with Kubernetes extensions; `to_json_schema` turns them into plain JSON
Schema that is as strict as the API server's structural schema: unknown fields are rejected wherever
the schema lists `properties` without `x-kubernetes-preserve-unknown-fields`.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from jsonschema import Draft202012Validator

from pulumi_kubeflow_trainer.blueprints import runtimes_dir
from pulumi_kubeflow_trainer.loading import load
from pulumi_kubeflow_trainer.plugins.snapshot import DATA_KEY
from tests.builders import TrainJobBuilder, container, make_runtime, make_trainjob, render_one, replicated_job
from tests.conftest import REFERENCE, upstream_runtime_files

INT32 = (-(2**31), 2**31 - 1)
INT64 = (-(2**63), 2**63 - 1)


def to_json_schema(node: Any) -> Any:
    """OpenAPI v3 (structural CRD schema) to JSON Schema."""
    if isinstance(node, list):
        return [to_json_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    schema: dict[str, Any] = {}
    for key, value in node.items():
        if key.startswith("x-kubernetes-") or key in ("description", "format", "nullable", "default"):
            continue
        schema[key] = to_json_schema(value)
    if node.get("x-kubernetes-int-or-string"):
        schema.pop("type", None)
        schema["anyOf"] = [{"type": "integer"}, {"type": "string"}]
    bounds = {"int32": INT32, "int64": INT64}.get(node.get("format", ""))
    if bounds and node.get("type") == "integer":
        schema.setdefault("minimum", bounds[0])
        schema.setdefault("maximum", bounds[1])
    if node.get("nullable") and isinstance(schema.get("type"), str):
        schema["type"] = [schema["type"], "null"]
    if "properties" in node and "additionalProperties" not in node and not node.get("x-kubernetes-preserve-unknown-fields"):
        schema["additionalProperties"] = False
    return schema


@cache
def validator(crd_file: str, kind: str, version: str) -> Draft202012Validator:
    """The validator of one kind/version in a CRD file (files may hold several CRDs)."""
    with open(REFERENCE / "crds" / crd_file) as stream:
        documents = [doc for doc in yaml.safe_load_all(stream) if doc]
    crd = next(doc for doc in documents if doc["spec"]["names"]["kind"] == kind)
    served = next(item for item in crd["spec"]["versions"] if item["name"] == version)
    schema = to_json_schema(served["schema"]["openAPIV3Schema"])
    schema["properties"]["apiVersion"] = {"const": f"{crd['spec']['group']}/{version}"}
    schema["properties"]["kind"] = {"const": kind}
    schema["required"] = sorted({*schema.get("required", []), "apiVersion", "kind", "metadata"})
    return Draft202012Validator(schema)


SCHEMAS = {
    ("jobset.x-k8s.io/v1alpha2", "JobSet"): ("jobset/jobset.x-k8s.io_jobsets.yaml", "JobSet", "v1alpha2"),
    ("scheduling.x-k8s.io/v1alpha1", "PodGroup"): ("scheduler-plugins/crd.yaml", "PodGroup", "v1alpha1"),
    ("scheduling.volcano.sh/v1beta1", "PodGroup"): ("volcano/scheduling.volcano.sh_podgroups.yaml", "PodGroup", "v1beta1"),
    ("trainer.kubeflow.org/v1alpha1", "TrainJob"): ("trainer/trainer.kubeflow.org_trainjobs.yaml", "TrainJob", "v1alpha1"),
    ("trainer.kubeflow.org/v1alpha1", "TrainingRuntime"): (
        "trainer/trainer.kubeflow.org_trainingruntimes.yaml", "TrainingRuntime", "v1alpha1",
    ),
    ("trainer.kubeflow.org/v1alpha1", "ClusterTrainingRuntime"): (
        "trainer/trainer.kubeflow.org_clustertrainingruntimes.yaml", "ClusterTrainingRuntime", "v1alpha1",
    ),
}


def schema_errors(manifest: dict[str, Any]) -> list[str]:
    check = validator(*SCHEMAS[(manifest["apiVersion"], manifest["kind"])])
    return [f"{'.'.join(map(str, error.absolute_path))}: {error.message}" for error in check.iter_errors(manifest)]


def _is_base64(text: str) -> bool:
    return base64.b64encode(base64.b64decode(text, validate=True)).decode() == text


def core_shape_errors(manifest: dict[str, Any]) -> list[str]:
    """Secrets and ConfigMaps by hand: name, string data, Secret data in base64, nothing else."""
    allowed = {"apiVersion", "kind", "metadata", "data"} | ({"type", "immutable"} if manifest["kind"] == "Secret" else set())
    errors = [f"unexpected field {key}" for key in manifest if key not in allowed]
    metadata = manifest.get("metadata") or {}
    if not metadata.get("name") or set(metadata) - {"name", "namespace", "ownerReferences"}:
        errors.append(f"bad metadata {metadata}")
    data = manifest.get("data") or {}
    if not data or not all(isinstance(key, str) and isinstance(value, str) for key, value in data.items()):
        errors.append("data must map strings to strings")
    if manifest["kind"] == "Secret" and not all(_is_base64(value) for value in data.values()):
        errors.append("Secret data must be base64")
    return errors


def manifest_errors(manifest: dict[str, Any]) -> list[str]:
    assert manifest["apiVersion"] == "v1" or (manifest["apiVersion"], manifest["kind"]) in SCHEMAS, manifest["kind"]
    return core_shape_errors(manifest) if manifest["apiVersion"] == "v1" else schema_errors(manifest)


BUNDLED = sorted(runtimes_dir().glob("*.yaml"))
UPSTREAM = upstream_runtime_files()


def _id(path: Path) -> str:
    return path.stem


@dataclass(frozen=True)
class Variant:
    name: str
    shape: Callable[[TrainJobBuilder], TrainJobBuilder]
    needs_initializers: bool = False


VARIANTS = [
    Variant("a minimal trainjob", lambda job: job),
    Variant("one node", lambda job: job.num_nodes(1)),
    Variant(
        "three nodes with resources and env",
        lambda job: job.num_nodes(3).env(EXTRA="1").resources(limits={"nvidia.com/gpu": 2}, requests={"cpu": "1.5", "memory": "4Gi"}),
    ),
    Variant(
        "initializers with uris, env and secrets",
        lambda job: job.dataset("hf://org/data", secret="hf-token", REVISION="main").model("s3://bucket/model", secret="aws"),
        needs_initializers=True,
    ),
    Variant(
        "a suspended trainjob with a kueue patch",
        lambda job: job.suspend().uid("0000-1111").runtime_patch(
            "kueue.x-k8s.io/manager",
            labels={"kueue.x-k8s.io/queue-name": "q"},
        ),
    ),
]


def _has_initializers(path: Path) -> bool:
    jobs = load(path)[0].spec.template.spec.replicated_jobs or []
    return {job.name for job in jobs} >= {"dataset-initializer", "model-initializer"}


def _trainjob(runtime: Any, variant: Variant) -> TrainJobBuilder:
    return variant.shape(make_trainjob("team", "schema").runtime_ref(runtime.name, kind=runtime.kind))


RENDER_CASES = [
    pytest.param(path, variant, id=f"{path.stem}: {variant.name}")
    for path in BUNDLED + UPSTREAM
    for variant in VARIANTS
    if _has_initializers(path) or not variant.needs_initializers
]


@pytest.mark.parametrize(("path", "variant"), RENDER_CASES)
def test_every_emitted_manifest_matches_its_schema(path: Path, variant: Variant) -> None:
    runtime = load(path)[0]
    manifests = render_one(_trainjob(runtime, variant), runtime, runtime_snapshot=True)
    assert {manifest["kind"] for manifest in manifests} >= {"JobSet", "ConfigMap"}
    for manifest in manifests:
        assert manifest_errors(manifest) == [], f"{manifest['kind']}/{manifest['metadata']['name']}"


def _gang_runtime(policy: str) -> Any:
    runtime = make_runtime("gang").torch().initializers().trainer(
        container(resources={"requests": {"cpu": "2", "memory": "4Gi"}, "limits": {"nvidia.com/gpu": 1}})
    )
    if policy == "coscheduling":
        runtime.coscheduling(scheduleTimeoutSeconds=30)
    else:
        runtime.volcano(networkTopology={"mode": "soft", "highestTierAllowed": 2}).template_metadata(
            annotations={"scheduling.volcano.sh/queue-name": "research"}
        )
    return runtime


@pytest.mark.parametrize("policy", ["coscheduling", "volcano"])
@pytest.mark.parametrize("num_nodes", [1, 3])
def test_pod_groups_match_their_schemas(policy: str, num_nodes: int) -> None:
    manifests = render_one(make_trainjob().runtime_ref("gang").num_nodes(num_nodes).uid("u-1"), _gang_runtime(policy))
    group = next(manifest for manifest in manifests if manifest["kind"] == "PodGroup")
    assert schema_errors(group) == []
    assert schema_errors(next(m for m in manifests if m["kind"] == "JobSet")) == []


def test_mpi_and_flux_children_have_the_core_shape() -> None:
    mpi_runtime = make_runtime("mpi").mpi(runLauncherAsNode=True).trainer(name="launcher").job(
        replicated_job("node", container())
    )
    flux_runtime = make_runtime("flux").flux(numProcPerNode=2).trainer()
    rendered = render_one(make_trainjob().runtime_ref("mpi").num_nodes(2).uid("u"), mpi_runtime) + render_one(
        make_trainjob().runtime_ref("flux").num_nodes(2).uid("u"), flux_runtime
    )
    names = {manifest["metadata"]["name"] for manifest in rendered if manifest["apiVersion"] == "v1"}
    assert names == {"job-mpi-ssh-auth", "job-mpi-hostfile", "job-flux-entrypoint", "job-flux-curve"}
    assert all(manifest_errors(manifest) == [] for manifest in rendered)


@pytest.mark.parametrize("path", BUNDLED + UPSTREAM, ids=_id)
def test_runtime_inputs_match_the_runtime_crd(path: Path) -> None:
    manifest = yaml.safe_load(path.read_text())
    assert schema_errors(manifest) == []


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda variant: variant.name)
def test_trainjob_inputs_match_the_trainjob_crd(variant: Variant) -> None:
    runtime = make_runtime("rt").torch().trainer().build()
    assert schema_errors(_trainjob(runtime, variant).obj()) == []


def test_the_converter_rejects_unknown_fields_and_wrong_types() -> None:
    manifests = render_one(make_trainjob().runtime_ref("rt"), make_runtime("rt").torch().trainer())
    jobset = next(manifest for manifest in manifests if manifest["kind"] == "JobSet")
    jobset["spec"]["replicatedJobs"][0]["unknownField"] = 1
    jobset["spec"]["replicatedJobs"][0]["replicas"] = "one"
    errors = schema_errors(jobset)
    assert any("unknownField" in error for error in errors)
    assert any("'one' is not of type 'integer'" in error for error in errors)


def test_the_converter_keeps_int_or_string_and_int32_bounds() -> None:
    manifests = render_one(make_trainjob().runtime_ref("rt"), make_runtime("rt").torch().trainer())
    jobset = next(manifest for manifest in manifests if manifest["kind"] == "JobSet")
    pod = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]
    pod["containers"][0]["resources"] = {"limits": {"cpu": 2, "memory": "1Gi"}}
    assert schema_errors(jobset) == []
    jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["parallelism"] = 2**31
    assert any("parallelism" in error for error in schema_errors(jobset))


def test_the_runtime_snapshot_holds_a_runtime_that_matches_the_crd() -> None:
    runtime = make_runtime("rt").mpi().initializers().trainer(name="launcher").coscheduling().build()
    manifests = render_one(make_trainjob().runtime_ref("rt"), runtime, runtime_snapshot=True)
    snapshot = next(manifest for manifest in manifests if manifest["metadata"]["name"] == "job-runtime-snapshot")
    assert schema_errors(yaml.safe_load(snapshot["data"][DATA_KEY])) == []
