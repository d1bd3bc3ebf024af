"""The differential check shared by the examples' test and the crafted jobs' test: a migrated job,
rendered, against the Pods v1's own code makes of the original (tools/oracle-v1)."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

from pulumi_kubeflow_trainer import TrainerWarning, render
from pulumi_kubeflow_trainer.api import constants as c
from pulumi_kubeflow_trainer.blueprints import bundled_runtime
from pulumi_kubeflow_trainer.migration import MigratedJob
from pulumi_kubeflow_trainer.migration.plan import node_host
from pulumi_kubeflow_trainer.ssh import seeded_key_generator
from pulumi_kubeflow_trainer.yamlio import load_documents

from .compare import Comparison
from .pods import pairs, v1_pods, v2_pods


def assert_makes_the_pods_v1_made(path: Path, job: MigratedJob, answers: dict[tuple[str, int], dict[str, Any]]) -> None:
    """Per v1 Pod and the v2 Pod of its rank: equal but where a loss is reported; the env as mapped;
    as many Pods; for MPI, the same hostfile."""
    answer = answers[document_of(job)]
    assert not answer.get("error"), f"v1 refuses {job.source}: {answer['error']}"
    jobset, manifests = rendered_jobset(job)
    comparison = Comparison(original(path, job))
    v1, v2 = v1_pods(answer), v2_pods(jobset)
    assert len(v1) == len(v2), f"v1 makes {len(v1)} Pods, v2 {len(v2)}"
    unexplained = []
    for old, new in pairs(job.kind, v1, v2):
        assert new is not None, f"no v2 Pod does the work of v1's {old.role}-{old.index}"
        unexplained += [difference for difference in comparison.pair(old, new) if not covered(difference, job)]
    assert not unexplained, f"differences migrate did not report: {sorted(set(unexplained))}"
    if job.kind == "MPIJob":
        assert_same_hostfile(answer, manifests, job.name)


def document_of(job: MigratedJob) -> tuple[str, int]:
    where = job.source.split(" (")[0]
    file, _, number = where.rpartition("#")
    return file, int(number)


def rendered_jobset(job: MigratedJob) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The JobSet (and all objects) render() makes of the migrated TrainJob, with its bundled runtime if it names one."""
    objects: list[Any] = list(job.manifests)
    if not any(manifest["kind"] == c.TRAINING_RUNTIME_KIND for manifest in job.manifests):
        objects.append(bundled_runtime(job.runtime))
    with warnings.catch_warnings():
        # activeDeadlineSeconds "has no effect once rendered": the TrainJob carries it for the controller all the same
        warnings.simplefilter("ignore", TrainerWarning)
        manifests = render(objects, key_generator=seeded_key_generator("migration"))
    return next(manifest for manifest in manifests if manifest["kind"] == "JobSet"), manifests


def covered(path: str, job: MigratedJob) -> bool:
    """A difference at `path` is one migrate() reported: at that path, or at a field containing it."""
    return any(path == loss.path or path.startswith(loss.path + ".") or path.startswith(loss.path + "[")
               for loss in job.losses)


def original(path: Path, job: MigratedJob) -> dict[str, Any]:
    documents = [document for document in load_documents(path.read_text()) if document is not None]
    return next(document for document in documents if document["metadata"]["name"] == job.name)  # type: ignore[no-any-return]


def assert_same_hostfile(answer: dict[str, Any], manifests: list[dict[str, Any]], name: str) -> None:
    """v1's hostfile (`<job>-worker-<i> slots=<n>`, a launcher with GPUs first) and v2's, host for host,
    slots for slots; v2 lists the launcher last (its jobs' order: the launcher depends on the nodes)."""
    v1_config = next(item for item in answer["configMaps"] if item["metadata"]["name"] == f"{name}-config")
    v2_config = next(item for item in manifests if item["kind"] == "ConfigMap" and item["metadata"]["name"] == f"{name}-mpi-hostfile")
    workers, launcher = [], []
    for line in v1_config["data"]["hostfile"].splitlines():
        host, slots = line.split(" ")
        if "-worker-" in host:
            workers.append(f"{node_host(name, int(host.rpartition('-')[2]))} {slots}")
        else:
            launcher.append(f"{name}-{c.LAUNCHER}-0-0.{name} {slots}")
    assert v2_config["data"]["hostfile"].splitlines() == workers + launcher
