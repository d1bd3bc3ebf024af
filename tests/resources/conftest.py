"""Pulumi mocks that record every registered resource."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pulumi
import pytest

from pulumi_kubeflow_trainer.resources import forget_declared_runtimes

SSH_KEY_TYPE = "pulumi-python:dynamic/kubeflow:MPISSHKey"
FAKE_PRIVATE_KEY = "-----BEGIN EC PRIVATE KEY-----\nfake\n-----END EC PRIVATE KEY-----\n"
FAKE_PUBLIC_KEY = "ecdsa-sha2-nistp521 AAAAfake\n"


@dataclass
class RecordingMocks(pulumi.runtime.Mocks):
    registered: list[pulumi.runtime.MockResourceArgs] = field(default_factory=list)

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str, dict[str, Any]]:
        self.registered.append(args)
        outputs = dict(args.inputs)
        if args.typ == SSH_KEY_TYPE:  # a dynamic provider does not run under mocks
            outputs |= {"private_key_pem": FAKE_PRIVATE_KEY, "public_key_openssh": FAKE_PUBLIC_KEY}
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
    pulumi.runtime.set_mocks(recording, project="project", stack="stack", preview=False)
    forget_declared_runtimes()
    yield recording
    forget_declared_runtimes()


def settled(*components: pulumi.Resource) -> pulumi.Output[Any]:
    """An Output that resolves once the components and all their children are registered."""
    urns = [component.urn for component in components]
    for component in components:
        urns += [child.urn for child in getattr(component, "resources", {}).values()]
    return pulumi.Output.all(*urns)
