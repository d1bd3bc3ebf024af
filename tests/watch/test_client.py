"""watch/client.py: TrainerClient has the Kubeflow SDK's read methods with its argument names, and its
types the SDK's fields (recorded from kubeflow 0.5.0's kubeflow.trainer: the SDK is not a dependency)."""

from __future__ import annotations

import dataclasses
import inspect

import pytest
import yaml

from pulumi_kubeflow_trainer.watch import TrainerClient, types

from .objects import RUNNING, finished, jobset, listed, pod, terminated
from .recorded_api import kubeconfig_for, serving
from .test_trainjobs import JOBSETS, TRAINJOBS, pods_path

# kubeflow 0.5.0: TrainerClient's read methods and their parameters; the fields of kubeflow.trainer.types.
SDK_METHODS = {
    "list_runtimes": [], "get_runtime": ["name"], "list_jobs": ["runtime"], "get_job": ["name"],
    "get_job_logs": ["name", "step", "follow"], "get_job_events": ["name"],
    "wait_for_job_status": ["name", "status", "timeout", "polling_interval", "callbacks"],
}
SDK_FIELDS = {
    "TrainJob": ["name", "runtime", "steps", "num_nodes", "creation_timestamp", "status"],
    "Step": ["name", "status", "pod_name", "device", "device_count"],
    "Runtime": ["name", "trainer", "kind", "pretrained_model"],
    "RuntimeTrainer": ["trainer_type", "framework", "image", "num_nodes", "device", "device_count"],
    "Event": ["involved_object_kind", "involved_object_name", "message", "reason", "event_time"],
}


@pytest.mark.parametrize(("method", "parameters"), SDK_METHODS.items())
def test_the_read_methods_take_the_sdk_s_arguments(method, parameters):
    assert list(inspect.signature(getattr(TrainerClient, method)).parameters)[1:] == parameters


@pytest.mark.parametrize(("name", "fields"), SDK_FIELDS.items())
def test_the_types_have_the_sdk_s_fields_first(name, fields):
    assert [field.name for field in dataclasses.fields(getattr(types, name))][: len(fields)] == fields


def client_for(url: str) -> TrainerClient:
    return TrainerClient(kubeconfig=yaml.safe_dump(kubeconfig_for(url)))


def test_list_and_get_jobs_as_the_sdk_returns_them():
    served = {JOBSETS: listed(jobset("mnist", status=RUNNING)), TRAINJOBS: listed(),
              f"{JOBSETS}/mnist": (200, jobset("mnist", status=RUNNING)),
              pods_path("mnist"): listed(pod("mnist", "node", 0), pod("mnist", "node", 1))}
    with serving(served) as server:
        client = client_for(server.url)
        jobs = client.list_jobs()
        job = client.get_job("mnist")
    assert [(j.name, j.status, j.num_nodes, j.namespace, j.mode) for j in jobs] == [("mnist", "Running", 2, "team-a", "rendered")]
    assert [(step.name, step.status, step.pod_name) for step in job.steps] == [
        ("node-0", "Running", "mnist-node-0-0-x"), ("node-1", "Running", "mnist-node-0-1-x")]
    assert (job.runtime.name, job.runtime.trainer.image) == ("Unknown", "pytorch/pytorch:2")


@pytest.mark.parametrize(("status", "wanted", "raised"), [
    (finished("Completed", "AllJobsCompleted", "done"), None, None),
    (finished("Failed", "FailedJobs", "jobset failed"), None, RuntimeError),
    (finished("Failed", "FailedJobs", "jobset failed"), {"Failed"}, None),
    (RUNNING, None, TimeoutError),
], ids=["Complete is returned", "Failed raises RuntimeError naming the cause", "Failed is returned when asked for",
        "a timeout raises TimeoutError"])
def test_wait_for_job_status_as_the_sdk_waits(status, wanted, raised):
    oom = pod("j", "node", 0, phase="Failed", statuses=[terminated("OOMKilled", 137)])
    with serving({f"{JOBSETS}/j": (200, jobset("j", status=status)), pods_path("j"): listed(oom)}) as server:
        client = client_for(server.url)
        if raised is None:
            assert client.wait_for_job_status("j", status=wanted, timeout=2, polling_interval=1).status in (wanted or {"Complete"})
        else:
            with pytest.raises(raised, match="OOMKilled" if raised is RuntimeError else "Timeout waiting for TrainJob j"):
                client.wait_for_job_status("j", timeout=2, polling_interval=1)


def test_wait_refuses_what_the_sdk_refuses():
    with pytest.raises(ValueError, match="must be a subset"):
        TrainerClient.wait_for_job_status(object.__new__(TrainerClient), "j", status={"Done"})  # type: ignore[arg-type]
