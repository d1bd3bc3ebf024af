"""Every example stack through the real engine, on the embedded default (render to a directory):
preview, up, no-change preview, refresh, secrets encrypted at rest, replace and in-place updates,
destroy."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pulumi.automation as auto
import pytest

from tests.toolchain import example_stack

pytestmark = pytest.mark.engine
PROJECT = "kubeflow-trainer"
PRIVATE_KEY_MARKERS = ("BEGIN EC PRIVATE KEY", "LS0tLS1CRUdJTiBFQyBQUklWQVRFIEtFWS0tLS0t")


@dataclass(frozen=True)
class Example:
    stack: str
    jobset: str | None  # the TrainJob component name, None for runtimes only
    resize: str  # what a numNodes change does: "replace", or the error it must give


EXAMPLES = [
    Example("dev", "torch-quickstart", "replace"),
    Example("mpi", "deepspeed-t5", "replace"),
    Example("llm", "llama-lora", "must be 1 for llama3_2/1B model"),
    Example("platform", None, ""),
]


class ExampleStack:
    def __init__(self, example: Example, env: dict[str, str], bin_dir: Path, root: Path) -> None:
        self.render_dir = root / "out"
        self.state_dir = Path(env["PULUMI_BACKEND_URL"].removeprefix("file://"))
        self.log = (root / "pulumi.log").open("w")
        self.stack = example_stack(example.stack, env, bin_dir, root)
        self.stack.set_config("renderDir", auto.ConfigValue(str(self.render_dir)))

    def out(self, line: str) -> None:
        self.log.write(line + "\n")

    def ops(self) -> tuple[dict[str, int], list[tuple[str, str]]]:
        """A preview's change summary and its (op, urn) steps."""
        steps: list[tuple[str, str]] = []

        def record(event: auto.EngineEvent) -> None:
            if event.resource_pre_event:
                metadata = event.resource_pre_event.metadata
                steps.append((str(getattr(metadata.op, "value", metadata.op)), metadata.urn))

        result = self.stack.preview(on_output=self.out, on_event=record, color="never")
        return dict(result.change_summary), steps

    def refresh(self) -> auto.RefreshResult:
        """Refresh in render mode: there is no cluster to read, so the provider is told to keep the state
        it has (the provider reads this setting only when it starts)."""
        env = self.stack.workspace.env_vars
        env["PULUMI_K8S_SKIP_UPDATE_UNREACHABLE"] = "true"
        try:
            return self.stack.refresh(on_output=self.out, color="never")
        finally:
            del env["PULUMI_K8S_SKIP_UPDATE_UNREACHABLE"]

    def manifests(self) -> list[Path]:
        return sorted((self.render_dir / "1-manifest").glob("*.yaml")) if self.render_dir.exists() else []

    def state_text(self) -> str:
        return "".join(path.read_text() for path in self.state_dir.rglob("*.json"))


def changes(summary: dict[str, int]) -> dict[str, int]:
    return {op: count for op, count in summary.items() if op != "same" and count}


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda example: f"the {example.stack} stack")
def test_example_stack_lifecycle(example: Example, engine_env, engine_bin, tmp_path):
    stack = ExampleStack(example, engine_env, engine_bin, tmp_path)

    summary, _ = stack.ops()
    assert summary.get("create", 0) >= 3, f"a first preview creates the resources: {summary}"

    result = stack.stack.up(on_output=stack.out, color="never")
    assert result.summary.result == "succeeded"
    assert stack.manifests(), "up renders the manifests into the render directory"

    summary, _ = stack.ops()
    assert changes(summary) == {}, f"a second preview shows no changes: {summary}"

    refreshed = stack.refresh()
    assert changes(refreshed.summary.resource_changes or {}) == {}, "refresh finds nothing changed"

    state = stack.state_text()
    for marker in PRIVATE_KEY_MARKERS:
        assert marker not in state, "no private key in plaintext in the state"

    if example.jobset is not None:
        _resize_and_suspend(stack, example)

    stack.stack.destroy(on_output=stack.out, color="never")
    assert stack.manifests() == [], "destroy removes every rendered manifest"
    assert stack.stack.export_stack().deployment.get("resources") in (None, []), "destroy leaves no resources"


def _resize_and_suspend(stack: ExampleStack, example: Example) -> None:
    jobset_urn = f"kubernetes:jobset.x-k8s.io/v1alpha2:JobSet::{example.jobset}-jobset"
    stack.stack.set_config("numNodes", auto.ConfigValue("5"))
    if example.resize == "replace":
        _, steps = stack.ops()
        jobset_ops = {op for op, urn in steps if urn.endswith(jobset_urn)}
        assert jobset_ops & {"replace", "create-replacement", "delete-replaced"}, f"numNodes replaces the JobSet: {steps}"
    else:
        with pytest.raises(auto.CommandError, match=example.resize):
            stack.ops()
    stack.stack.remove_config("numNodes")

    stack.stack.set_config("suspend", auto.ConfigValue("true"))
    _, steps = stack.ops()
    jobset_ops = {op for op, urn in steps if urn.endswith(jobset_urn)}
    assert jobset_ops == {"update"}, f"suspend is an in-place update of the JobSet: {steps}"
    stack.stack.remove_config("suspend")
    if example.resize == "replace":
        _bump_rerun_and_move(stack, jobset_urn)


def _bump_rerun_and_move(stack: ExampleStack, jobset_urn: str) -> None:
    """The platform-team walk-through of docs/platform-teams.md: an image bump of the runtime leaves the
    TrainJob alone, `run` re-runs it, `runtimePin` moves it to the new image."""
    stack.stack.set_config("runtimeImage", auto.ConfigValue("registry.local/pytorch:next"))
    summary, steps = stack.ops()
    assert changes(summary) == {}, f"an image bump of the runtime changes no TrainJob: {steps}"
    for key, value in (("run", "2"), ("runtimePin", "2026-12")):
        stack.stack.set_config(key, auto.ConfigValue(value))
        _, steps = stack.ops()
        assert {op for op, urn in steps if urn.endswith(jobset_urn)} >= {"replace"}, f"{key} replaces the JobSet: {steps}"
        stack.stack.remove_config(key)
    stack.stack.remove_config("runtimeImage")
