"""The static files under files/: copied as they are, or rendered with string.Template where a
port, a path or a CA must go in. No YAML is built in code."""

from __future__ import annotations

import json
import re
import string
from pathlib import Path

FILES = Path(__file__).resolve().parent / "files"
# Text that YAML reads back unchanged as (part of) a plain scalar: paths, URLs, base64, numbers.
_PLAIN = re.compile(r"[A-Za-z0-9_./][A-Za-z0-9_./:@+=~%-]*")


def text(name: str) -> str:
    return (FILES / name).read_text()


def render(name: str, **values: str | int | Path) -> str:
    """files/NAME with every ${key} replaced; a missing key is a KeyError. A value that is not
    plain (a dir with a space, say) goes in as a JSON string, which YAML reads as the same string:
    such values must fill a whole scalar."""
    return string.Template(text(name)).substitute({key: _scalar(value) for key, value in values.items()})


def _scalar(value: str | int | Path) -> str:
    text = str(value)
    return text if _PLAIN.fullmatch(text) else json.dumps(text)
