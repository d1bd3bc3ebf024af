"""resources/cluster_access.py under Pulumi mocks: the kubeconfig settings of the kubernetes provider
a TrainJob's JobSet is deployed with (given, inherited, or the default provider's stack config), as
the Workload wait hook, the `admission` output and the timeout message read the cluster."""

from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s
import pytest

from pulumi_kubeflow_trainer import TrainJob
from pulumi_kubeflow_trainer.resources.cluster_access import provider_of, provider_settings
from pulumi_kubeflow_trainer.watch.kubeclient import KubeconfigSettings

from .conftest import settled

CONTENTS = "apiVersion: v1\nkind: Config\ncurrent-context: gpu\n"


def settings_of(job: TrainJob) -> pulumi.Output[KubeconfigSettings]:
    """The settings of the JobSet's provider, once the TrainJob registered its children."""
    return settled(job).apply(lambda _: provider_settings(job.resources["mnist-jobset"]))


def provider_of_jobset(job: TrainJob) -> pulumi.Output[pulumi.ProviderResource | None]:
    return settled(job).apply(lambda _: provider_of(job.resources["mnist-jobset"]))


@pytest.mark.parametrize(("options", "expected"), [
    (lambda p: pulumi.ResourceOptions(provider=p), KubeconfigSettings(kubeconfig="/work/gpu.kubeconfig", context="gpu")),
    (lambda p: pulumi.ResourceOptions(providers=[p]), KubeconfigSettings(kubeconfig="/work/gpu.kubeconfig", context="gpu")),
], ids=["a provider given to the TrainJob", "a providers list given to the TrainJob"])
@pulumi.runtime.test
def test_the_jobset_s_provider_settings_are_the_provider_s(mocks, options, expected):
    provider = k8s.Provider("gpu", kubeconfig="/work/gpu.kubeconfig", context="gpu")
    job = TrainJob("mnist", runtime_ref="torch-distributed", queue_name="team-queue", opts=options(provider))
    return pulumi.Output.all(settings_of(job), provider_of_jobset(job)).apply(
        lambda values: _equal(values[0], expected) or _same(values[1], provider))


@pulumi.runtime.test
def test_a_parent_s_provider_is_inherited(mocks):
    provider = k8s.Provider("gpu", kubeconfig=CONTENTS, cluster="gpu-cluster")
    parent = pulumi.ComponentResource("test:index:Platform", "platform", opts=pulumi.ResourceOptions(providers=[provider]))
    job = TrainJob("mnist", runtime_ref="torch-distributed", queue_name="team-queue", opts=pulumi.ResourceOptions(parent=parent))
    expected = KubeconfigSettings(kubeconfig=CONTENTS, cluster="gpu-cluster")
    return pulumi.Output.all(settings_of(job), settled(job)).apply(lambda values: _equal(values[0], expected))


@pulumi.runtime.test
def test_without_a_provider_the_stack_config_of_the_default_provider_is_used(mocks, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("KUBECONFIG", raising=False)
    pulumi.runtime.set_config("kubernetes:context", "staging")
    try:
        job = TrainJob("mnist", runtime_ref="torch-distributed", queue_name="team-queue")
        settings = settings_of(job)
    finally:
        pulumi.runtime.set_all_config({})
    return pulumi.Output.all(settings, provider_of_jobset(job)).apply(
        lambda values: _equal(values[0], KubeconfigSettings(context="staging")) or _same(values[1], None))


def _equal(found: KubeconfigSettings, expected: KubeconfigSettings) -> None:
    assert found == expected


def _same(found: object, expected: object) -> None:
    assert found is expected
