"""Translating huggingface_hub / httpx exceptions into one-line `InitializerError`s.

huggingface_hub's own messages span several lines and embed request ids and URLs; the status
and the kind of failure are what a user needs.
"""

from __future__ import annotations

from .errors import AccessDeniedError, ConfigurationError, InitializerError, SourceNotFoundError, TransferError

_TOKEN_HINT = "check ACCESS_TOKEN"


def _status_code(error: BaseException) -> int | None:
    response = getattr(error, "response", None)
    return getattr(response, "status_code", None)


def translate_hub_error(error: BaseException, uri: str, revision: str, endpoint: str | None) -> InitializerError:
    """Map an exception raised while talking to the Hub to an InitializerError."""
    if isinstance(error, InitializerError):
        return error
    from huggingface_hub import errors as hub_errors

    status = _status_code(error)
    if isinstance(error, hub_errors.GatedRepoError):
        return AccessDeniedError(f"{uri} is gated: accept its terms on the Hub and {_TOKEN_HINT}")
    if isinstance(error, hub_errors.RepositoryNotFoundError):
        return SourceNotFoundError(
            f"{uri}: repository not found (HTTP {status}); if it is private, {_TOKEN_HINT}"
        )
    if isinstance(error, hub_errors.RevisionNotFoundError):
        return SourceNotFoundError(f"{uri}: revision {revision!r} not found")
    if isinstance(error, hub_errors.OfflineModeIsEnabled):
        return ConfigurationError("HF_HUB_OFFLINE is set, but the initializer has to reach the Hub")
    if isinstance(error, hub_errors.HfHubHTTPError):
        if status in (401, 403):
            return AccessDeniedError(f"access denied to {uri} (HTTP {status}): {_TOKEN_HINT}")
        return TransferError(f"{uri}: Hub request failed (HTTP {status})")
    if _is_connection_error(error):
        where = endpoint or "https://huggingface.co"
        return TransferError(f"cannot reach the Hugging Face Hub at {where}: {type(error).__name__}")
    return TransferError(f"{uri}: {type(error).__name__}: {error}")


def _is_connection_error(error: BaseException) -> bool:
    kinds: list[type[BaseException]] = [ConnectionError, TimeoutError]
    # huggingface_hub 2.x ships with httpx2, 1.x with httpx; whichever is installed.
    for module_name in ("httpx2", "httpx"):
        try:
            module = __import__(module_name)
        except ImportError:
            continue
        kinds += [module.ConnectError, module.TimeoutException]
    return isinstance(error, tuple(kinds))
