"""Errors of the initializers, and the redaction that keeps secrets out of their messages.

Every failure that a user can cause or fix (bad URI, missing bucket, wrong key, unsafe object
key) is an `InitializerError`: the CLI prints its message as one line on stderr and exits
non-zero, without a traceback.
"""

from __future__ import annotations

from collections.abc import Iterable

REDACTED = "***"

# Shorter values are not redacted: replacing every "a" or "1" in a message would garble it
# and such values are not credentials anyway.
_MIN_SECRET_LENGTH = 4


class InitializerError(Exception):
    """A failure the user can act on; its message is shown as one line."""


class ConfigurationError(InitializerError):
    """The env contract or the command line is invalid (missing STORAGE_URI, bad WORKERS, ...)."""


class UnsupportedSchemeError(ConfigurationError):
    """STORAGE_URI uses a scheme this initializer does not implement."""


class SourceNotFoundError(InitializerError):
    """The bucket, prefix, object, repository or revision does not exist."""


class AccessDeniedError(InitializerError):
    """The storage refused the credentials (unknown key, bad signature, missing permission)."""


class UnsafePathError(InitializerError):
    """An object key or repository file would be written outside the output directory."""


class TransferError(InitializerError):
    """A download failed after its retries, or its content did not match the source."""


def redact_secrets(message: str, secrets: Iterable[str | None]) -> str:
    """Return `message` with every known secret value replaced by `***`.

    Longest values go first so that a secret containing another one is hidden whole.
    """
    values = sorted(
        {value for value in secrets if value and len(value) >= _MIN_SECRET_LENGTH},
        key=len,
        reverse=True,
    )
    for value in values:
        message = message.replace(value, REDACTED)
    return message


def one_line(message: str) -> str:
    """Collapse a (possibly multi-line) message into a single line for stderr."""
    return " ".join(part.strip() for part in message.splitlines() if part.strip())
