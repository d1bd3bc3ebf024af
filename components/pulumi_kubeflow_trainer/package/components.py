"""The package's components: each makes the Python component of the same name as its child.

Why a child, not a subclass: the engine asks the host for `kubeflow-trainer:index:TrainJob`, and the
component registered must be of that type, while the Python components register their own type
(`kubeflow:trainer:TrainJob`); and the host infers the schema from the class annotations along the
whole class hierarchy, which for the Python components are type-checker annotations the schema cannot
express (unions, ClassVars, strings). The child has the resource's name and the same arguments as in a
Python program, so it renders the same manifests; the layer converts the inputs (conversion.py), says
errors in the package's spelling (errors.py) and passes the child's Outputs on.

No `from __future__ import annotations`: the host reads these annotations at run time.
"""

from collections import defaultdict
from typing import Any

import pulumi
from pulumi.resource import DependencyResource

from .. import resources
from ..resources.runtime import RuntimeComponent
from .args import RuntimeArgs, TrainJobArgs
from .conversion import runtime_kwargs, trainjob_kwargs
from .errors import RUNTIME_PLACES, TRAINJOB_PLACES, reported_as_properties

PACKAGE = "kubeflow-trainer"
TRAINJOB_OUTPUTS = ("jobset_name", "namespace", "runtime_revision", "ssh_public_key", "conditions", "jobs_status",
                    "admission", "expected_children", "drift")


class PackageRuntime(pulumi.ComponentResource):
    """A runtime of the package; `runtime` is the Python runtime component it made."""

    runtime_name: pulumi.Output[str]
    """The runtime's `metadata.name`, as TrainJobs name it in `runtimeRef`."""
    manifest: pulumi.Output[dict[str, Any]]
    """The runtime as rendered (plain: known at preview)."""

    _implementation: type[RuntimeComponent]
    _token: str

    def __init__(self, name: str, args: RuntimeArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__(self._token, name, {}, opts)
        with reported_as_properties(args, RUNTIME_PLACES):
            kwargs = runtime_kwargs(args)
            self.runtime = self._implementation(name, **kwargs, opts=pulumi.ResourceOptions(parent=self))
        self.runtime_name = self.runtime.runtime_name
        self.manifest = self.runtime.manifest
        references.add(self)
        self.register_outputs({})


class ClusterTrainingRuntime(PackageRuntime):
    """A cluster-scoped training runtime (a blueprint TrainJobs render against): the Python `pulumi_kubeflow_trainer.ClusterTrainingRuntime`. Registers nothing unless `deploy` is set."""

    _implementation = resources.ClusterTrainingRuntime
    _token = f"{PACKAGE}:index:ClusterTrainingRuntime"


class TrainingRuntime(PackageRuntime):
    """A namespaced training runtime: only TrainJobs of its namespace may use it. The Python `pulumi_kubeflow_trainer.TrainingRuntime`."""

    _implementation = resources.TrainingRuntime
    _token = f"{PACKAGE}:index:TrainingRuntime"


class TrainJob(pulumi.ComponentResource):
    """A Kubeflow Trainer v2 TrainJob rendered client side: the Python `pulumi_kubeflow_trainer.TrainJob`, whose children are the JobSet, the PodGroup, the MPI SSH Secret and hostfile ConfigMap."""

    jobset_name: pulumi.Output[str]
    """The JobSet's name (the TrainJob's)."""
    namespace: pulumi.Output[str | None]
    """The TrainJob's namespace."""
    runtime_revision: pulumi.Output[str]
    """The revision of its runtime the TrainJob renders against (a digest of the runtime when the TrainJob was created or `runtimePin` last changed)."""
    ssh_public_key: pulumi.Output[str | None]
    """The MPI SSH public key (the private key stays a secret in the state); none for other runtimes."""
    conditions: pulumi.Output[list[dict[str, Any]]]
    """The TrainJob's conditions (Complete, Failed, Suspended, ...) from the live JobSet's status."""
    jobs_status: pulumi.Output[list[dict[str, Any]]]
    """The TrainJob's `status.jobsStatus`, from the live JobSet's status."""
    admission: pulumi.Output[dict[str, Any]]
    """Kueue's admission of the JobSet (`state`, `reason`, `message`, `clusterQueue`, `flavors`, ...)."""
    expected_children: pulumi.Output[list[dict[str, Any]]]
    """`controller: kubeflow`: the objects the controller is expected to create (else none)."""
    drift: pulumi.Output[list[str]]
    """`controller: kubeflow`: how the controller's live objects differ from `expectedChildren`."""

    def __init__(self, name: str, args: TrainJobArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__(f"{PACKAGE}:index:TrainJob", name, {}, opts)
        with reported_as_properties(args, TRAINJOB_PLACES):
            kwargs = trainjob_kwargs(args, PackageRuntime)
            self.trainjob = resources.TrainJob(name, **kwargs, opts=pulumi.ResourceOptions(parent=self))
        for output in TRAINJOB_OUTPUTS:
            setattr(self, output, getattr(self.trainjob, output))
        self.register_outputs({})


class RuntimeReferences(pulumi.runtime.ResourceModule):
    """Turns a reference to a runtime of this package (`runtime: ${torch}`) back into the component this process made for it: every component of a deployment is made in its package's one host process, before anything that refers to it (the engine orders them so)."""

    def __init__(self) -> None:
        self._made: dict[tuple[str, str], list[PackageRuntime]] = defaultdict(list)

    def add(self, runtime: PackageRuntime) -> None:
        self._made[(runtime.pulumi_resource_type, runtime.pulumi_resource_name)].append(runtime)

    def version(self) -> None:
        return None

    def construct(self, name: str, typ: str, urn: str) -> pulumi.Resource:
        made = self._made.get((typ, name), [])
        if len(made) == 1:
            return made[0]
        # None made (another package's type) or several of one name under different parents: left as a
        # plain reference, which conversion.py refuses under the input's path.
        return DependencyResource(urn)


references = RuntimeReferences()
