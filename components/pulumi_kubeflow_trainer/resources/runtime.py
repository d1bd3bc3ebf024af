"""ClusterTrainingRuntime and TrainingRuntime components: blueprints versioned in code."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Literal, TypedDict

import pulumi

from ..api import constants as c
from ..api.jobset import JobSetTemplateSpec
from ..api.runtime import ClusterTrainingRuntime as ClusterRuntimeModel
from ..api.runtime import MLPolicy, PodGroupPolicy, Runtime
from ..api.runtime import TrainingRuntime as RuntimeModel
from ..framework.errors import TrainerError
from ..loading import parse
from . import controller_mode
from .children import observed_resource
from .errors import invalid_input
from .inputs import as_manifest, merge_into
from .placeholders import contains_output

if TYPE_CHECKING:
    from typing_extensions import Self, Unpack  # typing's own from Python 3.11

TYPE_PREFIX = "kubeflow:trainer"


class RuntimeOptions(TypedDict, total=False):
    """The keyword arguments of a runtime component, also taken by `from_file` and `bundled`."""

    ml_policy: MLPolicy | Mapping[str, Any] | None
    pod_group_policy: PodGroupPolicy | Mapping[str, Any] | None
    template: JobSetTemplateSpec | Mapping[str, Any] | None
    labels: Mapping[str, str] | None
    deploy: bool
    controller: Literal["kubeflow"] | None
    opts: pulumi.ResourceOptions | None


class RuntimeComponent(pulumi.ComponentResource):
    """A runtime in a Pulumi program. Declaring one registers nothing a TrainJob looks up: TrainJobs use
    it when it is passed to them (`runtime=`, or `runtimes=` / a `RuntimeCatalog`)."""

    kind: ClassVar[str]
    model_type: ClassVar[type[ClusterRuntimeModel] | type[RuntimeModel]]

    model: Runtime
    runtime_name: pulumi.Output[str]
    manifest: pulumi.Output[dict[str, Any]]

    def __init__(
        self,
        name: str,
        manifest: Runtime | Mapping[str, Any] | str | None = None,
        *,
        ml_policy: MLPolicy | Mapping[str, Any] | None = None,
        pod_group_policy: PodGroupPolicy | Mapping[str, Any] | None = None,
        template: JobSetTemplateSpec | Mapping[str, Any] | None = None,
        labels: Mapping[str, str] | None = None,
        deploy: bool = False,
        controller: Literal["kubeflow"] | None = None,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        """`manifest` is a dict, model or YAML text in the Kubernetes shape; keyword arguments override
        its parts. `deploy=True` also creates the runtime object in the cluster (for clusters that run
        the upstream Trainer controller or SDK); by default the runtime only feeds TrainJob components."""
        super().__init__(f"{TYPE_PREFIX}:{self.kind}", name, None, opts)
        try:
            self.model = self._model(name, manifest, ml_policy, pod_group_policy, template, labels)
        except TrainerError as error:
            raise invalid_input(self, error) from None
        rendered = self.model.to_manifest()
        if deploy or controller_mode.registers_runtime(controller):  # controller="kubeflow": controller_mode.py
            observed_resource(f"{name}-{self.kind.lower()}", rendered, pulumi.ResourceOptions(parent=self))
        self.runtime_name = pulumi.Output.from_input(self.model.name)
        self.manifest = pulumi.Output.from_input(rendered)
        self.register_outputs({"runtime_name": self.runtime_name, "manifest": self.manifest})

    def _model(
        self, name: str, manifest: object, ml_policy: object, pod_group_policy: object, template: object, labels: Mapping[str, str] | None,
    ) -> Runtime:
        document = as_manifest(manifest, f"{self.kind} {name}")
        document.setdefault("apiVersion", c.API_VERSION_UPSTREAM)
        document.setdefault("kind", self.kind)
        document.setdefault("metadata", {}).setdefault("name", name)
        merge_into(document, "metadata.labels", dict(labels) if labels is not None else None)
        merge_into(document, "spec.mlPolicy", as_manifest(ml_policy, "ml_policy") if ml_policy is not None else None)
        merge_into(document, "spec.podGroupPolicy", as_manifest(pod_group_policy, "pod_group_policy") if pod_group_policy is not None else None)
        merge_into(document, "spec.template", as_manifest(template, "template") if template is not None else None)
        if contains_output(document):
            raise invalid_input(
                self,
                f"{self.kind} {name}: runtimes are blueprints and must be plain values, not Pulumi Outputs; "
                "pass Outputs (images, namespaces, secrets) to the TrainJob instead",
            )
        model = parse(document, f"{self.kind} {name}")
        if not isinstance(model, self.model_type):
            raise invalid_input(self, f"{self.kind} {name}: the manifest is a {document.get('kind')}, not a {self.kind}")
        return model

    @classmethod
    def from_file(cls, path: str | Path, *, name: str | None = None, **kwargs: Unpack[RuntimeOptions]) -> Self:
        """A component from a runtime YAML file (such as the bundled `runtimes/*.yaml`)."""
        text = Path(path).read_text()
        return cls(name or Path(path).stem, text, **kwargs)

    @classmethod
    def bundled(cls, runtime_name: str, *, name: str | None = None, **kwargs: Unpack[RuntimeOptions]) -> Self:
        """A component from one of the runtimes bundled with this library, by `metadata.name`."""
        from ..blueprints import bundled_runtime

        try:
            runtime = bundled_runtime(runtime_name)
        except TrainerError as error:  # an unknown name: a Pulumi error that lists the bundled runtimes
            raise invalid_input((f"{TYPE_PREFIX}:{cls.kind}", name or runtime_name), error) from None
        return cls(name or runtime_name, runtime.to_manifest(), **kwargs)


class ClusterTrainingRuntime(RuntimeComponent):
    """A cluster-scoped runtime: TrainJobs of every namespace may use it."""

    kind = c.CLUSTER_TRAINING_RUNTIME_KIND
    model_type = ClusterRuntimeModel


class TrainingRuntime(RuntimeComponent):
    """A namespaced runtime: only TrainJobs of its namespace may use it."""

    kind = c.TRAINING_RUNTIME_KIND
    model_type = RuntimeModel
