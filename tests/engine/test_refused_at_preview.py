"""Through the real engine: in the default mode, where the TrainJob component creates the JobSet, what
the API server would refuse in it stops `pulumi preview` with the field path, the value and the fix,
as a Pulumi error (no Python traceback), before anything is created (issue 22, part 4)."""

from __future__ import annotations

from typing import Any

import pulumi
import pulumi.automation as auto
import pytest

from pulumi_kubeflow_trainer import ClusterTrainingRuntime, TrainerArgs, TrainJob
from tests.engine.inline import InlineStack

pytestmark = pytest.mark.engine


@pytest.fixture(autouse=True)
def _no_kubeconfig(monkeypatch: pytest.MonkeyPatch) -> None:
    """Inline programs run in this process, where the SDK would hand $KUBECONFIG to the render provider."""
    monkeypatch.delenv("KUBECONFIG", raising=False)


def training(opts: pulumi.ResourceOptions, settings: dict[str, Any]) -> TrainJob:
    torch = ClusterTrainingRuntime.bundled("torch-distributed", opts=opts)
    trainer = TrainerArgs(image="registry.local/train:1", **settings)
    return TrainJob("train", runtime=torch, namespace="team", trainer=trainer, opts=opts)


def test_a_negative_node_count_and_a_gpu_without_a_limit_stop_the_preview(engine_env, engine_bin, tmp_path):
    stack = InlineStack("refused", training, engine_env, engine_bin, tmp_path)
    for settings, says in [
        ({"num_nodes": -1}, "spec.trainer.numNodes: Invalid value: -1: must be greater than or equal to 0"),
        ({"num_nodes": 2, "resources_per_node": {"requests": {"nvidia.com/gpu": 8}}},
         "spec.trainer.resourcesPerNode.limits: Required value: nvidia.com/gpu is requested (8) without a limit"),
    ]:
        stack.settings.clear()
        stack.settings.update(settings)
        with pytest.raises(auto.CommandError) as raised:
            stack.preview()
        said = str(raised.value)
        assert "kubeflow:trainer:TrainJob train: invalid input:" in said and says in said, said[-2000:]
        assert "Traceback" not in said
    stack.settings.clear()
    stack.settings.update({"num_nodes": 2, "resources_per_node": {"gpu": 8}})
    assert stack.preview().change_summary.get("create"), "fixed, the same program previews"
