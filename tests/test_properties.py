"""Properties of render over random TrainJobs against the bundled runtimes: it fails only with
TrainerError (never a pydantic ValidationError or a crash), and it is deterministic."""

from __future__ import annotations

import warnings
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from pulumi_kubeflow_trainer import TrainerWarning, render
from pulumi_kubeflow_trainer.blueprints import bundled_runtimes
from pulumi_kubeflow_trainer.framework.errors import TrainerError
from pulumi_kubeflow_trainer.loading import load
from pulumi_kubeflow_trainer.ssh import seeded_key_generator
from pulumi_kubeflow_trainer.yamlio import dump_all

RUNTIMES = {runtime.name: runtime for runtime in bundled_runtimes()}
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)

def mostly(valid: st.SearchStrategy[Any], invalid: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """Mostly valid values with some invalid ones, so both the rules and the renders get exercised."""
    return st.integers(min_value=0, max_value=7).flatmap(lambda pick: invalid if pick == 7 else valid)


valid_names = st.from_regex(r"[a-z]([a-z0-9-]{0,20}[a-z0-9])?", fullmatch=True)
names = mostly(valid_names, st.sampled_from(["Job", "1a", "a" * 64, "x-", ""]))
env_names = st.sampled_from(["A", "B", "C", "D", "FLUX_VIEW_IMAGE", "JAX_NUM_PROCESSES", "PET_NNODES", "DMLC_TASK_ID", "OMPI_MCA_plm_rsh_args"])
env_vars = st.lists(st.fixed_dictionaries({"name": env_names, "value": st.text(max_size=8)}), max_size=4, unique_by=lambda var: var["name"])
quantities = mostly(st.sampled_from(["1", "500m", "2.5", "4Gi", "0", 2, 0.5, "3", "1Gi"]), st.sampled_from(["abc", "-1", True]))
resource_lists = st.dictionaries(st.sampled_from(["cpu", "memory", "nvidia.com/gpu"]), quantities, max_size=3)
small = st.integers(min_value=1, max_value=4)
counts = mostly(st.one_of(st.none(), small), st.sampled_from([0, -1, "3", 2.0]))
uris = mostly(st.sampled_from(["hf://org/repo", "s3://bucket/key", ""]), st.sampled_from(["no-scheme", "hf://"]))
job_names = st.sampled_from(["node", "node", "launcher", "dataset-initializer", "model-initializer", "ghost"])
container_names = st.sampled_from(["node", "node", "sidecar", "dataset-initializer", "ghost"])
managers = mostly(st.sampled_from(["kueue.x-k8s.io/manager", "acme.io/foo", "trainer.kubeflow.org/sdk"]), st.sampled_from(["kueue", "Bad.io/x"]))


def _drop_none(mapping: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in mapping.items() if value is not None}


container_patches = st.builds(
    lambda name, env, mounts: _drop_none({"name": name, "env": env or None, "volumeMounts": mounts or None}),
    container_names,
    st.one_of(st.just([]), st.just([]), env_vars),
    st.lists(
        st.fixed_dictionaries({"name": st.sampled_from(["v", "w"]), "mountPath": st.sampled_from(["/a", "/b"])}),
        max_size=2,
        unique_by=lambda mount: mount["name"],
    ),
)
pod_patches = st.builds(
    lambda containers, node_selector, tolerations: _drop_none(
        {"containers": containers or None, "nodeSelector": node_selector or None, "tolerations": tolerations or None}
    ),
    st.lists(container_patches, max_size=2, unique_by=lambda container: container["name"]),
    st.dictionaries(st.sampled_from(["zone", "pool"]), st.sampled_from(["a", "b"]), max_size=2),
    st.lists(st.fixed_dictionaries({"key": st.sampled_from(["gpu", "spot"]), "operator": st.just("Exists")}), max_size=2),
)
job_patches = st.builds(lambda name, pod: {"name": name, "template": {"spec": {"template": {"spec": pod}}}}, job_names, pod_patches)
runtime_patches = st.lists(
    st.builds(
        lambda manager, jobs, labels: {
            "manager": manager,
            "trainingRuntimeSpec": {"template": _drop_none({"metadata": {"labels": labels} if labels else None, "spec": {"replicatedJobs": jobs}})},
        },
        managers,
        st.lists(job_patches, max_size=2, unique_by=lambda job: job["name"]),
        st.dictionaries(st.sampled_from(["kueue.x-k8s.io/queue-name", "team"]), st.sampled_from(["q", ""]), max_size=1),
    ),
    max_size=2,
    unique_by=lambda patch: patch["manager"],
)
initializers = st.builds(
    lambda dataset, model: _drop_none({"dataset": dataset, "model": model}),
    st.one_of(st.none(), st.builds(lambda uri, env: _drop_none({"storageUri": uri, "env": env or None}), uris, env_vars)),
    st.one_of(st.none(), st.builds(lambda uri, secret: _drop_none({"storageUri": uri, "secretRef": secret}), uris, st.sampled_from([None, {"name": "s"}]))),
)
trainers = st.builds(
    lambda num_nodes, num_proc, env, limits, requests, command, args: _drop_none(
        {
            "numNodes": num_nodes,
            "numProcPerNode": num_proc,
            "env": env or None,
            "resourcesPerNode": _drop_none({"limits": limits or None, "requests": requests or None}),
            "command": command,
            "args": args or None,
        }
    ),
    counts,
    counts,
    env_vars,
    resource_lists,
    resource_lists,
    st.sampled_from([None, ["tune", "run"], ["python", "train.py"]]),
    st.lists(st.sampled_from(["epochs=1", "model.lora_attn_modules=[q]", "model.quantize_base=True", "output_dir=/x"]), max_size=2),
)


@st.composite
def trainjobs(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    runtime = RUNTIMES[draw(st.sampled_from(sorted(RUNTIMES)))]
    spec = _drop_none(
        {
            "runtimeRef": {"name": runtime.name},
            "trainer": draw(st.one_of(st.none(), trainers)),
            "initializer": draw(st.one_of(st.none(), initializers)),
            "runtimePatches": draw(runtime_patches) or None,
            "suspend": draw(st.sampled_from([None, True, False])),
            "managedBy": draw(mostly(st.sampled_from([None, "kueue.x-k8s.io/multikueue"]), st.just("someone"))),
        }
    )
    metadata = {"name": draw(names), "namespace": draw(st.sampled_from(["default", "team"])), "uid": "u-1"}
    trainjob = {"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "TrainJob", "metadata": metadata, "spec": spec}
    return runtime.to_manifest() | {"kind": runtime.kind}, trainjob


def _render(objects: list[dict[str, Any]], **options: Any) -> list[dict[str, Any]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TrainerWarning)
        return render(objects, key_generator=seeded_key_generator("properties"), **options)


@SETTINGS
@given(trainjobs())
def test_render_fails_only_with_trainer_errors_and_is_deterministic(inputs: tuple[dict[str, Any], dict[str, Any]]) -> None:
    try:
        first = _render(list(inputs), multikueue_jobset=True)
    except TrainerError as error:
        event(f"rejected: {type(error).__name__}")
        return
    event("rendered")
    assert dump_all(first) == dump_all(_render(list(inputs), multikueue_jobset=True))
    assert [manifest["kind"] for manifest in first][-1] == "JobSet"


@SETTINGS
@given(trainjobs())
def test_load_fails_only_with_trainer_errors(inputs: tuple[dict[str, Any], dict[str, Any]]) -> None:
    _, trainjob = inputs
    try:
        (model,) = load(trainjob)
    except TrainerError:
        return
    assert load(model.to_manifest()) == [model]


yaml_texts = st.text(alphabet="ab:-[]{}&*!|>#'\"\n ,?%", max_size=60).map(lambda text: "apiVersion: v1\n" + text + "\n")
documents = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=5)),
    lambda children: st.one_of(st.lists(children, max_size=3), st.dictionaries(st.sampled_from(["apiVersion", "kind", "metadata", "spec", "name"]), children, max_size=4)),
    max_leaves=12,
)


@SETTINGS
@given(yaml_texts)
def test_load_of_any_yaml_text_fails_only_with_trainer_errors(text: str) -> None:
    try:
        load(text)
    except TrainerError:
        pass


@SETTINGS
@given(st.sampled_from(["TrainJob", "ClusterTrainingRuntime", "TrainingRuntime", "JobSet", "Secret"]), documents, documents)
def test_render_of_any_document_shape_fails_only_with_trainer_errors(kind: str, metadata: Any, spec: Any) -> None:
    api_version = "jobset.x-k8s.io/v1alpha2" if kind == "JobSet" else "trainer.kubeflow.org/v1alpha1"
    try:
        _render([{"apiVersion": api_version, "kind": kind, "metadata": metadata, "spec": spec}])
    except TrainerError:
        pass
