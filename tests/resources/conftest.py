"""Pulumi mocks that record every registered resource."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

import pulumi
import pytest

KEY_TYPE = "pulumi-python:dynamic/kubeflow:GeneratedKey"
STASH_TYPE = "pulumi:index:Stash"
FAKE_PRIVATE_KEY = "-----BEGIN EC PRIVATE KEY-----\nfake\n-----END EC PRIVATE KEY-----\n"
FAKE_PUBLIC_KEY = "ecdsa-sha2-nistp521 AAAAfake\n"
FAKE_CURVE_SECRET, FAKE_CURVE_PUBLIC = "fake-curve-secret-z85", "fake-curve-public-z85"


@dataclass
class RecordingMocks(pulumi.runtime.Mocks):
    registered: list[pulumi.runtime.MockResourceArgs] = field(default_factory=list)
    live: dict[str, dict[str, Any]] = field(default_factory=dict)  # outputs a resource reports, by name
    uids: dict[str, str] = field(default_factory=dict)  # metadata.uid a resource reports, by name

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str, dict[str, Any]]:
        self.registered.append(args)
        outputs = dict(args.inputs)
        if args.typ == KEY_TYPE:  # a dynamic provider does not run under mocks
            fake = (FAKE_PRIVATE_KEY, FAKE_PUBLIC_KEY) if args.inputs["kind"] == "mpi-ssh" else (FAKE_CURVE_SECRET, FAKE_CURVE_PUBLIC)
            outputs |= {"private_key": fake[0], "public_key": fake[1]}
        if args.name in self.uids:  # the API server gives each object a uid (a JobSet's names its Workload)
            outputs["metadata"] = {**args.inputs["metadata"], "uid": self.uids[args.name]}
        if args.typ == STASH_TYPE:  # the engine's built-in provider: the output is the input it was created with
            outputs["output"] = args.inputs["input"]
        outputs |= self.live.get(args.name, {})
        return f"{args.name}-id", outputs

    def call(self, args: pulumi.runtime.MockCallArgs) -> dict[str, Any]:
        return {}

    def named(self, name: str) -> pulumi.runtime.MockResourceArgs:
        found = [args for args in self.registered if args.name == name]
        assert found, f"no resource named {name!r}; registered: {[args.name for args in self.registered]}"
        return found[-1]

    def types(self) -> dict[str, str]:
        return {args.name: args.typ for args in self.registered}


@pytest.fixture
def mocks() -> RecordingMocks:
    recording = RecordingMocks()
    asyncio.set_event_loop(asyncio.new_event_loop())  # a test before may have closed the loop (asyncio.run)
    pulumi.runtime.set_mocks(recording, project="project", stack="stack", preview=False)
    return recording


def settled(*components: pulumi.Resource) -> pulumi.Output[Any]:
    """An Output that resolves once the components and all their children are registered (a TrainJob
    registers its children once its runtime revision is read: `_registered`)."""
    registered = [getattr(component, "_registered", component.urn) for component in components]

    def children_urns(_: Any) -> pulumi.Output[Any]:
        urns = [component.urn for component in components]
        for component in components:
            urns += [child.urn for child in getattr(component, "resources", {}).values()]
        return pulumi.Output.all(*urns)

    return pulumi.Output.all(*registered).apply(children_urns)
