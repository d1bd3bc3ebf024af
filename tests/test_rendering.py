"""render() and the Renderer (SEMANTICS §2.1, §3.1, §3.13, §4.2, §4.3): runtime resolution, warnings,
MultiKueue, determinism, output order and the accepted input forms."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from pulumi_kubeflow_trainer import TrainerWarning, render
from pulumi_kubeflow_trainer.api import constants as c
from pulumi_kubeflow_trainer.blueprints import bundled_runtimes
from pulumi_kubeflow_trainer.framework.context import RenderContext
from pulumi_kubeflow_trainer.framework.errors import RuntimeNotFoundError, TrainJobInvalidError
from pulumi_kubeflow_trainer.framework.runtime_rules import deprecation_warning
from pulumi_kubeflow_trainer.loading import load
from pulumi_kubeflow_trainer.rendering import Renderer
from pulumi_kubeflow_trainer.ssh import seeded_key_generator
from pulumi_kubeflow_trainer.yamlio import dump_all
from tests.builders import TrainJobBuilder, by_kind, container, make_runtime, make_trainjob, replicated_job

KEYS = {"key_generator": seeded_key_generator("render-tests")}


def cluster_runtime(name: str = "shared") -> dict[str, Any]:
    return make_runtime(name).torch().trainer().obj()


def namespaced_runtime(name: str = "local", namespace: str = "team") -> dict[str, Any]:
    return make_runtime(name, cluster=False, namespace=namespace).jax().trainer().obj()


def quiet_render(objects: Any, **options: Any) -> list[dict[str, Any]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TrainerWarning)
        return render(objects, **KEYS, **options)


@dataclass(frozen=True)
class Resolves:
    name: str
    trainjob: TrainJobBuilder
    runtimes: list[dict[str, Any]]
    framework_env: str


RESOLVES = [
    Resolves("a ClusterTrainingRuntime is found by name from any namespace", make_trainjob("anywhere", "j").runtime_ref("shared").num_nodes(1), [cluster_runtime()], "PET_NNODES"),
    Resolves(
        "a TrainingRuntime is found in the trainjob's namespace",
        make_trainjob("team", "j").runtime_ref("local", kind=c.TRAINING_RUNTIME_KIND).num_nodes(1),
        [namespaced_runtime()],
        "JAX_NUM_PROCESSES",
    ),
    Resolves(
        "a TrainingRuntime without a namespace lives in default",
        make_trainjob("default", "j").runtime_ref("local", kind=c.TRAINING_RUNTIME_KIND).num_nodes(1),
        [make_runtime("local", cluster=False).jax().trainer().obj() | {"metadata": {"name": "local"}}],
        "JAX_NUM_PROCESSES",
    ),
    Resolves(
        "the kind decides between a cluster and a namespaced runtime of the same name",
        make_trainjob("team", "j").runtime_ref("same", kind=c.TRAINING_RUNTIME_KIND).num_nodes(1),
        [cluster_runtime("same"), namespaced_runtime("same")],
        "JAX_NUM_PROCESSES",
    ),
    Resolves(
        "a runtimeRef without kind means a ClusterTrainingRuntime",
        make_trainjob("team", "j").runtime_ref("same").num_nodes(1),
        [namespaced_runtime("same"), cluster_runtime("same")],
        "PET_NNODES",
    ),
]


@pytest.mark.parametrize("case", RESOLVES, ids=lambda case: case.name)
def test_runtime_resolution(case: Resolves) -> None:
    manifests = quiet_render([*case.runtimes, case.trainjob.obj()], runtime_snapshot=False)
    node = by_kind(manifests, "JobSet")["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]["spec"]["containers"][0]
    assert case.framework_env in {var["name"] for var in node["env"]}


@dataclass(frozen=True)
class Missing:
    name: str
    trainjob: TrainJobBuilder
    runtimes: list[dict[str, Any]]
    says: tuple[str, ...]


MISSING = [
    Missing(
        "a TrainingRuntime in another namespace is not visible",
        make_trainjob("other", "j").runtime_ref("local", kind=c.TRAINING_RUNTIME_KIND),
        [namespaced_runtime("local", "team")],
        ("TrainingRuntime 'other/local' not found", "specified trainingRuntime must be created before the TrainJob is created", "given: none"),
    ),
    Missing(
        "a missing ClusterTrainingRuntime lists the known ones",
        make_trainjob("team", "j").runtime_ref("ghost"),
        [cluster_runtime("b-runtime"), cluster_runtime("a-runtime"), namespaced_runtime("local")],
        ("ClusterTrainingRuntime 'ghost' not found", "specified clusterTrainingRuntime must be created", "given: a-runtime, b-runtime"),
    ),
    Missing(
        "a missing TrainingRuntime lists those of the trainjob's namespace",
        make_trainjob("team", "j").runtime_ref("ghost", kind=c.TRAINING_RUNTIME_KIND),
        [namespaced_runtime("mine", "team"), namespaced_runtime("theirs", "other")],
        ("given: mine",),
    ),
    Missing(
        "an unsupported kind is rejected",
        make_trainjob("team", "j").runtime_ref("shared", kind="JobSetRuntime"),
        [cluster_runtime()],
        ("unsupported runtime: JobSetRuntime.trainer.kubeflow.org",),
    ),
    Missing(
        "an unsupported apiGroup is rejected",
        make_trainjob("team", "j").runtime_ref("shared", api_group="kubeflow.org"),
        [cluster_runtime()],
        ("unsupported runtime: ClusterTrainingRuntime.kubeflow.org",),
    ),
]


@pytest.mark.parametrize("case", MISSING, ids=lambda case: case.name)
def test_unresolvable_runtime_refs(case: Missing) -> None:
    with pytest.raises(TrainJobInvalidError) as raised:
        quiet_render([*case.runtimes, case.trainjob.obj()])
    (error,) = raised.value.errors
    assert error.path == "spec.runtimeRef"
    assert all(part in error.message for part in case.says), error.message
    assert error.source == "TrainJob/j"


def test_resolve_raises_runtime_not_found() -> None:
    renderer = Renderer([make_runtime("rt").torch().trainer().build()])
    with pytest.raises(RuntimeNotFoundError):
        renderer.resolve(make_trainjob().runtime_ref("other").build())


def test_a_runtime_not_found_is_a_validation_error_too() -> None:
    verdict = Renderer([]).validate(make_trainjob().runtime_ref("other").build())
    assert [error.path for error in verdict.errors] == ["spec.runtimeRef"]


def deprecated(kind_cluster: bool = True, **labels: str) -> dict[str, Any]:
    builder = make_runtime("old", cluster=kind_cluster, namespace="default").torch().trainer().label(c.LABEL_SUPPORT, c.SUPPORT_DEPRECATED)
    for key, value in labels.items():
        builder.label(key, value)
    return builder.obj()


def warned(objects: list[dict[str, Any]]) -> list[str]:
    with pytest.warns() as record:
        warnings.warn("sentinel", TrainerWarning, stacklevel=1)  # pytest.warns needs at least one warning
        render(objects, **KEYS)
    return [str(item.message) for item in record if issubclass(item.category, TrainerWarning) and str(item.message) != "sentinel"]


def test_a_deprecated_cluster_runtime_warns_on_create_and_on_reference() -> None:
    runtime = deprecated()
    messages = warned([runtime, make_trainjob().runtime_ref("old").obj()])
    (loaded,) = load(runtime)
    assert messages == [deprecation_warning(loaded, referenced=False), deprecation_warning(loaded, referenced=True)]
    assert messages[1].startswith('Referenced ClusterTrainingRuntime "old" is deprecated and will be removed in a future release')
    assert messages[1].endswith(c.DEPRECATION_POLICY_URL)


def test_a_deprecated_runtime_with_webhook_validation_disabled_warns_only_on_reference() -> None:
    messages = warned([deprecated(**{c.LABEL_WEBHOOK_VALIDATION: "disabled"}), make_trainjob().runtime_ref("old").obj()])
    assert len(messages) == 1 and messages[0].startswith("Referenced ClusterTrainingRuntime")


def test_a_deprecated_namespaced_runtime_does_not_warn() -> None:
    trainjob = make_trainjob().runtime_ref("old", kind=c.TRAINING_RUNTIME_KIND).obj()
    assert warned([deprecated(kind_cluster=False), trainjob]) == []


def multikueue_job() -> TrainJobBuilder:
    return make_trainjob("team", "j").runtime_ref("shared").num_nodes(2).managed_by(c.MANAGED_BY_MULTIKUEUE)


def test_a_multikueue_trainjob_is_skipped_like_the_controller_does() -> None:
    with pytest.warns(TrainerWarning, match="MultiKueue dispatches the TrainJob"):
        assert render([cluster_runtime(), multikueue_job().obj()], **KEYS) == []


def test_multikueue_jobset_renders_a_jobset_managed_by_multikueue() -> None:
    manifests = quiet_render([cluster_runtime(), multikueue_job().obj()], multikueue_jobset=True)
    assert [manifest["kind"] for manifest in manifests] == ["JobSet"]
    assert by_kind(manifests, "JobSet")["spec"]["managedBy"] == c.MANAGED_BY_MULTIKUEUE


def test_a_skipped_multikueue_trainjob_is_still_validated() -> None:
    with pytest.raises(TrainJobInvalidError, match="PET_NNODES"):
        quiet_render([cluster_runtime(), multikueue_job().env(PET_NNODES="1").obj()])


def everything() -> list[Any]:
    mpi = make_runtime("mpi").mpi(runLauncherAsNode=True).coscheduling().job(replicated_job("node", container())).trainer(name="launcher")
    return [
        *bundled_runtimes(),
        mpi.obj(),
        make_trainjob("team", "a").runtime_ref("mpi").num_nodes(3).uid("u-a").obj(),
        make_trainjob("team", "b").runtime_ref("deepspeed-distributed").num_nodes(2).obj(),
        make_trainjob("team", "c").runtime_ref("torchtune-llama3.2-1b").dataset("hf://a/b").command("tune", "run").obj(),
    ]


def test_rendering_twice_gives_byte_identical_yaml() -> None:
    first = dump_all(quiet_render(everything()))
    second = dump_all(render(everything(), key_generator=seeded_key_generator("render-tests")))
    assert first == second


def test_without_a_seed_only_the_ssh_keys_differ_between_renders() -> None:
    objects = [make_runtime("mpi").mpi().trainer(name="launcher").job(replicated_job("node", container())).obj()]
    objects.append(make_trainjob("team", "a").runtime_ref("mpi").obj())
    first, second = render(objects), render(objects)
    secrets = [by_kind(output, "Secret") for output in (first, second)]
    assert secrets[0]["data"] != secrets[1]["data"]
    assert dump_all([m for m in first if m["kind"] != "Secret"]) == dump_all([m for m in second if m["kind"] != "Secret"])


def test_children_come_trainjob_by_trainjob_and_dependencies_first() -> None:
    manifests = quiet_render(everything(), runtime_snapshot=True)
    order = [(manifest["kind"], manifest["metadata"]["name"]) for manifest in manifests]
    assert order[:5] == [
        ("Secret", "a-mpi-ssh-auth"),
        ("ConfigMap", "a-mpi-hostfile"),
        ("ConfigMap", "a-runtime-snapshot"),
        ("PodGroup", "a"),
        ("JobSet", "a"),
    ]
    assert order[5:9] == [("Secret", "b-mpi-ssh-auth"), ("ConfigMap", "b-mpi-hostfile"), ("ConfigMap", "b-runtime-snapshot"), ("JobSet", "b")]
    assert order[9:] == [("ConfigMap", "c-runtime-snapshot"), ("JobSet", "c")]


RUNTIME_YAML = """
apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata: {name: shared}
spec:
  mlPolicy: {torch: {}}
  template:
    spec:
      replicatedJobs:
      - name: node
        template:
          metadata: {labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}}
          spec: {template: {spec: {containers: [{name: node, image: img}]}}}
