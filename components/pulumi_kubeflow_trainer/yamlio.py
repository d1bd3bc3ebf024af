"""YAML in and out, with libyaml when PyYAML has it (it is several times faster)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import yaml

class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """Timestamps stay strings, as in Kubernetes, where YAML becomes JSON before it is decoded
    (`time: 2026-01-02T03:04:05Z` in a runtime patch is a string field, not a datetime)."""


_Loader.add_constructor("tag:yaml.org,2002:timestamp", _Loader.construct_yaml_str)
_BaseDumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def _represent_str(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    # Scripts, hostfiles and snapshots read as blocks, not as one quoted line with \n escapes.
    style = "|" if "\n" in text and not any(ch in text for ch in "\r\t") and text == text.rstrip(" ") else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


class _Dumper(_BaseDumper):  # type: ignore[misc,valid-type]
    def ignore_aliases(self, data: Any) -> bool:
        return True  # manifests never use YAML anchors, even where two fields hold the same object


_Dumper.add_representer(str, _represent_str)


def load_documents(text: str) -> Iterator[Any]:
    return yaml.load_all(text, Loader=_Loader)


def dump(document: Any) -> str:
    """Keys sorted, as `kubectl get -o yaml` and the controller's serializer write them."""
    return yaml.dump(document, Dumper=_Dumper, sort_keys=True, default_flow_style=False, allow_unicode=True, width=1 << 16)


def dump_all(documents: Iterable[Any]) -> str:
    return "".join("---\n" + dump(document) for document in documents)
