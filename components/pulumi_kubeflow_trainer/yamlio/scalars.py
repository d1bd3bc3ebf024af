"""Scalars as kubectl and the controller read them: go-yaml v2 (sigs.k8s.io/yaml), then JSON.

Kubernetes never sees YAML: sigs.k8s.io/yaml resolves each plain scalar with go-yaml v2's rules
(`resolve()` in go.yaml.in/yaml/v2's resolve.go), writes the result as JSON, and the API server
decodes that JSON keeping integers as integers. So a scalar here is what comes out of that trip,
which is not what PyYAML's YAML 1.1 resolver says in several places:

| text            | PyYAML         | go-yaml v2, then JSON (what upstream gets) |
| --------------- | -------------- | ------------------------------------------ |
| `1e3`, `1.5e9`  | a string       | 1000, 1500000000                           |
| `2.0`           | 2.0            | 2 (JSON writes the float 2 as `2`)         |
| `09`, `0o17`    | a string       | 9, 15                                      |
| `0X1F`, `0B11`  | a string       | 31, 3                                      |
| `y`, `N`        | a string       | true, false                                |
| `1:30`          | 90             | the string "1:30" (no base 60 in go-yaml)  |
| `1e400`         | inf (refused)  | the string "1e400" (ParseFloat fails)      |
| `2001-12-14`    | a date         | the string (timestamps stay strings)       |
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Callable
from typing import Any

MERGE = object()
"""A plain `<<`: a merge key where a key may be, else the string "<<"."""
INT64 = (-(2**63), 2**63 - 1)
OUT_OF_RANGE = "out of range: Kubernetes integers are 64-bit (-9223372036854775808 to 9223372036854775807)"


class ScalarProblem(Exception):
    """A scalar JSON cannot carry; `field_error` when it is a bad value rather than bad YAML."""

    def __init__(self, message: str, *, field_error: bool) -> None:
        super().__init__(message)
        self.field_error = field_error


_NO_INFINITY = "JSON has no infinity or NaN; give a finite number"
_REFUSED = object()  # a word go-yaml reads as a float JSON cannot write
_WORDS: dict[str, Any] = {
    **dict.fromkeys(("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), True),
    **dict.fromkeys(("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), False),
    **dict.fromkeys(("", "~", "null", "Null", "NULL"), None),
    **dict.fromkeys((f"{sign}.{word}" for sign in ("", "+", "-") for word in ("inf", "Inf", "INF")), _REFUSED),
    **dict.fromkeys((".nan", ".NaN", ".NAN"), _REFUSED),
}
# The first characters after which go-yaml tries more than a string (its resolveTable).
_NUMBER_START = frozenset("+-0123456789.")
_WORD_START = frozenset("yYnNtTfFoO~")
# strconv.ParseInt(text, 0, 64) once underscores are gone: a sign, then a base prefix or a leading 0 (octal).
_GO_INT = re.compile(r"([-+]?)(0[bB][01]+|0[oO][0-7]+|0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)")
_GO_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")  # go-yaml's yamlStyleFloat
_DOT_FLOAT = re.compile(r"\.[0-9]+(?:[eE][-+]?[0-9]+)?")  # strconv.ParseFloat of text that starts with a dot
_FLOAT32_MAX = 3.4028234663852886e38
_BASES = {"b": 2, "B": 2, "o": 8, "O": 8, "x": 16, "X": 16}


def plain_scalar(text: str) -> Any:
    """An untagged, unquoted scalar: None, a bool, an int within int64, a finite float, MERGE or the text."""
    value = go_yaml_value(text)
    return _as_json_number(value) if type(value) is float else value


def go_yaml_value(text: str) -> Any:
    """What go-yaml v2 resolves plain `text` to, floats still floats (before the trip through JSON)."""
    if text == "<<":
        return MERGE
    first = text[:1]
    if first not in _NUMBER_START and first not in _WORD_START and text:
        return text
    value = _WORDS.get(text, text)
    if value is _REFUSED:
        raise ScalarProblem(f"Invalid value: {text}: {_NO_INFINITY}", field_error=True)
    return _number(text) if value is text and first in _NUMBER_START else value


def _number(text: str) -> Any:
    if text[0] == ".":
        return float(text) if _DOT_FLOAT.fullmatch(text) else text
    digits = text.replace("_", "")
    integer = _GO_INT.fullmatch(digits)
    if integer:
        return _go_int(integer[1], integer[2], text)
    if _GO_FLOAT.fullmatch(digits):
        number = float(digits)
        return number if math.isfinite(number) else text  # strconv.ParseFloat's range error: go-yaml keeps the text
    return text


def _go_int(sign: str, digits: str, text: str) -> int:
    base = _BASES.get(digits[1:2], 8) if digits[:1] == "0" and len(digits) > 1 else 10
    significant = (digits[2:] if base != 10 and digits[1:2] in _BASES else digits).lstrip("0") or "0"
    if len(significant) > 64:  # beyond int64 in any base; also keeps int() within Python's digit limit
        raise out_of_range(text)
    value = int(significant, base)
    value = -value if sign == "-" else value
    if not INT64[0] <= value <= INT64[1]:
        raise out_of_range(text)
    return value


def _as_json_number(number: float) -> float | int:
    """The float as the API server reads it back: encoding/json writes an integral float below 1e21
    without a fraction (`2`, not `2.0`), and Kubernetes decodes such a number as an int64 when it fits."""
    if number.is_integer() and abs(number) < 1e21 and INT64[0] <= number <= INT64[1]:
        return int(number)
    return number


def explicit_scalar(tag: str, text: str) -> Any:
    """A scalar with a tag: only JSON's types, and the text must be one of the tag's values, as go-yaml
    decides (`!!float 2` is a float, so 2 after JSON; `!!int 1:30` is refused: go-yaml reads a string)."""
    if tag == _Y + "str":
        return text
    is_of_tag = _EXPLICIT.get(tag)
    if is_of_tag is None:
        raise ScalarProblem(f"the tag {short_tag(tag)} is not allowed: {ALLOWED_TAGS}", field_error=False)
    value = go_yaml_value(text)
    if not is_of_tag(value):
        raise ScalarProblem(f"{excerpt(text)!r} is not a valid {short_tag(tag)}", field_error=False)
    return _as_json_number(float(value)) if tag == _Y + "float" else value


def plain_key(text: str) -> Any:
    """A plain mapping key as sigs.k8s.io/yaml writes it into JSON: ints and bools as their text, floats
    as Go's FormatFloat(key, 'g', -1, 32) (`1e7` is "1e+07"); MERGE for `<<`; None where JSON has no
    key (null)."""
    value = go_yaml_value(text)
    kind = type(value)
    if kind is str or value is MERGE:
        return value
    if kind is bool:
        return "true" if value else "false"
    if kind is int:
        return str(value)
    return _go_float32_text(value) if kind is float else None


def _go_float32_text(number: float) -> str:
    if abs(number) > _FLOAT32_MAX:  # Go's float32(number) is an infinity
        return "+Inf" if number > 0 else "-Inf"
    single = _float32(number)
    for digits in range(1, 10):  # the shortest that reads back as the same float32 (9 always does)
        text = f"{single:.{digits - 1}e}"
        if _float32(float(text)) == single:
            break
    exponent = int(text.partition("e")[2])
    if exponent < -4 or exponent >= 6:  # %e, as Go's 'g' decides for the shortest digits
        return text
    return f"{single:.{max(digits - 1 - exponent, 0)}f}"


def _float32(number: float) -> float:
    single: float = struct.unpack("<f", struct.pack("<f", number))[0]
    return single


def reads_as_string(text: str) -> bool:
    """Whether go-yaml reads `text`, written plain, back as this string (else it must be quoted)."""
    try:
        return plain_scalar(text) is text
    except ScalarProblem:
        return False


def out_of_range(text: str) -> ScalarProblem:
    return ScalarProblem(f"Invalid value: {excerpt(text)}: {OUT_OF_RANGE}", field_error=True)


def excerpt(text: str) -> str:
    return text if len(text) <= 40 else f"{text[:20]}...({len(text)} characters)"


def short_tag(tag: str) -> str:
    return "!!" + tag[len(_Y) :] if tag.startswith(_Y) else tag


_Y = "tag:yaml.org,2002:"
ALLOWED_TAGS = "Kubernetes objects are JSON; only !!str, !!int, !!float, !!bool, !!null, !!map and !!seq are"
_EXPLICIT: dict[str, Callable[[Any], bool]] = {
    _Y + "null": lambda value: value is None,
    _Y + "bool": lambda value: type(value) is bool,
    _Y + "int": lambda value: type(value) is int,
    _Y + "float": lambda value: type(value) in (int, float),
}
