"""The TrainJob's update rules at preview time, from the component's own inputs.

A component cannot see its previous inputs, but the engine can: the TrainJob records what the rules
compare (`runtimePatches`, `suspend`, and which TrainJob it is) as its own input `record`, and a
`before_update` resource hook that also runs during preview gets the old and new inputs. A failure
there stops `pulumi preview` (and `pulumi up`) with the property path, before anything changes.
One hook serves every TrainJob of a program: no resource per TrainJob.
"""

from __future__ import annotations

from typing import Any

import pulumi
from pulumi.dynamic import ResourceProvider
from pulumi.output import Unknown

from ..framework.update_rules import runtime_patch_update_errors

RECORD = "record"
RECORDED = ("runtimeRef", "runtimePatches", "suspend")  # runtimeRef: which runtime, for policy packs (docs/policy.md)


def record_of(identity: pulumi.Input[str], spec: dict[str, Any]) -> dict[str, Any]:
    """What the rules compare: the TrainJob's `namespace/name` and the recorded spec fields."""
    return {"trainjob": identity, **{key: spec.get(key) for key in RECORDED}}


def update_errors(old: dict[str, Any] | None, new: dict[str, Any] | None) -> list[str]:
    """`path: message` lines for an update from `old` to `new`; none for a new or another TrainJob."""
    if not old or not new or old.get("trainjob") != new.get("trainjob"):
        return []
    return [str(error) for error in runtime_patch_update_errors(old, new, jobset=None)]


class UnknownValue(Exception):
    """A recorded value is not known yet (preview of an Output); `pulumi up` checks it once it is."""


async def plain(value: Any) -> Any:
    """A hook's property value without Outputs (secrets come as Outputs); UnknownValue if not known."""
    if isinstance(value, pulumi.Output):
        if not await value.is_known():
            raise UnknownValue
        value = await value.future()
    if isinstance(value, dict):
        return {key: await plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [await plain(item) for item in value]
    if isinstance(value, Unknown):
        raise UnknownValue
    return value


async def check_update(args: pulumi.ResourceHookArgs) -> None:
    """The hook: raises with every broken rule, one `path: message` line each."""
    try:
        old = await plain((args.old_inputs or {}).get(RECORD))
        new = await plain((args.new_inputs or {}).get(RECORD))
    except UnknownValue:
        return
    errors = update_errors(old, new)
    if errors:
        raise ValueError(f"TrainJob {args.name}: invalid update:\n" + "\n".join(errors))


HOOK_NAME = "kubeflow-trainer:trainjob-update-rules"
_SHARED_HOOK = "_kubeflow_trainer_update_rules_hook"


def update_rules_hook() -> pulumi.ResourceHook:
    """The `before_update` hook of every TrainJob component of the program, created once per program.

    It reads everything from the hook's arguments, so one serves all TrainJobs; it is kept on the
    program's root resource (the Stack), so it belongs to this program run and to no other. One hook
    per TrainJob would cost a registration round trip each (and the SDK starts a callback server per
    concurrent first registration).
    """
    root = pulumi.runtime.get_root_resource()
    hook = getattr(root, _SHARED_HOOK, None)
    if hook is None:
        hook = pulumi.ResourceHook(HOOK_NAME, check_update, pulumi.ResourceHookOptions(on_dry_run=True))
        if root is not None:  # None only under unit-test mocks
            setattr(root, _SHARED_HOOK, hook)
    return hook


class TrainJobRecordProvider(ResourceProvider):
    """The provider of the `<name>-record` resources that earlier versions made per TrainJob. The engine
    loads a dynamic resource's provider from the state by reference to delete it, so this class stays
    importable under its old name; deleting does nothing."""
