"""The scripts the Flux plugin ships in its ConfigMap (our own; upstream's are not byte-identical)."""

from __future__ import annotations

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

_Z85 = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"

INIT_SH = """#!/bin/bash
# Copies the Flux view into the shared volume and writes the broker configuration.
set -euo pipefail
cp -a /opt/view/. /mnt/flux/view/ 2>/dev/null || cp -a /opt/. /mnt/flux/
mkdir -p /mnt/flux/config
cat > /mnt/flux/config/broker.toml <<'TOML'
[exec]
imp = ""

[access]
allow-guest-user = true
allow-root-owner = true

[bootstrap]
curve_cert = "/curve/curve.cert"
default_port = 8050
default_bind = "tcp://{device}:%p"
default_connect = "tcp://%h.{subdomain}.{namespace}.svc.cluster.local:%p"
hosts = [{{ host = "{hostlist}" }}]

[sched-fluxion-qmanager]
queue-policy = "{queue_policy}"
TOML
"""

ENTRYPOINT_SH = """#!/bin/bash
# Starts a Flux broker on every node; the main host runs the user's command across the instance.
set -euo pipefail
export PATH=/mnt/flux/view/bin:$PATH
export FLUX_URI_RESOLVE_LOCAL=t
flux R encode --hosts={hostlist} --cores=0-{last_core}{gpu_range} > /tmp/R
if [ "$(hostname)" == "{main_host}" ]; then
  exec flux broker --config-path=/mnt/flux/config -Slog-stderr-level=6 -Sbroker.rc2_none=1 \\
    flux submit --wait -N {num_nodes} -n {num_tasks}{gpu_flag} "$@"
else
  exec flux broker --config-path=/mnt/flux/config -Slog-stderr-level=6
fi
"""


def hostlist(trainjob: str, num_nodes: int) -> str:
    return f"{trainjob}-node-0-[0-{num_nodes - 1}]" if num_nodes > 1 else f"{trainjob}-node-0-[0]"


def z85(data: bytes) -> str:
    """ZeroMQ's Z85 encoding (RFC 32/Z85), as CURVE certificates store keys."""
    encoded: list[str] = []
    for offset in range(0, len(data), 4):
        value = int.from_bytes(data[offset : offset + 4], "big")
        chunk = []
        for _ in range(5):
            value, digit = divmod(value, 85)
            chunk.append(_Z85[digit])
        encoded.extend(reversed(chunk))
    return "".join(encoded)


def curve_key_pair(secret: bytes) -> tuple[str, str]:
    """(public, secret) Z85 keys of the X25519 key pair whose private key is `secret` (32 bytes)."""
    private = X25519PrivateKey.from_private_bytes(secret)
    public = private.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    raw = private.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption())
    return z85(public), z85(raw)


def format_curve_certificate(name: str, public_z85: str, secret_z85: str) -> str:
    """A ZeroMQ CURVE secret certificate file, as `flux keygen` writes it."""
    return (
        "#   ZeroMQ CURVE **Secret** Certificate\n"
        "#   DO NOT PROVIDE THIS FILE TO OTHER USERS nor change its permissions.\n\n"
        f'metadata\n    name = "{name}"\n'
        f'curve\n    public-key = "{public_z85}"\n    secret-key = "{secret_z85}"\n'
    )


def curve_certificate(name: str, secret: bytes) -> str:
    """The certificate of the key pair whose private key is `secret` (from the render's key generator)."""
    return format_curve_certificate(name, *curve_key_pair(secret))
