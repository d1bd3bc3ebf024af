"""One program for every example stack; `kubeflow-trainer:example` picks which (see Pulumi.<stack>.yaml).

With no cluster configured (`kubernetes:kubeconfig` / `kubernetes:context` unset) the kubernetes
provider renders manifests into a directory instead of deploying: `pulumi up` works anywhere.
"""

from __future__ import annotations

import os
from pathlib import Path

import dev_stack
import llm_stack
import mpi_stack
import platform_stack
import pulumi
import pulumi_kubernetes as k8s

from pulumi_kubeflow_trainer import ClusterTrainingRuntime, RuntimeCatalog, TrainJob
from pulumi_kubeflow_trainer.blueprints import bundled_runtime

EXAMPLES = {"dev": dev_stack, "mpi": mpi_stack, "llm": llm_stack, "platform": platform_stack}

config = pulumi.Config()
example = config.get("example") or "dev"
if example not in EXAMPLES:
    raise pulumi.RunError(f"kubeflow-trainer:example is {example!r}; use one of {', '.join(EXAMPLES)}")


def cluster_provider() -> k8s.Provider:
    kubernetes = pulumi.Config("kubernetes")
    if kubernetes.get("kubeconfig") or kubernetes.get("context"):
        return k8s.Provider("cluster", kubeconfig=kubernetes.get("kubeconfig"), context=kubernetes.get("context"))
    # Relative to the checkout, not to stacks/ where the program runs.
    directory = config.get("renderDir") or str(Path(__file__).resolve().parents[1] / "out" / pulumi.get_stack())
    # The SDK would pass $KUBECONFIG to the provider, which render mode refuses; no cluster is used here.
    os.environ.pop("KUBECONFIG", None)
    pulumi.export("rendered_to", str(Path(directory).resolve()))
    return k8s.Provider("render", render_yaml_to_directory=directory)


provider = cluster_provider()
options = pulumi.ResourceOptions(provider=provider)
spec = EXAMPLES[example].build(namespace=config.get("namespace") or "default")
deploy = config.get_bool("deployRuntimes")
deploy = spec.get("deploy_runtimes", False) if deploy is None else deploy


def platform_runtime(name: str) -> ClusterTrainingRuntime:
    """A bundled runtime as the platform team keeps it; stack config `runtimeImage` stands for an image
    bump in code: every container of the runtime gets it (existing TrainJobs keep their revision)."""
    manifest = bundled_runtime(name).to_manifest()
    image = config.get("runtimeImage")
    for job in manifest["spec"]["template"]["spec"]["replicatedJobs"] if image else []:
        for container in job["template"]["spec"]["template"]["spec"].get("containers") or []:
            container["image"] = image
    return ClusterTrainingRuntime(name, manifest, deploy=deploy, opts=options)


runtimes = {name: platform_runtime(name) for name in spec["runtimes"]}
# The runtimes the TrainJobs below may name by spec.runtimeRef; a runtime only counts where it is passed.
catalog = RuntimeCatalog(runtimes.values())
if deploy:  # the platform stack: other stacks (and GitOps) read the runtimes from its outputs
    pulumi.export("runtimes", {name: runtime.manifest for name, runtime in runtimes.items()})
else:
    pulumi.export("runtimes", sorted(runtimes))


def resized_trainer(manifest: dict) -> dict | None:
    """Stack config `numNodes` resizes the example without editing code (None: as written)."""
    num_nodes = config.get_int("numNodes")
    return None if num_nodes is None else {**manifest["spec"]["trainer"], "numNodes": num_nodes}


for manifest in spec["trainjobs"]:
    name = manifest["metadata"]["name"]
    job = TrainJob(name, manifest, runtimes=catalog, trainer=resized_trainer(manifest), suspend=config.get_bool("suspend"),
                   run=config.get("run"), runtime_pin=config.get("runtimePin"), opts=options)
    pulumi.export(f"{name}_jobset", job.jobset_name)
    pulumi.export(f"{name}_conditions", job.conditions)
