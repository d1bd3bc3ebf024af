"""RuntimeInfo: the working state plugins share while a TrainJob is rendered (upstream `runtime.Info`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..api import constants as c
from ..api.quantity import Quantity, add_resource_lists, max_resource_lists
from ..api.runtime import MLPolicy, PodGroupPolicy, Runtime
from ..api.trainjob import Trainer, TrainJob
from .kube import Manifest, find_named

if TYPE_CHECKING:
    from .compiled import CompiledRuntime
    from .plan import RenderPlan


@dataclass(slots=True)  # slots: plugins read its fields on every phase
class PodSet:
    """One replicated job of the JobSet being built. `job` is that job's dict, which plugins edit in place."""

    job: Manifest
    ancestor: str | None
    count: int
    # Plugins edit the job and pod specs in place and never replace them (nor rename the job), so they are
    # found once.
    job_spec: Manifest = field(init=False, repr=False)
    pod_spec: Manifest = field(init=False, repr=False)
    name: str = field(init=False)
    # (TrainJob name, subdomain, replicas, pods per replica) as the pre-build sync fixed them.
    endpoint_naming: tuple[str, str, int, int] | None = field(default=None, repr=False)
    _endpoints: list[str] | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        job = self.job
        self.job_spec = job_spec = job.setdefault("template", {}).setdefault("spec", {})
        self.pod_spec = job_spec.setdefault("template", {}).setdefault("spec", {})  # `pod_spec_of`, inlined
        self.name = str(job["name"])

    @property
    def endpoints(self) -> list[str]:
        """`<trainjob>-<job>-<replica>-<pod>.<subdomain>` of every pod, replica by replica; none before the
        pre-build sync. Listed on first use, since few policies read them (upstream: an iterator)."""
        if self._endpoints is None:
            if self.endpoint_naming is None:
                return []
            name, subdomain, replicas, count = self.endpoint_naming
            job = self.name
            # One string per pod: a 1,024-node MPI job has 1,024 of them, so nothing is looked up per pod.
            self._endpoints = [
                f"{prefix}{pod}.{subdomain}"
                for prefix in [f"{name}-{job}-{replica}-" for replica in range(replicas)]
                for pod in range(count)
            ]
        return self._endpoints

    def endpoint_lines(self, end: str) -> str:
        """Every endpoint followed by `end`, as one text (a hostfile's lines), made without listing the
        endpoints: see `numbered_lines`."""
        if self.endpoint_naming is None:
            return ""
        name, subdomain, replicas, count = self.endpoint_naming
        return "".join(numbered_lines(f"{name}-{self.name}-{replica}-", f".{subdomain}{end}", count) for replica in range(replicas))

    @property
    def replicas(self) -> int:
        replicas: int = self.job.get("replicas", 1)
        return replicas

    @property
    def containers(self) -> list[Manifest]:
        return self.pod_spec.get("containers") or []

    @property
    def init_containers(self) -> list[Manifest]:
        return self.pod_spec.get("initContainers") or []

    def find_container(self, name: str) -> Manifest | None:
        container: Manifest
        for container in self.pod_spec.get("containers") or ():  # `find_named`, inlined: called on every phase
            if container.get("name") == name:
                return container
        return None

    def find_init_container(self, name: str) -> Manifest | None:
        return find_named(self.init_containers, name)

    def single_pod_requests(self) -> dict[str, Quantity]:
        """Kubernetes `PodRequests`: containers summed, init containers as a peak, plus overhead."""
        spec = self.pod_spec
        total: dict[str, Quantity] = {}
        for container in spec.get("containers") or []:
            add_resource_lists(total, _requests(container))
        sidecars: dict[str, Quantity] = {}
        init_peak: dict[str, Quantity] = {}
        for container in spec.get("initContainers") or []:
            requests = _requests(container)
            if container.get("restartPolicy") == "Always":
                add_resource_lists(total, requests)
                add_resource_lists(sidecars, requests)
                requests = dict(sidecars)
            else:
                requests = dict(requests)
                add_resource_lists(requests, sidecars)
            max_resource_lists(init_peak, requests)
        max_resource_lists(total, init_peak)
        pod_level = ((spec.get("resources") or {}).get("requests")) or {}
        total.update({name: Quantity.parse(value) for name, value in pod_level.items()})
        add_resource_lists(total, {name: Quantity.parse(v) for name, v in (spec.get("overhead") or {}).items()})
        return total


_INDEX = "\x00"  # stands for the pod index in a line's text; no Kubernetes name holds it
_DIGITS = "0123456789"


def numbered_lines(head: str, tail: str, count: int) -> str:
    """`f"{head}{index}{tail}"` for every index in range(count), as one text.

    Writing an index as text costs more than copying a whole line, so the lines are not made one by one:
    indexes 10t..10t+9 are index t followed by each digit, so the ten lines of a decade are one template
    and the decades are numbered as lines are, a digit fewer each time: a few dozen `str.replace` calls
    for 1,024 lines instead of 1,024 conversions.
    """
    if _INDEX in head or _INDEX in tail:
        return "".join(f"{head}{index}{tail}" for index in range(count))
    return _numbered(f"{head}{_INDEX}{tail}", count)


