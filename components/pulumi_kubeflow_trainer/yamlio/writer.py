"""YAML out: keys sorted, strings quoted wherever kubectl would read them back as something else."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import yaml

from .scalars import reads_as_string

_BaseDumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def _represent_str(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    # Scripts, hostfiles and snapshots read as blocks, not as one quoted line with \n escapes.
    style = "|" if "\n" in text and not any(ch in text for ch in "\r\t") and text == text.rstrip(" ") else None
    if style is None and not reads_as_string(text):  # `1e3`, `y`, `0o17`: PyYAML writes them plain
        style = "'"
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


class _Dumper(_BaseDumper):  # type: ignore[misc,valid-type]
    def ignore_aliases(self, data: Any) -> bool:
        return True  # manifests never use YAML anchors, even where two fields hold the same object


_Dumper.add_representer(str, _represent_str)


def dump(document: Any) -> str:
    """Keys sorted, as `kubectl get -o yaml` and the controller's serializer write them."""
    text: str = yaml.dump(document, Dumper=_Dumper, sort_keys=True, default_flow_style=False, allow_unicode=True, width=1 << 16)
    return text


def dump_all(documents: Iterable[Any]) -> str:
    return "".join("---\n" + dump(document) for document in documents)
