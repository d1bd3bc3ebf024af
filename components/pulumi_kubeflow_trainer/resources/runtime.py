"""ClusterTrainingRuntime and TrainingRuntime components: blueprints versioned in code."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import pulumi

from ..api import constants as c
from ..api.runtime import ClusterTrainingRuntime as ClusterRuntimeModel
from ..api.runtime import Runtime
from ..api.runtime import TrainingRuntime as RuntimeModel
from ..framework.compiled import runtime_key as runtime_key  # the one key a runtimeRef finds runtimes by (catalog)
from ..framework.errors import TrainerError
from ..loading import parse
from .children import observed_resource
from .errors import invalid_input
from .inputs import as_manifest, merge_into
from .placeholders import contains_output

TYPE_PREFIX = "kubeflow:trainer"


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
        manifest: Any = None,
        *,
        ml_policy: Any = None,
        pod_group_policy: Any = None,
        template: Any = None,
        labels: dict[str, str] | None = None,
        deploy: bool = False,
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
        if deploy:
            observed_resource(f"{name}-{self.kind.lower()}", rendered, pulumi.ResourceOptions(parent=self))
        self.runtime_name = pulumi.Output.from_input(self.model.name)
        self.manifest = pulumi.Output.from_input(rendered)
        self.register_outputs({"runtime_name": self.runtime_name, "manifest": self.manifest})

    def _model(self, name: str, manifest: Any, ml_policy: Any, pod_group_policy: Any, template: Any, labels: Any) -> Runtime:
        document = as_manifest(manifest, f"{self.kind} {name}")
        document.setdefault("apiVersion", c.API_VERSION_UPSTREAM)
        document.setdefault("kind", self.kind)
        document.setdefault("metadata", {}).setdefault("name", name)
        merge_into(document, "metadata.labels", labels)
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
    def from_file(cls, path: str | Path, *, name: str | None = None, **kwargs: Any) -> RuntimeComponent:
        """A component from a runtime YAML file (such as the bundled `runtimes/*.yaml`)."""
        text = Path(path).read_text()
        return cls(name or Path(path).stem, text, **kwargs)

    @classmethod
    def bundled(cls, runtime_name: str, *, name: str | None = None, **kwargs: Any) -> RuntimeComponent:
        """A component from one of the runtimes bundled with this library, by `metadata.name`."""
        from ..blueprints import bundled_runtime

        return cls(name or runtime_name, bundled_runtime(runtime_name).to_manifest(), **kwargs)


class ClusterTrainingRuntime(RuntimeComponent):
    """A cluster-scoped runtime: TrainJobs of every namespace may use it."""

    kind = c.CLUSTER_TRAINING_RUNTIME_KIND
    model_type = ClusterRuntimeModel


class TrainingRuntime(RuntimeComponent):
    """A namespaced runtime: only TrainJobs of its namespace may use it."""

    kind = c.TRAINING_RUNTIME_KIND
    model_type = RuntimeModel
