"""Builders for TrainJobs and runtimes: a test spells out only what differs from the default."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from pulumi_kubeflow_trainer.api.runtime import ClusterTrainingRuntime, TrainingRuntime
from pulumi_kubeflow_trainer.api.trainjob import TrainJob
from pulumi_kubeflow_trainer.framework.context import RenderContext
from pulumi_kubeflow_trainer.rendering import Renderer
from pulumi_kubeflow_trainer.ssh import seeded_key_generator

ANCESTOR = "trainer.kubeflow.org/trainjob-ancestor-step"
V1 = "trainer.kubeflow.org/v1alpha1"


class TrainJobBuilder:
    def __init__(self, namespace: str, name: str) -> None:
        self.manifest: dict[str, Any] = {
            "apiVersion": V1,
            "kind": "TrainJob",
            "metadata": {"name": name, "namespace": namespace},
            "spec": {"runtimeRef": {"name": "runtime"}},
        }

    @property
    def _trainer(self) -> dict[str, Any]:
        return self.manifest["spec"].setdefault("trainer", {})

    def runtime_ref(self, name: str, kind: str | None = None, api_group: str | None = None) -> TrainJobBuilder:
        ref = {"name": name} | ({"kind": kind} if kind else {}) | ({"apiGroup": api_group} if api_group else {})
        self.manifest["spec"]["runtimeRef"] = ref
        return self

    def num_nodes(self, count: int) -> TrainJobBuilder:
        self._trainer["numNodes"] = count
        return self

    def num_proc_per_node(self, count: int) -> TrainJobBuilder:
        self._trainer["numProcPerNode"] = count
        return self

    def image(self, image: str) -> TrainJobBuilder:
        self._trainer["image"] = image
        return self

    def command(self, *command: str) -> TrainJobBuilder:
        self._trainer["command"] = list(command)
        return self

    def args(self, *args: str) -> TrainJobBuilder:
        self._trainer["args"] = list(args)
        return self

    def env(self, **values: str) -> TrainJobBuilder:
        self._trainer.setdefault("env", []).extend({"name": k, "value": v} for k, v in values.items())
        return self

    def resources(self, **resources: dict[str, Any]) -> TrainJobBuilder:
        self._trainer["resourcesPerNode"] = resources
        return self

    def dataset(self, storage_uri: str | None = None, secret: str | None = None, **env: str) -> TrainJobBuilder:
        return self._initializer("dataset", storage_uri, secret, env)

    def model(self, storage_uri: str | None = None, secret: str | None = None, **env: str) -> TrainJobBuilder:
        return self._initializer("model", storage_uri, secret, env)

    def _initializer(self, kind: str, uri: str | None, secret: str | None, env: dict[str, str]) -> TrainJobBuilder:
        source: dict[str, Any] = {}
        if uri is not None:
            source["storageUri"] = uri
        if env:
            source["env"] = [{"name": k, "value": v} for k, v in env.items()]
        if secret:
            source["secretRef"] = {"name": secret}
        self.manifest["spec"].setdefault("initializer", {})[kind] = source
        return self

    def runtime_patch(self, manager: str, *, jobs: list[dict[str, Any]] | None = None, **metadata: Any) -> TrainJobBuilder:
        template: dict[str, Any] = {}
        if metadata:
            template["metadata"] = metadata
        if jobs is not None:
            template["spec"] = {"replicatedJobs": jobs}
        patch = {"manager": manager, "trainingRuntimeSpec": {"template": template}}
        self.manifest["spec"].setdefault("runtimePatches", []).append(patch)
        return self

    def suspend(self, value: bool = True) -> TrainJobBuilder:
        self.manifest["spec"]["suspend"] = value
        return self

    def managed_by(self, manager: str) -> TrainJobBuilder:
        self.manifest["spec"]["managedBy"] = manager
        return self

    def uid(self, uid: str) -> TrainJobBuilder:
        self.manifest["metadata"]["uid"] = uid
        return self

    def set(self, path: str, value: Any) -> TrainJobBuilder:
        """Any field by dotted path, for the odd case without a setter."""
        *parents, last = path.split(".")
        node = self.manifest
        for part in parents:
            node = node.setdefault(part, {})
        node[last] = value
        return self

    def obj(self) -> dict[str, Any]:
        return copy.deepcopy(self.manifest)

    def build(self) -> TrainJob:
        return TrainJob.model_validate(self.obj())


def make_trainjob(namespace: str = "default", name: str = "job") -> TrainJobBuilder:
    return TrainJobBuilder(namespace, name)


def container(name: str = "node", image: str | None = "trainer:latest", **fields: Any) -> dict[str, Any]:
    return {"name": name} | ({"image": image} if image else {}) | fields


def replicated_job(name: str, *containers: dict[str, Any], ancestor: str | None = None, **pod: Any) -> dict[str, Any]:
    template: dict[str, Any] = {"spec": {"template": {"spec": {"containers": list(containers), **pod}}}}
    if ancestor:
        template["metadata"] = {"labels": {ANCESTOR: ancestor}}
    return {"name": name, "template": template}


class RuntimeBuilder:
    def __init__(self, name: str, cluster: bool, namespace: str) -> None:
        metadata: dict[str, Any] = {"name": name}
        if not cluster:
            metadata["namespace"] = namespace
        self.manifest: dict[str, Any] = {
            "apiVersion": V1,
            "kind": "ClusterTrainingRuntime" if cluster else "TrainingRuntime",
            "metadata": metadata,
            "spec": {"template": {"spec": {"replicatedJobs": []}}},
        }

    @property
    def _jobs(self) -> list[dict[str, Any]]:
        return self.manifest["spec"]["template"]["spec"]["replicatedJobs"]

    def _policy(self, source: str, value: dict[str, Any]) -> RuntimeBuilder:
        self.manifest["spec"].setdefault("mlPolicy", {})[source] = value
        return self

    def torch(self, **fields: Any) -> RuntimeBuilder:
        return self._policy("torch", fields)

    def mpi(self, **fields: Any) -> RuntimeBuilder:
        return self._policy("mpi", fields)

    def jax(self) -> RuntimeBuilder:
        return self._policy("jax", {})

    def xgboost(self) -> RuntimeBuilder:
        return self._policy("xgboost", {})

    def flux(self, **fields: Any) -> RuntimeBuilder:
        return self._policy("flux", fields)

    def num_nodes(self, count: int) -> RuntimeBuilder:
        self.manifest["spec"].setdefault("mlPolicy", {})["numNodes"] = count
        return self

    def coscheduling(self, **fields: Any) -> RuntimeBuilder:
        self.manifest["spec"].setdefault("podGroupPolicy", {})["coscheduling"] = fields
        return self

    def volcano(self, **fields: Any) -> RuntimeBuilder:
        self.manifest["spec"].setdefault("podGroupPolicy", {})["volcano"] = fields
        return self

    def job(self, job: dict[str, Any]) -> RuntimeBuilder:
        self._jobs.append(job)
        return self

    def trainer(self, *containers: dict[str, Any], name: str = "node", **pod: Any) -> RuntimeBuilder:
        return self.job(replicated_job(name, *(containers or (container(),)), ancestor="trainer", **pod))

    def initializers(self) -> RuntimeBuilder:
        mount = [{"name": "initializer", "mountPath": "/workspace"}]
        for step in ("dataset-initializer", "model-initializer"):
            self.job(replicated_job(step, container(step, f"{step}:latest", volumeMounts=mount), ancestor=step))
        return self

    def label(self, key: str, value: str) -> RuntimeBuilder:
        self.manifest["metadata"].setdefault("labels", {})[key] = value
        return self

    def template_metadata(self, **metadata: Any) -> RuntimeBuilder:
        self.manifest["spec"]["template"]["metadata"] = metadata
        return self

    def template_spec(self, **fields: Any) -> RuntimeBuilder:
        self.manifest["spec"]["template"]["spec"].update(fields)
        return self

    def obj(self) -> dict[str, Any]:
        return copy.deepcopy(self.manifest)

    def build(self) -> ClusterTrainingRuntime | TrainingRuntime:
        model = ClusterTrainingRuntime if self.manifest["kind"] == "ClusterTrainingRuntime" else TrainingRuntime
        return model.model_validate(self.obj())


def make_runtime(name: str = "runtime", *, cluster: bool = True, namespace: str = "default") -> RuntimeBuilder:
    return RuntimeBuilder(name, cluster, namespace)


def render_one(trainjob: TrainJobBuilder | TrainJob, runtime: RuntimeBuilder | Any, **options: Any) -> list[dict[str, Any]]:
    """Render one TrainJob against one runtime, with deterministic keys."""
    job = trainjob.build() if isinstance(trainjob, TrainJobBuilder) else trainjob
    model = runtime.build() if isinstance(runtime, RuntimeBuilder) else runtime
    options.setdefault("key_generator", seeded_key_generator("tests"))
    options.setdefault("runtime_snapshot", False)
    return Renderer([model], context=RenderContext(**options)).render(job)


def by_kind(manifests: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    found = [manifest for manifest in manifests if manifest["kind"] == kind]
    assert len(found) == 1, f"expected one {kind}, got {[m['kind'] for m in manifests]}"
    return found[0]


def jobset_job(manifests: list[dict[str, Any]], job: str) -> dict[str, Any]:
    jobs = by_kind(manifests, "JobSet")["spec"]["replicatedJobs"]
    return next(item for item in jobs if item["name"] == job)


def pod_spec(manifests: list[dict[str, Any]], job: str) -> dict[str, Any]:
    return jobset_job(manifests, job)["template"]["spec"]["template"]["spec"]


def jobset_container(manifests: list[dict[str, Any]], job: str, name: str = "node") -> dict[str, Any]:
    return next(item for item in pod_spec(manifests, job)["containers"] if item["name"] == name)


def env_of(container_manifest: dict[str, Any]) -> dict[str, Any]:
    return {var["name"]: var.get("value", var.get("valueFrom")) for var in container_manifest.get("env") or []}


def load_errors(manifest: dict[str, Any]) -> list[Any]:
    """The FieldErrors `load` reports for one manifest (fails the test when it loads)."""
    from pulumi_kubeflow_trainer.framework.errors import TrainJobInvalidError
    from pulumi_kubeflow_trainer.loading import load

    try:
        load(manifest)
    except TrainJobInvalidError as invalid:
        return invalid.errors
    raise AssertionError(f"{manifest.get('kind')} loaded although it is invalid")


@dataclass(frozen=True)
class RefusedManifest:
    """A manifest `load` refuses, the field path of the error, and the parts of its message."""

    name: str
    manifest: dict[str, Any]
    path: str
    says: tuple[str, ...] = ()


@dataclass(frozen=True)
class ValidManifest:
    name: str
    manifest: dict[str, Any]


def assert_load_refuses(case: RefusedManifest) -> None:
    errors = load_errors(case.manifest)
    matching = [error for error in errors if error.path == case.path]
    assert matching, f"no error at {case.path}: {[str(error) for error in errors]}"
    assert all(part in matching[0].message for part in case.says), str(matching[0])


def named(prefix: str, count: int, **fields: Any) -> list[dict[str, Any]]:
    """`count` items named prefix0, prefix1, ... (for list size limits)."""
    return [{"name": f"{prefix}{index}", **fields} for index in range(count)]


def validate_one(trainjob: TrainJobBuilder | TrainJob, runtime: RuntimeBuilder | Any, **options: Any) -> Any:
    """What the TrainJob validating webhook answers (a Verdict with errors and warnings)."""
    job = trainjob.build() if isinstance(trainjob, TrainJobBuilder) else trainjob
    model = runtime.build() if isinstance(runtime, RuntimeBuilder) else runtime
    return Renderer([model], context=RenderContext(**options)).validate(job)


@dataclass(frozen=True)
class Invalid:
    """A validation case: the TrainJob and runtime, the one field path rejected, and what it says."""

    name: str
    trainjob: TrainJobBuilder
    runtime: RuntimeBuilder
    path: str
    says: str
    options: dict[str, Any] = field(default_factory=dict)  # RenderContext fields, e.g. cluster


def assert_rejected(case: Invalid) -> None:
    verdict = validate_one(case.trainjob, case.runtime, **case.options)
    assert [error.path for error in verdict.errors] == [case.path]
    assert case.says in verdict.errors[0].message


def env_names(container_manifest: dict[str, Any]) -> list[str]:
    return [var["name"] for var in container_manifest.get("env") or []]


def job_counts(manifests: list[dict[str, Any]]) -> dict[str, tuple[int, int]]:
    """(parallelism, completions) of every replicated job."""
    jobs = by_kind(manifests, "JobSet")["spec"]["replicatedJobs"]
    return {job["name"]: (job["template"]["spec"]["parallelism"], job["template"]["spec"]["completions"]) for job in jobs}


RANK_FIELD_REF = {"fieldRef": {"fieldPath": "metadata.annotations['batch.kubernetes.io/job-completion-index']"}}


def canonical_quantities(manifest: Any) -> Any:
    """`manifest` with resource quantities as the API server stores them (`2` -> `"2"`, `0.5` -> `"500m"`)."""
    from pulumi_kubeflow_trainer.api.quantity import canonical

    if isinstance(manifest, list):
        return [canonical_quantities(item) for item in manifest]
    if not isinstance(manifest, dict):
        return manifest
    return {
        key: {name: canonical(value) for name, value in value.items()}
        if key in ("limits", "requests", "overhead") and isinstance(value, dict)
        else canonical_quantities(value)
        for key, value in manifest.items()
    }


# Training Operator v1 jobs (kubeflow.org/v1), for tests/migration: the kind's replica types with one
# container of the kind's name each; methods change every replica type unless `only` names one.
V1_REPLICAS = {
    "PyTorchJob": ("pytorchReplicaSpecs", "pytorch", {"Master": 1, "Worker": 1}),
    "MPIJob": ("mpiReplicaSpecs", "mpi", {"Launcher": 1, "Worker": 2}),
    "XGBoostJob": ("xgbReplicaSpecs", "xgboost", {"Master": 1, "Worker": 2}),
    "PaddleJob": ("paddleReplicaSpecs", "paddle", {"Worker": 2}),
}


class V1JobBuilder:
    def __init__(self, kind: str, name: str) -> None:
        key, container_name, replicas = V1_REPLICAS[kind]
        self.key = key
        specs = {
            replica_type: {"replicas": count, "template": {"spec": {"containers": [{"name": container_name, "image": "train:1"}]}}}
            for replica_type, count in replicas.items()
        }
        self.manifest: dict[str, Any] = {"apiVersion": "kubeflow.org/v1", "kind": kind, "metadata": {"name": name}, "spec": {key: specs}}

    def _specs(self, only: str | None) -> list[dict[str, Any]]:
        specs = self.manifest["spec"][self.key]
        return [spec for replica_type, spec in specs.items() if only in (None, replica_type)]

    def metadata(self, **fields: Any) -> V1JobBuilder:
        self.manifest["metadata"].update(fields)
        return self

    def spec(self, **fields: Any) -> V1JobBuilder:
        self.manifest["spec"].update(fields)
        return self

    def run_policy(self, **fields: Any) -> V1JobBuilder:
        self.manifest["spec"].setdefault("runPolicy", {}).update(fields)
        return self

    def replica(self, only: str | None = None, **fields: Any) -> V1JobBuilder:
        """Fields of the replica specs (replicas, restartPolicy)."""
        for spec in self._specs(only):
            spec.update(copy.deepcopy(fields))
        return self

    def pod(self, only: str | None = None, **fields: Any) -> V1JobBuilder:
        for spec in self._specs(only):
            spec["template"]["spec"].update(copy.deepcopy(fields))
        return self

    def template_metadata(self, only: str | None = None, **fields: Any) -> V1JobBuilder:
        for spec in self._specs(only):
            spec["template"].setdefault("metadata", {}).update(copy.deepcopy(fields))
        return self

    def container(self, only: str | None = None, **fields: Any) -> V1JobBuilder:
        """Fields of the first container."""
        for spec in self._specs(only):
            spec["template"]["spec"]["containers"][0].update(copy.deepcopy(fields))
        return self

    def without(self, replica_type: str) -> V1JobBuilder:
        del self.manifest["spec"][self.key][replica_type]
        return self

    def build(self) -> dict[str, Any]:
        return copy.deepcopy(self.manifest)


def make_v1_job(kind: str = "PyTorchJob", name: str = "job") -> V1JobBuilder:
    return V1JobBuilder(kind, name)


STACK_URN = "urn:pulumi:test::policy::pulumi:pulumi:Stack::policy-test"


def _urn(type_token: str, name: str, parent_type: str | None = None) -> str:
    qualified = f"{parent_type}${type_token}" if parent_type else type_token
    return f"urn:pulumi:test::policy::{qualified}::{name}"


class PolicyStackBuilder:
    """The resources of a stack as the policy pack sees them (`policy.inventory.StackResource`): TrainJob
    components with the JobSet rendered for them, TrainJob objects, plain JobSets, runtimes."""

    def __init__(self) -> None:
        from pulumi_kubeflow_trainer.policy.inventory import StackResource

        self.resource = StackResource
        self.resources: list[Any] = []

    def trainjob(self, trainjob: TrainJobBuilder, runtime: RuntimeBuilder, *, queue: str | None = None,
                 record: dict[str, Any] | None = None) -> PolicyStackBuilder:
        """A default-mode TrainJob component and its JobSet; `record` replaces the component's input record."""
        from pulumi_kubeflow_trainer.policy.stack import JOBSET, TRAINJOB_COMPONENT
        from pulumi_kubeflow_trainer.resources.record import record_of

        model = trainjob.build()
        jobset = copy.deepcopy(by_kind(render_one(model, runtime), "JobSet"))
        if queue:
            jobset["metadata"].setdefault("labels", {})["kueue.x-k8s.io/queue-name"] = queue
        name = model.name
        inputs = {"record": record_of(f"{model.namespace}/{name}", model.spec.to_manifest()) if record is None else record}
        component = self.resource(TRAINJOB_COMPONENT, _urn(TRAINJOB_COMPONENT, name), {}, STACK_URN, inputs)
        self.resources += [component, self.resource(JOBSET, _urn(JOBSET, f"{name}-jobset", TRAINJOB_COMPONENT), jobset, component.urn)]
        return self

    def trainjob_object(self, trainjob: TrainJobBuilder, *, expected: RuntimeBuilder | None = None) -> PolicyStackBuilder:
        """A TrainJob object: with `expected`, registered by a controller-mode component whose prediction
        (its ControllerPrediction child's `expected`) was rendered against that runtime; without,
        registered by other code."""
        from pulumi_kubeflow_trainer.policy.stack import TRAINJOB_COMPONENT

        manifest = trainjob.obj()
        object_type = f"kubernetes:{V1}:TrainJob"
        name = manifest["metadata"]["name"]
        parent = STACK_URN
        if expected is not None:
            from pulumi_kubeflow_trainer.policy.stack import PREDICTION

            prediction = render_one(trainjob, expected)
            component = self.resource(TRAINJOB_COMPONENT, _urn(TRAINJOB_COMPONENT, name), {}, STACK_URN, {})
            check = self.resource(PREDICTION, _urn(PREDICTION, f"{name}-prediction", TRAINJOB_COMPONENT),
                                  {"expected": prediction}, component.urn)
            self.resources += [component, check]
            parent = component.urn
        self.resources.append(self.resource(object_type, _urn(object_type, f"{name}-trainjob"), manifest, parent))
        return self

    def jobset(self, manifest: dict[str, Any]) -> PolicyStackBuilder:
        from pulumi_kubeflow_trainer.policy.stack import JOBSET

        self.resources.append(self.resource(JOBSET, _urn(JOBSET, manifest["metadata"]["name"]), manifest, STACK_URN))
        return self

    def runtime_component(self, runtime: RuntimeBuilder) -> PolicyStackBuilder:
        manifest = runtime.obj()
        type_token = f"kubeflow:trainer:{manifest['kind']}"
        outputs = {"runtime_name": manifest["metadata"]["name"], "manifest": manifest}
        self.resources.append(self.resource(type_token, _urn(type_token, manifest["metadata"]["name"]), outputs, STACK_URN))
        return self

    def runtime_object(self, runtime: RuntimeBuilder) -> PolicyStackBuilder:
        manifest = runtime.obj()
        type_token = f"kubernetes:{V1}:{manifest['kind']}"
        self.resources.append(self.resource(type_token, _urn(type_token, manifest["metadata"]["name"]), manifest, STACK_URN))
        return self

    def inventory(self) -> Any:
        from pulumi_kubeflow_trainer.policy.stack import inventory

        return inventory(self.resources)


def policy_stack() -> PolicyStackBuilder:
    return PolicyStackBuilder()


def gpu_runtime(name: str = "torch-platform", **labels: str) -> RuntimeBuilder:
    """A torch ClusterTrainingRuntime whose trainer image is ghcr.io/acme's."""
    runtime = make_runtime(name).torch().trainer(container(image="ghcr.io/acme/torch:2"))
    for key, value in labels.items():
        runtime.label(key, value)
    return runtime


def gpu_trainjob(name: str, namespace: str = "team-a", *, gpus: int = 8, nodes: int = 1, runtime: str = "torch-platform") -> TrainJobBuilder:
    trainjob = make_trainjob(namespace, name).runtime_ref(runtime).num_nodes(nodes)
    return trainjob.resources(limits={"nvidia.com/gpu": gpus}) if gpus else trainjob
