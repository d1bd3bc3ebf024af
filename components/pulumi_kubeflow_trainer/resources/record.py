"""The TrainJob's update rules at preview time, through a dynamic resource that remembers its spec.

A component cannot see its previous inputs; a resource can: the engine hands `check` the old and new
inputs, and failures there stop `pulumi preview` with the property path, before anything changes.
"""

from __future__ import annotations

from typing import Any

import pulumi
from pulumi.dynamic import CheckFailure, CheckResult, CreateResult, DiffResult, Resource, ResourceProvider, UpdateResult

from ..framework.update_rules import runtime_patch_update_errors

RECORDED = ("runtimePatches", "suspend")


class TrainJobRecordProvider(ResourceProvider):
    def check(self, olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
        if not olds:
            return CheckResult(news, [])
        errors = runtime_patch_update_errors(olds, news, jobset=None)
        return CheckResult(news, [CheckFailure(error.path, error.message) for error in errors])

    def create(self, props: dict[str, Any]) -> CreateResult:
        return CreateResult(id_=str(props["trainjob"]), outs=props)

    def diff(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        changed = [key for key in (*RECORDED, "trainjob") if olds.get(key) != news.get(key)]
        return DiffResult(changes=bool(changed), replaces=["trainjob"] if "trainjob" in changed else [])

    def update(self, _id: str, _olds: dict[str, Any], news: dict[str, Any]) -> UpdateResult:
        return UpdateResult(outs=news)


class TrainJobRecord(Resource, module="kubeflow", name="TrainJobRecord"):
    def __init__(self, name: str, trainjob: pulumi.Input[str], spec: dict[str, Any], opts: pulumi.ResourceOptions | None = None) -> None:
        props = {"trainjob": trainjob, **{key: spec.get(key) for key in RECORDED}}
        super().__init__(TrainJobRecordProvider(), name, props, opts)