def _numbered(template: str, count: int) -> str:
    """`template` with _INDEX replaced by each index in range(count), joined."""
    if count <= 10:
        return "".join(template.replace(_INDEX, digit) for digit in _DIGITS[: max(count, 0)])
    tens, units = divmod(count, 10)
    # Indexes 10 .. 10*tens-1: decade t is `template` with t's digits, then each last digit, for t from 1.
    decade = "".join(template.replace(_INDEX, _INDEX + digit) for digit in _DIGITS)
    decades = _numbered(decade, tens)[len(decade.replace(_INDEX, "0")):]  # decade 0 ("00".."09") left out
    last = _numbered(template.replace(_INDEX, str(tens) + _INDEX), units)  # 10*tens .. count-1
    return _numbered(template, 10) + decades + last


def _requests(container: Manifest) -> dict[str, Quantity]:
    requests = (container.get("resources") or {}).get("requests") or {}
    return {name: Quantity.parse(value) for name, value in requests.items()}


@dataclass(slots=True)
class RuntimeInfo:
    """What the plugins read and change: the patched JobSet spec, its pod sets and the policies."""

    trainjob: TrainJob
    plan: RenderPlan
    compiled: CompiledRuntime  # the plan's
    # The TrainJob's fields plugins read most, read once: a model's attributes are slow to read.
    name: str
    namespace: str
    trainer: Trainer | None  # spec.trainer
    patched: bool  # whether runtime patches changed the template (what was derived from it may not hold)
    labels: dict[str, str]
    annotations: dict[str, str]
    jobset_spec: Manifest
    pod_sets: list[PodSet]
    ml_policy: MLPolicy | None
    pod_group_policy: PodGroupPolicy | None
    trainer_command: list[str] | None = None
    trainer_args: list[str] | None = None
    requested_resources: Manifest | None = None  # the TrainJob's resourcesPerNode, when set
    _resources_per_node: Manifest | None = field(default=None, repr=False)
    warnings: list[str] = field(default_factory=list)
    # The pod set of the trainer job: pod sets are fixed once the info is built, so it is found once.
    trainer_pod_set: PodSet | None = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.trainer_pod_set = None
        for pod_set in self.pod_sets:
            if pod_set.ancestor == c.ANCESTOR_TRAINER:
                self.trainer_pod_set = pod_set
                break

    @property
    def runtime(self) -> Runtime:
        return self.compiled.runtime

    def is_trainer_node(self, pod_set: PodSet) -> bool:
        """Whether the pod set's `node` container runs the trainer: the trainer job's, and the jobs the
        policy's plugin names (`trainer_node_jobs`)."""
        return pod_set.ancestor == c.ANCESTOR_TRAINER or pod_set.name in self.plan.trainer_node_jobs

    @property
    def subdomain(self) -> str:
        return ((self.jobset_spec.get("network") or {}).get("subdomain")) or self.name

    @property
    def rank0_host(self) -> str:
        """Node 0 of the trainer job; always under the TrainJob name, whatever the subdomain."""
        return f"{self.name}-{c.NODE}-0-0.{self.name}"

    def find_pod_set(self, *, name: str | None = None, ancestor: str | None = None) -> PodSet | None:
        for pod_set in self.pod_sets:
            if (name is None or pod_set.name == name) and (ancestor is None or pod_set.ancestor == ancestor):
                return pod_set
        return None

    def resources_per_node(self) -> Manifest:
        """The resources of one trainer node (`ExtractResourcePerNodeFromRuntime`)."""
        if self._resources_per_node is None:
            self._resources_per_node = self._find_resources_per_node()
        return self._resources_per_node

    def _find_resources_per_node(self) -> Manifest:
        if self.requested_resources is not None:
            return self.requested_resources
        for pod_set in self.pod_sets:
            if pod_set.name == c.NODE or pod_set.ancestor == c.ANCESTOR_TRAINER:
                node = pod_set.find_container(c.NODE)
                if node is not None:  # the first such job decides, with resources or without (upstream's
                    resources: Manifest = node.get("resources") or {}  # typed containers always have them)
                    return resources
        return {}

    def gpus_per_node(self) -> int:
        """The first resource whose name contains "gpu": requests, else limits (`GetNumGPUPerNode`)."""
        resources = self.resources_per_node()
        for source in ("requests", "limits"):
            listed: Manifest | None = resources.get(source)
            gpus = [name for name in listed if "gpu" in name.lower()] if listed else None
            if listed and gpus:
                count = Quantity.parse(listed[min(gpus)]).ceil()  # the first by name: Go's map order is random
                if count:
                    return count
        return 0

    def cpus_per_node(self) -> int:
        resources = self.resources_per_node()
        for source in ("requests", "limits"):
            value = (resources.get(source) or {}).get("cpu")
            if value is not None and not Quantity.parse(value).is_zero():
                return Quantity.parse(value).ceil()
        return 0