"""
TRAINJOB_YAML = """
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: j, namespace: team}
spec: {runtimeRef: {name: shared}, trainer: {numNodes: 2}}
"""


def input_forms(tmp_path: Path) -> dict[str, Any]:
    (tmp_path / "runtime.yaml").write_text(RUNTIME_YAML)
    (tmp_path / "trainjob.yaml").write_text(TRAINJOB_YAML)
    (tmp_path / "all.yaml").write_text(RUNTIME_YAML + "---" + TRAINJOB_YAML)
    return {
        "models": load(RUNTIME_YAML) + load(TRAINJOB_YAML),
        "dicts": [make_runtime("shared").torch().trainer(container(image="img")).obj(), make_trainjob("team", "j").runtime_ref("shared").num_nodes(2).obj()],
        "one multi-document YAML text": RUNTIME_YAML + "\n---\n" + TRAINJOB_YAML,
        "a list of YAML texts": [RUNTIME_YAML, TRAINJOB_YAML],
        "path strings": [str(tmp_path / "runtime.yaml"), str(tmp_path / "trainjob.yaml")],
        "Path objects": [tmp_path / "all.yaml"],
        "a directory": _directory(tmp_path),
        "a mix of forms": [load(RUNTIME_YAML)[0], TRAINJOB_YAML],
    }


def _directory(tmp_path: Path) -> Path:
    directory = tmp_path / "dir"
    directory.mkdir()
    (directory / "a-runtime.yaml").write_text(RUNTIME_YAML)
    (directory / "b-trainjob.yml").write_text(TRAINJOB_YAML)
    return directory


FORMS = ["models", "dicts", "one multi-document YAML text", "a list of YAML texts", "path strings", "Path objects", "a directory", "a mix of forms"]


@pytest.mark.parametrize("form", FORMS)
def test_render_accepts_every_input_form(form: str, tmp_path: Path) -> None:
    manifests = quiet_render(input_forms(tmp_path)[form])
    jobset = by_kind(manifests, "JobSet")
    assert (jobset["metadata"]["name"], jobset["spec"]["replicatedJobs"][0]["template"]["spec"]["parallelism"]) == ("j", 2)


def test_render_of_no_trainjob_is_empty_but_still_checks_the_runtimes() -> None:
    assert quiet_render([cluster_runtime()]) == []
    broken = make_runtime("broken").torch().job(replicated_job("node", container("main"), ancestor="trainer")).obj()
    with pytest.raises(TrainJobInvalidError) as raised:
        quiet_render([broken])
    assert raised.value.errors[0].source == "ClusterTrainingRuntime/broken"
    assert "must contain the required container for the ancestor: trainer" in raised.value.errors[0].message


def test_render_options_are_render_context_fields() -> None:
    with pytest.raises(TypeError):
        render([], no_such_option=True)
    assert RenderContext().runtime_snapshot is False and RenderContext().multikueue_jobset is False
