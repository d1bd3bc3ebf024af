"""The TrainJob's update rules, checked by the component's before-update hook from its old and new
`record` input: the upstream runtime-patch update rules, at preview time."""

import asyncio
from dataclasses import dataclass

import pulumi
import pytest
from pulumi.output import UNKNOWN

from pulumi_kubeflow_trainer.resources.record import check_update, record_of, update_errors, update_rules_hook

KUEUE = [{"manager": "kueue.x-k8s.io/manager", "trainingRuntimeSpec": {"template": {"metadata": {"labels": {"a": "1"}}}}}]
KUEUE_CHANGED = [{"manager": "kueue.x-k8s.io/manager", "trainingRuntimeSpec": {"template": {"metadata": {"labels": {"a": "2"}}}}}]
RUNNING, SUSPENDED = {"runtimePatches": KUEUE, "suspend": False}, {"runtimePatches": KUEUE, "suspend": True}


def record(spec: dict, trainjob: str = "team/job") -> dict:
    return record_of(trainjob, spec)


@dataclass(frozen=True)
class Case:
    name: str
    old: dict | None
    new: dict
    want_failure: str | None


CASES = [
    Case("creating a TrainJob checks nothing", None, record({"runtimePatches": KUEUE, "suspend": False}), None),
    Case("unchanged patches on a running job pass", record(RUNNING), record(RUNNING), None),
    Case(
        "changing patches of a running job fails",
        record(RUNNING),
        record({"runtimePatches": KUEUE_CHANGED, "suspend": False}),
        "spec.runtimePatches: Forbidden: RuntimePatches can only be modified when the TrainJob is suspended",
    ),
    Case("changing patches while suspending passes", record(RUNNING), record({"runtimePatches": KUEUE_CHANGED, "suspend": True}), None),
    Case("changing patches while resuming passes", record(SUSPENDED), record({"runtimePatches": KUEUE_CHANGED, "suspend": False}), None),
    Case(
        "a patch's time alone is no change",
        record(RUNNING),
        record({"runtimePatches": [{**KUEUE[0], "time": "2026-01-01T00:00:00Z"}], "suspend": False}),
        None,
    ),
    Case("another TrainJob (namespace/name) is a new TrainJob", record(RUNNING), record({"runtimePatches": KUEUE_CHANGED}, "team/other"), None),
    Case("a component from before records existed checks nothing", {}, record({"runtimePatches": KUEUE_CHANGED}), None),
]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_update_errors(case: Case) -> None:
    errors = update_errors(case.old, case.new)
    if case.want_failure is None:
        assert errors == []
    else:
        assert len(errors) == 1 and errors[0].startswith(case.want_failure), errors


def hook_args(old: object, new: object) -> pulumi.ResourceHookArgs:
    return pulumi.ResourceHookArgs("urn", "id", "train", "kubeflow:trainer:TrainJob", new_inputs={"record": new}, old_inputs={"record": old})


def test_the_hook_fails_the_update_with_the_property_path() -> None:
    args = hook_args(record(RUNNING), record({"runtimePatches": KUEUE_CHANGED, "suspend": False}))
    with pytest.raises(ValueError, match=r"TrainJob train: invalid update:\nspec\.runtimePatches: Forbidden"):
        asyncio.run(check_update(args))


def test_the_hook_compares_secret_values_by_value() -> None:
    async def run() -> None:
        secret_patches = [{**KUEUE[0], "trainingRuntimeSpec": pulumi.Output.secret(KUEUE[0]["trainingRuntimeSpec"])}]
        await check_update(hook_args(record(RUNNING), record({"runtimePatches": secret_patches, "suspend": False})))

    asyncio.run(run())


def test_an_unknown_value_at_preview_is_left_to_pulumi_up() -> None:
    asyncio.run(check_update(hook_args(record(RUNNING), record({"runtimePatches": [UNKNOWN], "suspend": False}))))


def test_one_hook_serves_every_trainjob_of_a_program_and_runs_during_preview(mocks) -> None:
    @pulumi.runtime.test
    def program():
        hook = update_rules_hook()
        assert hook.opts is not None and hook.opts.on_dry_run
        root = pulumi.runtime.get_root_resource()
        assert root is None or update_rules_hook() is hook

    program()


@pytest.mark.parametrize("provider", ["record.TrainJobRecordProvider", "sshkey.MPISSHKeyProvider"])
def test_providers_of_earlier_versions_still_load_so_their_resources_can_be_deleted(provider) -> None:
    """The state of a stack deployed by an earlier version references these classes by name."""
    import base64
    import importlib

    import dill

    module, name = provider.split(".")
    cls = getattr(importlib.import_module(f"pulumi_kubeflow_trainer.resources.{module}"), name)
    from pulumi.dynamic.dynamic import serialize_provider

    loaded = dill.loads(base64.b64decode(serialize_provider(cls())))
    assert type(loaded).__qualname__ == name and loaded.delete("id", {}) is None
