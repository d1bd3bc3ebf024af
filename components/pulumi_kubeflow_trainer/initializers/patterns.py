"""ALLOW_PATTERNS / IGNORE_PATTERNS as a `PathFilter`, with the upstream defaults per initializer.

Patterns are shell globs matched like huggingface_hub's `filter_repo_objects` (fnmatch, where `*`
also crosses `/`, and a trailing `/` means "everything below"). For S3 a pattern also matches the
full object key, and a pattern without wildcards also matches as a key suffix: upstream's
OpenDAL initializer filtered with `key.endswith(pattern)`, so `IGNORE_PATTERNS=.bin` keeps
working.
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase

from .config import (
    HF_MODEL_DEFAULT_ALLOW_PATTERNS,
    MODEL,
    MODEL_DEFAULT_IGNORE_PATTERNS,
    InitializerSettings,
)

_GLOB_CHARACTERS = frozenset("*?[")


@dataclass(frozen=True)
class PathFilter:
    """Decides which files of a source are downloaded; `allow=None` allows everything."""

    allow: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()

    def accepts(self, relative_path: str, full_key: str | None = None) -> bool:
        if self.allow is not None and not any(
            pattern_matches(pattern, relative_path, full_key) for pattern in self.allow
        ):
            return False
        return not any(pattern_matches(pattern, relative_path, full_key) for pattern in self.ignore)

    def hub_arguments(self) -> dict[str, list[str] | None]:
        """The same filter as `snapshot_download` keyword arguments."""
        return {
            "allow_patterns": list(self.allow) if self.allow is not None else None,
            "ignore_patterns": list(self.ignore) or None,
        }


def pattern_matches(pattern: str, relative_path: str, full_key: str | None = None) -> bool:
    glob = pattern + "*" if pattern.endswith("/") else pattern
    if fnmatchcase(relative_path, glob):
        return True
    if full_key is None:
        return False
    if fnmatchcase(full_key, glob):
        return True
    return not (_GLOB_CHARACTERS & set(pattern)) and full_key.endswith(pattern)


def resolve_path_filter(settings: InitializerSettings, scheme: str) -> PathFilter:
    """Apply upstream's defaults where the env leaves a list unset.

    Model initializers ignore `*.msgpack, *.h5, *.bin, *.pt, *.pth` unless IGNORE_PATTERNS is
    set (even to an empty value); the Hugging Face model initializer additionally allows only
    `*.json, *.safetensors, *.model, *.txt, *.gguf` unless ALLOW_PATTERNS is set (an empty
    value allows everything).
    """
    is_model = settings.kind == MODEL
    ignore = settings.ignore_patterns
    if ignore is None:
        ignore = MODEL_DEFAULT_IGNORE_PATTERNS if is_model else ()
    allow = settings.allow_patterns
    if allow is None and is_model and scheme == "hf":
        allow = HF_MODEL_DEFAULT_ALLOW_PATTERNS
    return PathFilter(allow=allow or None, ignore=tuple(ignore))
