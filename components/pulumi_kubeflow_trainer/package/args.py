"""The argument types of the package's components, from which the host infers the package schema.

Written for `pulumi.provider.experimental`'s analyzer, which reads these annotations at run time (so no
`from __future__ import annotations` here): TypedDicts (keys not required, `total=False`), the docstring
under each key becomes its schema description, `pulumi.Input[...]` marks where a value may come from
another resource (an Output), a bare type is a plain value. Unions are not in the schema: a value that
Python takes in several shapes (a runtime as a component or a manifest) is `Any` here and its
docstring says which shapes. Schema names are camelCase (`num_nodes` is `numNodes`), and type names
carry no `Args` suffix: SDK generators add it.
"""

from enum import Enum
from typing import Any, TypedDict

import pulumi


class Trainer(TypedDict, total=False):
    """`spec.trainer`: what the trainer nodes run. Replaces the manifest's `spec.trainer` when given."""

    image: pulumi.Input[str]
    """The trainer container's image (default: the runtime's)."""
    command: list[pulumi.Input[str]]
    """The trainer container's command."""
    args: list[pulumi.Input[str]]
    """The trainer container's arguments."""
    env: dict[str, pulumi.Input[str]]
    """Environment variables of the trainer container, `NAME: value` (for `valueFrom`, write the TrainJob's `spec.trainer.env` list in `manifest` instead of `trainer`)."""
    num_nodes: int
    """How many nodes train (a plain number: it decides the JobSet's shape)."""
    num_proc_per_node: int
    """Processes per node (default: the runtime's)."""
    resources_per_node: dict[str, Any]
    """The compute resources of each node, as a container's `resources` (`limits`, `requests`)."""


class DatasetInitializer(TypedDict, total=False):
    """`spec.initializer.dataset`: where the dataset comes from (`s3://`, `hf://`)."""

    storage_uri: pulumi.Input[str]
    """The dataset's URI."""
    env: dict[str, pulumi.Input[str]]
    """Environment variables of the initializer container, `NAME: value`."""
    secret_ref: pulumi.Input[str]
    """The name of a Secret with credentials, passed to the initializer as `envFrom`."""


class ModelInitializer(DatasetInitializer, total=False):
    """`spec.initializer.model`: where the pretrained model comes from (`s3://`, `hf://`)."""


class WaitFor(str, Enum):
    """What `pulumi up` waits for once the JobSet is created."""

    NONE = "none"
    """Return once the JobSet is created."""
    COMPLETED = "completed"
    """Wait (up to `waitTimeoutSeconds`) until the JobSet finishes; fail with its reason if it failed."""


class TrainJobArgs(TypedDict, total=False):
    """The inputs of `kubeflow-trainer:index:TrainJob` (the Python component's keyword arguments)."""

    manifest: dict[str, pulumi.Input[Any]]
    """The TrainJob as an object in the Kubernetes shape (`apiVersion`, `kind`, `metadata`, `spec`); the other inputs override its parts. Leaf values may come from other resources."""
    manifest_yaml: str
    """The TrainJob as YAML text (`fn::readFile: trainjob.yaml`), instead of `manifest`."""
    runtime: Any
    """The runtime to render against: a `ClusterTrainingRuntime` or `TrainingRuntime` of this package (`${torch}`), or a runtime manifest object. Without it, `runtimeRef` (or the manifest's `spec.runtimeRef`) is looked up in `runtimes`, then among the runtimes bundled with the library."""
    runtimes: list[Any]
    """The runtimes `runtimeRef` may name: runtime components of this package or runtime manifests."""
    runtime_ref: str
    """The name of the runtime (`spec.runtimeRef.name`), looked up in `runtimes`, then the bundled ones."""
    trainer: Trainer
    """What the trainer nodes run."""
    dataset: DatasetInitializer
    """The dataset initializer."""
    model: ModelInitializer
    """The model initializer."""
    runtime_patches: list[dict[str, Any]]
    """`spec.runtimePatches`: patches of the runtime's template, in the Kubernetes shape (`manager`, `trainingRuntimeSpec`)."""
    job_name: str
    """The TrainJob's (and its JobSet's) name; default: the resource name."""
    namespace: pulumi.Input[str]
    """The TrainJob's namespace (default: the manifest's, else `default`)."""
    suspend: bool
    """Suspend (true) or resume (false) the TrainJob; unset: as the manifest says."""
    managed_by: str
    """`spec.managedBy`: `kueue.x-k8s.io/multikueue` lets MultiKueue dispatch the JobSet."""
    active_deadline_seconds: int
    """`spec.activeDeadlineSeconds` of the TrainJob."""
    queue_name: str
    """A Kueue LocalQueue: set as the `kueue.x-k8s.io/queue-name` label on the JobSet."""
    wait_for: WaitFor
    """What `pulumi up` waits for: `none` (default) or `completed`."""
    wait_timeout_seconds: int
    """How long `waitFor: completed` waits (default: one day)."""
    runtime_snapshot: bool
    """Also emit the runtime snapshot ConfigMap, as upstream does (off: the stack's state keeps the runtime)."""
    controller: str
    """`kubeflow`: create the TrainJob object for the upstream Trainer controller instead of rendering it."""
    run: str
    """Re-runs the TrainJob when changed (one replace of its JobSet, and of its PodGroup if it has one)."""
    runtime_pin: str
    """Moves the TrainJob to its runtime's current revision when changed (it runs again)."""


class RuntimeArgs(TypedDict, total=False):
    """The inputs of `ClusterTrainingRuntime` and `TrainingRuntime` (the Python components' arguments)."""

    manifest: dict[str, Any]
    """The runtime as an object in the Kubernetes shape; the other inputs override its parts. Runtimes are blueprints: plain values only, no values from other resources."""
    manifest_yaml: str
    """The runtime as YAML text (`fn::readFile: runtime.yaml`: the Python components' `.from_file(path)`), instead of `manifest`."""
    bundled: str
    """The `metadata.name` of a runtime bundled with the library (`torch-distributed`, ...), used as the manifest (the Python components' `.bundled(name)`); instead of `manifest`."""
    ml_policy: dict[str, Any]
    """`spec.mlPolicy`."""
    pod_group_policy: dict[str, Any]
    """`spec.podGroupPolicy`."""
    template: dict[str, Any]
    """`spec.template`: the JobSet template."""
    labels: dict[str, str]
    """`metadata.labels`."""
    deploy: bool
    """Also create the runtime object in the cluster (for clusters that run the upstream controller)."""
    controller: str
    """`kubeflow`: the cluster runs the upstream Trainer controller, which reads the runtime object: it is created."""
