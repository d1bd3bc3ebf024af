"""What a converter decides for one v1 job (`Plan`), and how it becomes a TrainJob that references a
bundled runtime (with runtime patches for the pod fields the TrainJob has no field for) or a TrainJob
and the TrainingRuntime generated for it, when the bundled runtime cannot say what the v1 job said."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..api import constants as c
from .report import Losses
from .v1job import V1Job

# The runtime patch the migrated TrainJob carries: named for where its content comes from.
PATCH_MANAGER = "kubeflow.org/training-operator-v1"

TRAINER_FIELDS = ("image", "command", "args", "env", "resources")
# What runtimePatches may set (upstream v2.3.0's TrainJob CRD): pod-level, and on containers only these.
PATCH_POD_FIELDS = (
    "serviceAccountName", "volumes", "imagePullSecrets", "securityContext", "nodeSelector", "affinity", "tolerations",
    "schedulingGates", "terminationGracePeriodSeconds",
)
PATCH_CONTAINER_FIELDS = ("volumeMounts", "securityContext")
BUNDLED_RESTART_POLICY = "OnFailure"  # JobSet's webhook gives Pods that set none OnFailure


@dataclass
class JobPart:
    """One replicated job of the generated runtime."""

    name: str
    template: dict[str, Any]  # the pod template; its main container is named `node`
    restart_policy: str
    container_path: str  # the v1 path of the main container (`spec.pytorchReplicaSpecs.Master.template.spec.containers[0]`)
    trainer: bool = False  # the job the TrainJob's trainer describes (ancestor label `trainer`)
    depends_on: list[dict[str, str]] | None = None


@dataclass
class Plan:
    job: V1Job
    losses: Losses
    framework: str  # the `trainer.kubeflow.org/framework` label: torch, mpi, xgboost, paddle
    bundled: str | None  # the bundled runtime that fits when nothing else is needed
    ml_policy: dict[str, Any]  # of the generated runtime
    jobs: list[JobPart]
    num_nodes: int
    num_proc_per_node: int | None = None
    compat_env: list[dict[str, Any]] = field(default_factory=list)  # v1's distributed env, in v2's values
    reserved_env: frozenset[str] = frozenset()  # what v2's ML policy sets: the TrainJob may not
    jobset_spec: dict[str, Any] = field(default_factory=dict)  # more of the generated runtime's JobSet spec
    job_spec: dict[str, Any] = field(default_factory=dict)  # more of each of its Job specs (backoffLimit)
    needs_runtime: list[str] = field(default_factory=list)  # why the bundled runtime cannot carry the job
    trainer_fields: tuple[str, ...] = TRAINER_FIELDS  # what of the trainer job's container spec.trainer carries

    @property
    def trainer_job(self) -> JobPart:
        return next(job for job in self.jobs if job.trainer)


def node_container(template: Mapping[str, Any]) -> dict[str, Any]:
    container: dict[str, Any] = next(item for item in template["spec"]["containers"] if item.get("name") == c.NODE)
    return container


def bundled_misfits(plan: Plan) -> list[str]:
    """What of the job the bundled runtime, the TrainJob's fields and runtime patches cannot say."""
    found = list(plan.needs_runtime)
    if plan.bundled is None:
        return found or [f"no bundled runtime runs {plan.job.rules.framework} jobs"]
    if len(plan.jobs) != 1:
        found.append("more than one replicated job")
        return found
    job = plan.jobs[0]
    spec = job.template["spec"]
    found += [f"pod field {key}" for key in spec if key not in (*PATCH_POD_FIELDS, "containers")]
    found += [f"container {item.get('name')!r}" for item in spec["containers"] if item.get("name") != c.NODE]
    allowed = (*TRAINER_FIELDS, *PATCH_CONTAINER_FIELDS, "name")
    found += [f"container field {key}" for key in node_container(job.template) if key not in allowed]
    if job.restart_policy != BUNDLED_RESTART_POLICY:
        found.append(f"restartPolicy {job.restart_policy}")
    return found


def trainer_of(plan: Plan) -> dict[str, Any]:
    """spec.trainer: the trainer job's main container, the node count, the processes per node and the env."""
    container = node_container(plan.trainer_job.template)
    trainer: dict[str, Any] = {"image": container["image"]}
    for key, name in (("command", "command"), ("args", "args"), ("resources", "resourcesPerNode")):
        if key in plan.trainer_fields and container.get(key) is not None:
            trainer[name] = container[key]
    env = _merged_env(container.get("env") or [] if "env" in plan.trainer_fields else [], plan)
    if env:
        trainer["env"] = env
    trainer["numNodes"] = plan.num_nodes
    if plan.num_proc_per_node is not None:
        trainer["numProcPerNode"] = plan.num_proc_per_node
    return trainer


def _merged_env(user: list[Any], plan: Plan) -> list[Any]:
    """The user's env, then v1's distributed env in v2's values. v1 put its own after the user's, so
    where both name a variable the Pods saw v1's; a variable v2's policy sets cannot be the user's."""
    compat = {item["name"] for item in plan.compat_env}
    kept = []
    path = plan.trainer_job.container_path
    for index, item in enumerate(user):
        name = item.get("name") if isinstance(item, Mapping) else None
        if name in compat:
            plan.losses.add(f"{path}.env[{index}]", f"{name} is set by the operator after it, so v1's Pods never saw "
                                                    "this value; the TrainJob sets the operator's, in v2's terms")
        elif name in plan.reserved_env:
            plan.losses.add(f"{path}.env[{index}]", f"{name} is set by v2's {plan.framework} policy, which refuses it in "
                                                    "the TrainJob's env; v2's value is used")
        else:
            kept.append(item)
    return kept + list(plan.compat_env)


def without_trainer_fields(template: Mapping[str, Any], fields: tuple[str, ...]) -> dict[str, Any]:
    """The template minus what spec.trainer says (the runtime keeps the image: a runtime should deploy on its own)."""
    copy = {**template, "spec": {**template["spec"], "containers": []}}
    for container in template["spec"]["containers"]:
        if container.get("name") == c.NODE:
            dropped = set(fields) - {"image"}
            container = {key: value for key, value in container.items() if key not in dropped}
        copy["spec"]["containers"].append(container)
    return copy


def node_host(name: str, rank: int) -> str:
    """The host name of the node of this rank in v2: JobSet's `<jobset>-<job>-<job index>-<pod index>.<subdomain>`,
    the JobSet and its subdomain named as the TrainJob."""
    return f"{name}-{c.NODE}-0-{rank}.{name}"


def rank_env(name: str) -> dict[str, Any]:
    """A variable whose value is the node's rank: the Pod's completion index."""
    return {"name": name, "valueFrom": {"fieldRef": {"fieldPath": c.COMPLETION_INDEX_FIELD}}}
