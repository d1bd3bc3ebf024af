"""The MPI SSH key pair as a Pulumi dynamic resource: generated once, kept in state as a secret.

Generating the key on every run would change the Secret on every `pulumi up`; a resource keeps it
stable until the TrainJob it belongs to is replaced.
"""

from __future__ import annotations

import uuid
from typing import Any

import pulumi
from pulumi.dynamic import CreateResult, DiffResult, Resource, ResourceProvider

PRIVATE_KEY = "private_key_pem"
PUBLIC_KEY = "public_key_openssh"


class MPISSHKeyProvider(ResourceProvider):
    def create(self, props: dict[str, Any]) -> CreateResult:
        from ..ssh import generate_key_pair

        pair = generate_key_pair()
        outs = {"trainjob": props["trainjob"], PRIVATE_KEY: pair.private_key_pem, PUBLIC_KEY: pair.public_key_openssh}
        return CreateResult(id_=uuid.uuid4().hex, outs=outs)

    def diff(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        # A new key only for another TrainJob (namespace/name); everything else keeps the key.
        replaces = ["trainjob"] if olds.get("trainjob") != news.get("trainjob") else []
        return DiffResult(changes=bool(replaces), replaces=replaces, delete_before_replace=True)


class MPISSHKey(Resource, module="kubeflow", name="MPISSHKey"):
    private_key_pem: pulumi.Output[str]
    public_key_openssh: pulumi.Output[str]

    def __init__(self, name: str, trainjob: pulumi.Input[str], opts: pulumi.ResourceOptions | None = None) -> None:
        secret = pulumi.ResourceOptions(additional_secret_outputs=[PRIVATE_KEY])
        props = {"trainjob": trainjob, PRIVATE_KEY: None, PUBLIC_KEY: None}
        super().__init__(MPISSHKeyProvider(), name, props, pulumi.ResourceOptions.merge(opts, secret))
