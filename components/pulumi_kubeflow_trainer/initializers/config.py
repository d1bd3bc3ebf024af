"""The env contract of the initializers, read once into `InitializerSettings`.

Compatible with upstream Kubeflow Trainer (`pkg/initializers/utils/utils.py`): each setting is
read from the upper-cased field name, an empty value counts as unset, and IGNORE_PATTERNS is a
comma-separated list whose explicitly empty value means "no patterns" (which is how a user turns
off the model initializer's default ignore list).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .errors import ConfigurationError

DATASET = "dataset"
MODEL = "model"
INITIALIZER_KINDS = (DATASET, MODEL)

DEFAULT_OUTPUT_DIRS = {DATASET: Path("/workspace/dataset"), MODEL: Path("/workspace/model")}

# Upstream's defaults for model initializers: weights in framework-specific formats that
# safetensors repos also carry are skipped, and only these files are fetched from the Hub.
MODEL_DEFAULT_IGNORE_PATTERNS = ("*.msgpack", "*.h5", "*.bin", "*.pt", "*.pth")
HF_MODEL_DEFAULT_ALLOW_PATTERNS = ("*.json", "*.safetensors", "*.model", "*.txt", "*.gguf")

# Object stores answer small GETs with tens of milliseconds of latency, so throughput on many
# small files comes from concurrency; 16 threads keep a 2-core container busy without
# overwhelming the connection pool or a MinIO behind it.
DEFAULT_WORKERS = 16
MAX_WORKERS = 256


@dataclass(frozen=True)
class InitializerSettings:
    """Everything an initializer run needs; secrets are excluded from `repr`."""

    kind: str
    storage_uri: str
    output_dir: Path
    workers: int = DEFAULT_WORKERS
    # None: the env var was unset; (): it was set to an empty value.
    ignore_patterns: tuple[str, ...] | None = None
    allow_patterns: tuple[str, ...] | None = None
    revision: str | None = None
    endpoint: str | None = None
    region: str | None = None
    role_arn: str | None = None
    sts_endpoint: str | None = None
    hf_endpoint: str | None = None
    access_key_id: str | None = field(default=None, repr=False)
    secret_access_key: str | None = field(default=None, repr=False)
    session_token: str | None = field(default=None, repr=False)
    access_token: str | None = field(default=None, repr=False)

    def secret_values(self) -> tuple[str | None, ...]:
        """Values that must never reach stdout/stderr, for `redact_secrets`."""
        return (self.access_key_id, self.secret_access_key, self.session_token, self.access_token)


def parse_pattern_list(raw: str | None) -> tuple[str, ...] | None:
    """Split a comma-separated pattern list; None when unset, () when set but empty."""
    if raw is None:
        return None
    return tuple(item.strip() for item in raw.split(",") if item.strip())


def parse_workers(raw: str | int | None, source: str = "WORKERS") -> int:
    """Validate a worker count from the env or the command line."""
    if raw is None or raw == "":
        return DEFAULT_WORKERS
    try:
        workers = int(raw)
    except (TypeError, ValueError):
        raise ConfigurationError(f"{source} must be an integer, got {raw!r}") from None
    if not 1 <= workers <= MAX_WORKERS:
        raise ConfigurationError(f"{source} must be between 1 and {MAX_WORKERS}, got {workers}")
    return workers


def _non_empty(environ: Mapping[str, str], name: str) -> str | None:
    value = environ.get(name)
    return value if value else None


def _endpoint_url(environ: Mapping[str, str], name: str) -> str | None:
    """An endpoint must be a URL: boto3 would otherwise fail with a less helpful message."""
    value = _non_empty(environ, name)
    if value is not None and not value.startswith(("http://", "https://")):
        raise ConfigurationError(f"{name} must be an http:// or https:// URL, got {value!r}")
    return value


def load_settings(
    kind: str,
    environ: Mapping[str, str] | None = None,
    output_dir: str | Path | None = None,
    workers: int | None = None,
) -> InitializerSettings:
    """Read the env contract; command-line values (output_dir, workers) win over the env."""
    if kind not in INITIALIZER_KINDS:
        raise ConfigurationError(f"unknown initializer {kind!r}: expected one of {INITIALIZER_KINDS}")
    environ = os.environ if environ is None else environ
    storage_uri = _non_empty(environ, "STORAGE_URI")
    if storage_uri is None:
        raise ConfigurationError("STORAGE_URI environment variable must be set")
    return InitializerSettings(
        kind=kind,
        storage_uri=storage_uri.strip(),
        output_dir=Path(output_dir) if output_dir else DEFAULT_OUTPUT_DIRS[kind],
        workers=parse_workers(workers, "--workers")
        if workers is not None
        else parse_workers(environ.get("WORKERS")),
        ignore_patterns=parse_pattern_list(environ.get("IGNORE_PATTERNS")),
        allow_patterns=parse_pattern_list(environ.get("ALLOW_PATTERNS")),
        revision=_non_empty(environ, "REVISION"),
        endpoint=_endpoint_url(environ, "ENDPOINT"),
        region=_non_empty(environ, "REGION"),
        role_arn=_non_empty(environ, "ROLE_ARN"),
        sts_endpoint=_endpoint_url(environ, "STS_ENDPOINT"),
        hf_endpoint=_endpoint_url(environ, "HF_ENDPOINT"),
        access_key_id=_non_empty(environ, "ACCESS_KEY_ID"),
        secret_access_key=_non_empty(environ, "SECRET_ACCESS_KEY"),
        session_token=_non_empty(environ, "SESSION_TOKEN"),
        access_token=_non_empty(environ, "ACCESS_TOKEN"),
    )
