"""SSH key pairs for MPI: ECDSA P-521, encoded as the controller encodes them."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

# Any scalar in [1, 2**520) is a valid P-521 private key: the group order is just above 2**520.
_SCALAR_BOUND = 2**520


@dataclass(frozen=True)
class SSHKeyPair:
    private_key_pem: str  # PEM "EC PRIVATE KEY" (SEC 1), as Go's x509.MarshalECPrivateKey writes it
    public_key_openssh: str  # an authorized_keys line with its newline, as ssh.MarshalAuthorizedKey writes it

    def __repr__(self) -> str:  # keep the private key out of logs and tracebacks
        return f"SSHKeyPair(public_key_openssh={self.public_key_openssh.strip()!r}, private_key_pem=<secret>)"


KeyGenerator = Callable[[str], SSHKeyPair]
"""Called with the TrainJob's `namespace/name`; returns the key pair for its MPI Secret."""


def _encode(private_key: ec.EllipticCurvePrivateKey) -> SSHKeyPair:
    private_pem = private_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL, serialization.NoEncryption()
    ).decode()
    public = private_key.public_key().public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH)
    return SSHKeyPair(private_pem, public.decode() + "\n")


def generate_key_pair(trainjob_key: str = "") -> SSHKeyPair:
    """A fresh random key pair, what the controller creates once per TrainJob."""
    return _encode(ec.generate_private_key(ec.SECP521R1()))


def seeded_key_generator(seed: str) -> KeyGenerator:
    """Key pairs derived from a seed and the TrainJob: the same inputs give the same key.

    For tests and reproducible renders only; a seed that leaks gives away every derived key.
    """

    def generate(trainjob_key: str) -> SSHKeyPair:
        digest = hashlib.sha512(f"{seed}\0{trainjob_key}".encode()).digest() + hashlib.sha512(seed.encode()).digest()
        scalar = int.from_bytes(digest, "big") % (_SCALAR_BOUND - 1) + 1
        return _encode(ec.derive_private_key(scalar, ec.SECP521R1()))

    return generate
