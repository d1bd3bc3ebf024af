"""Keys a TrainJob needs (the MPI SSH key pair, the Flux CURVE key pair) as a Pulumi dynamic resource:
generated once at deploy time, kept in the state as a secret.

Generating a key on every run would change its Secret on every `pulumi up`; a resource keeps it stable
until the TrainJob it belongs to is replaced. The provider is a plain class of this module, so the
engine stores a reference to it (`__provider`), not a copy of its code.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pulumi
from pulumi.dynamic import CreateResult, DiffResult, Resource, ResourceProvider

PRIVATE_KEY = "private_key"
PUBLIC_KEY = "public_key"
MPI_SSH = "mpi-ssh"  # ECDSA P-521: PEM private key, OpenSSH public key
FLUX_CURVE = "flux-curve"  # X25519: Z85 secret and public keys of a ZeroMQ CURVE certificate


def _mpi_ssh() -> tuple[str, str]:
    from ..ssh import generate_key_pair

    pair = generate_key_pair()
    return pair.private_key_pem, pair.public_key_openssh


def _flux_curve() -> tuple[str, str]:
    from ..plugins.flux.scripts import curve_key_pair
    from ..ssh import generate_curve_secret

    public, secret = curve_key_pair(generate_curve_secret())
    return secret, public


GENERATORS: dict[str, Callable[[], tuple[str, str]]] = {MPI_SSH: _mpi_ssh, FLUX_CURVE: _flux_curve}


class GeneratedKeyProvider(ResourceProvider):
    # The provider holds nothing secret (a class reference); the keys are secret outputs instead.
    serialize_as_secret_always = False

    def create(self, props: dict[str, Any]) -> CreateResult:
        private, public = GENERATORS[props["kind"]]()
        outs = {"kind": props["kind"], "trainjob": props["trainjob"], PRIVATE_KEY: private, PUBLIC_KEY: public}
        return CreateResult(id_=uuid.uuid4().hex, outs=outs)

    def diff(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        # A new key only for another TrainJob (namespace/name) or kind; everything else keeps the key.
        replaces = [key for key in ("kind", "trainjob") if olds.get(key) != news.get(key)]
        return DiffResult(changes=bool(replaces), replaces=replaces, delete_before_replace=True)


class GeneratedKey(Resource, module="kubeflow", name="GeneratedKey"):
    """A key pair of `kind` (`mpi-ssh`, `flux-curve`) for the TrainJob `trainjob` (namespace/name).

    Outputs `private_key` (secret) and `public_key`, set by the SDK from the properties (declared for
    type checkers only: the SDK would resolve class annotations on every registration).
    """

    if TYPE_CHECKING:
        private_key: pulumi.Output[str]
        public_key: pulumi.Output[str]

    def __init__(self, name: str, kind: str, trainjob: pulumi.Input[str], opts: pulumi.ResourceOptions | None = None) -> None:
        if kind not in GENERATORS:
            raise ValueError(f"kind: {kind!r} is not one of {', '.join(GENERATORS)}")
        secret = pulumi.ResourceOptions(additional_secret_outputs=[PRIVATE_KEY])
        props = {"kind": kind, "trainjob": trainjob, PRIVATE_KEY: None, PUBLIC_KEY: None}
        super().__init__(GeneratedKeyProvider(), name, props, pulumi.ResourceOptions.merge(opts, secret))
