"""Key material a render generates: MPI SSH key pairs (ECDSA P-521, encoded as the controller encodes
them) and the Flux broker's CURVE secret (X25519). Random by default; seeded only on request."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

# Any scalar in [1, 2**520) is a valid P-521 private key: the group order is just above 2**520.
_SCALAR_BOUND = 2**520
CURVE_SECRET_BYTES = 32  # an X25519 private key; every 32-byte string is one (X25519 clamps it)


@dataclass(frozen=True)
class SSHKeyPair:
    private_key_pem: str  # PEM "EC PRIVATE KEY" (SEC 1), as Go's x509.MarshalECPrivateKey writes it
    public_key_openssh: str  # an authorized_keys line with its newline, as ssh.MarshalAuthorizedKey writes it

    def __repr__(self) -> str:  # keep the private key out of logs and tracebacks
        return f"SSHKeyPair(public_key_openssh={self.public_key_openssh.strip()!r}, private_key_pem=<secret>)"


KeyGenerator = Callable[[str], SSHKeyPair]
"""Called with the TrainJob's `namespace/name`; returns the key pair for its MPI Secret."""

CurveKeyGenerator = Callable[[str], bytes]
"""Called with the TrainJob's `namespace/name`; returns the 32-byte X25519 secret of its Flux broker."""


def _encode(private_key: ec.EllipticCurvePrivateKey) -> SSHKeyPair:
    private_pem = private_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL, serialization.NoEncryption()
    ).decode()
    public = private_key.public_key().public_bytes(serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH)
    return SSHKeyPair(private_pem, public.decode() + "\n")


def generate_key_pair(trainjob_key: str = "") -> SSHKeyPair:
    """A fresh random key pair, what the controller creates once per TrainJob."""
    return _encode(ec.generate_private_key(ec.SECP521R1()))


def generate_curve_secret(trainjob_key: str = "") -> bytes:
    """A fresh random CURVE secret. Upstream derives it from the TrainJob's UID; we never derive a key
    from anything an observer can know (names, UIDs)."""
    return secrets.token_bytes(CURVE_SECRET_BYTES)


class SeededKeyGenerator:
    """Every key of a render derived from a seed and the TrainJob: the same inputs give the same keys.

    Called, it is a `KeyGenerator` (MPI); `curve_secret` is its `CurveKeyGenerator` (Flux), which a
    `RenderContext` uses unless given another. For tests and reproducible renders only; a seed that
    leaks gives away every derived key.
    """

    def __init__(self, seed: str) -> None:
        self._seed = seed

    def __repr__(self) -> str:  # the seed is as secret as the keys
        return "SeededKeyGenerator(<seed>)"

    def __call__(self, trainjob_key: str) -> SSHKeyPair:
        seed = self._seed
        digest = hashlib.sha512(f"{seed}\0{trainjob_key}".encode()).digest() + hashlib.sha512(seed.encode()).digest()
        scalar = int.from_bytes(digest, "big") % (_SCALAR_BOUND - 1) + 1
        return _encode(ec.derive_private_key(scalar, ec.SECP521R1()))

    def curve_secret(self, trainjob_key: str) -> bytes:
        return hashlib.sha256(f"flux-curve\0{self._seed}\0{trainjob_key}".encode()).digest()


def seeded_key_generator(seed: str) -> SeededKeyGenerator:
    """Key pairs (MPI) and CURVE secrets (Flux) derived from a seed: see `SeededKeyGenerator`."""
    return SeededKeyGenerator(seed)


def curve_generator_of(key_generator: KeyGenerator) -> CurveKeyGenerator:
    """The CURVE generator that goes with an MPI key generator: its own when it has one (seeded), else random."""
    return getattr(key_generator, "curve_secret", generate_curve_secret)
