"""Kubernetes resource quantities: parsing, arithmetic and the canonical string form.

The controller round-trips every quantity through `resource.Quantity`, so `cpu: 0.5` reaches the
JobSet as `500m` and `memory: 1.5Gi` as `1536Mi`. This module reproduces that canonical form
(`Quantity.CanonicalizeBytes` in k8s.io/apimachinery) so our manifests match byte for byte, and
`ParseQuantity`'s habit of keeping the text as written when its fast path finds it canonical
(`+2`, `1E3`, `0100` stay as they are).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Any

BINARY_SI = "BinarySI"
DECIMAL_SI = "DecimalSI"
DECIMAL_EXPONENT = "DecimalExponent"

_BINARY_SUFFIXES = {"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4, "Pi": 5, "Ei": 6}
_DECIMAL_SUFFIXES = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_DECIMAL_SUFFIX_BY_EXPONENT = {exp: suffix for suffix, exp in _DECIMAL_SUFFIXES.items()}
_BINARY_SUFFIX_BY_POWER = {power: suffix for suffix, power in _BINARY_SUFFIXES.items()}
_QUANTITY = re.compile(
    r"^(?P<sign>[+-]?)(?P<number>\d+\.?\d*|\.\d+)"
    r"(?:(?P<exponent>[eE][+-]?\d+)|(?P<suffix>Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]?))$"
)
_NANO = 10**9
_MAX_UNITS = 2**63 - 1
_MAX_INT32 = 2**31 - 1
_MAX_CHARS = 64  # far beyond any real quantity; keeps the arithmetic small
_RANGE = "quantities must be below 2^63 (9.2e18), the int64 the scheduler and kubelet count in"


class QuantityError(ValueError):
    """A string that is not a Kubernetes quantity."""


@dataclass(frozen=True)
class Quantity:
    """An exact quantity in nano units (the API rounds finer values up to nanos) and its format."""

    nanos: int
    format: str = DECIMAL_SI
    # The text as written, when apimachinery would keep it (`ParseQuantity` reuses its input string on
    # its fast path when that string is canonical); arithmetic results have none.
    text: str | None = field(default=None, compare=False, repr=False)

    @classmethod
    def parse(cls, text: Any) -> Quantity:
        return _parse_cached(text) if type(text) is str else _parse(text)

    @classmethod
    def _parse(cls, text: Any) -> Quantity:
        if isinstance(text, bool) or not isinstance(text, (str, int, float)):
            raise QuantityError(f"quantity must be a string or a number, not {text!r}")
        if isinstance(text, int) and not -_MAX_UNITS <= text <= _MAX_UNITS:
            raise QuantityError(f"quantity out of range: {_RANGE}")
        string = str(text).strip()
        if len(string) > _MAX_CHARS:
            raise QuantityError(f"quantity {string[:20]!r}... has more than {_MAX_CHARS} characters")
        match = _QUANTITY.match(string)
        if match is None:
            raise QuantityError(
                f"{text!r} is not a quantity: use a number with an optional suffix such as 500m, 2, 4Gi or 1e3"
            )
        nanos, fmt = _nanos(match)
        kept = string if string == "0" or _kept_as_written(match, fmt) else None
        return cls(-nanos if match["sign"] == "-" else nanos, fmt, kept)

    def is_zero(self) -> bool:
        return self.nanos == 0

    def __add__(self, other: Quantity) -> Quantity:
        fmt = self.format if not self.is_zero() else other.format
        return Quantity(self.nanos + other.nanos, fmt)

    def times(self, factor: int) -> Quantity:
        return Quantity(self.nanos * factor, self.format)

    def ceil(self) -> int:
        """The integer value rounded up (`Quantity.Value()`)."""
        return -((-self.nanos) // _NANO)

    def __str__(self) -> str:
        if self.text is not None:
            return self.text
        if self.nanos == 0:
            return "0"
        sign = "-" if self.nanos < 0 else ""
        magnitude = abs(self.nanos)
        if self.format == BINARY_SI and magnitude >= 1024 * _NANO and magnitude % _NANO == 0:
            return sign + _binary_string(magnitude // _NANO)
        # BinarySI below 1024 or not a whole number is shown as DecimalSI (`CanonicalizeBytes`)
        return sign + _decimal_string(magnitude, DECIMAL_SI if self.format == BINARY_SI else self.format)


def _nanos(match: re.Match[str]) -> tuple[int, str]:
    """The magnitude in nanos, rounded up as the API server does; BinarySI capped at 2^63-1 as it is."""
    if match["exponent"]:
        exponent, fmt = int(match["exponent"][1:]), DECIMAL_EXPONENT
        if abs(exponent) > _MAX_INT32:  # Kubernetes parses the exponent as an int32
            raise QuantityError(f"the exponent of {match.group(0)!r} is beyond int32")
    elif match["suffix"] in _BINARY_SUFFIXES:
        exponent, fmt = 0, BINARY_SI
    else:
        exponent, fmt = _DECIMAL_SUFFIXES[match["suffix"]], DECIMAL_SI
    magnitude = _decimal_magnitude(match["number"])
    if magnitude is None:
        return 0, fmt
    # Decide by orders of magnitude first: 10**exponent of a huge exponent would not finish.
    if magnitude + exponent > (19 + 19 if fmt == BINARY_SI else 19):
        return _too_large(match, fmt)
    if magnitude + exponent < -9:
        return 1, fmt  # below a nano, non-zero: rounds up to 1n
    value = Fraction(match["number"]) * Fraction(10) ** exponent
    if fmt == BINARY_SI:
        value *= 1024 ** _BINARY_SUFFIXES[match["suffix"]]
    nanos = -((-value * _NANO).__floor__())  # round up, as the API server does
    return (nanos, fmt) if nanos <= _MAX_UNITS * _NANO else _too_large(match, fmt)


def _kept_as_written(match: re.Match[str], fmt: str) -> bool:
    """Whether `ParseQuantity` keeps the string: its int64 fast path, and the number already canonical
    (decimal: scale a multiple of 3, no trailing 000, no leading 0 once the zeros are stripped;
    binary: a whole number of units, not a multiple of 8)."""
    whole, _, denom = match["number"].partition(".")
    num = whole.lstrip("0") or "0"
    shifted = num + denom
    if fmt == BINARY_SI:
        bits = 10 * _BINARY_SUFFIXES[match["suffix"]]
        if denom or 15 - len(num) - int(bits * 3 / 10) - 1 < 0:
            return False
        value = int(shifted)
        return value << bits <= _MAX_UNITS and value & 0x07 != 0
    exponent = int(match["exponent"][1:]) if match["exponent"] else _DECIMAL_SUFFIXES[match["suffix"]]
    scale = exponent - len(denom)
    if 18 - len(num) - len(denom) < 0 or scale < -9:
        return False
    return scale % 3 == 0 and not shifted.endswith("000") and shifted[0] != "0"


def _decimal_magnitude(number: str) -> int | None:
    """k with 10**(k-1) <= number < 10**k; None for zero."""
    whole, _, fraction = number.partition(".")
    whole = whole.lstrip("0")
    if whole:
        return len(whole)
    significant = fraction.lstrip("0")
    return -(len(fraction) - len(significant)) if significant else None


def _too_large(match: re.Match[str], fmt: str) -> tuple[int, str]:
    if fmt == BINARY_SI:
        return _MAX_UNITS * _NANO, fmt  # `Quantity` caps BinarySI amounts at max int64
    raise QuantityError(f"{match.group(0)!r} is out of range: {_RANGE}")


def _parse(text: Any) -> Quantity:
    return Quantity._parse(text)


# Manifests repeat the same few quantities ("1", "8Gi"); parsing each once keeps renders fast.
_parse_cached = lru_cache(maxsize=4096)(_parse)


def _binary_string(value: int) -> str:
    power = 0
    while value % 1024 == 0 and power < 6:
        value //= 1024
        power += 1
    return f"{value}{_BINARY_SUFFIX_BY_POWER.get(power, '')}"


def _decimal_string(nanos: int, fmt: str) -> str:
    mantissa, exponent = nanos, -9
    while mantissa % 10 == 0:
        mantissa //= 10
        exponent += 1
    shift = exponent % 3
    mantissa *= 10**shift
    exponent -= shift
    if fmt == DECIMAL_SI and exponent in _DECIMAL_SUFFIX_BY_EXPONENT:
        return f"{mantissa}{_DECIMAL_SUFFIX_BY_EXPONENT[exponent]}"
    return f"{mantissa}e{exponent}" if exponent else str(mantissa)


def canonical(text: Any) -> str:
    """The string the API server would store for this quantity."""
    return str(Quantity.parse(text))


def canonical_resource_list(resources: dict[str, Any]) -> dict[str, str]:
    return {name: canonical(value) for name, value in resources.items()}


def add_resource_lists(total: dict[str, Quantity], addend: dict[str, Quantity]) -> None:
    for name, quantity in addend.items():
        total[name] = total[name] + quantity if name in total else quantity


def max_resource_lists(result: dict[str, Quantity], other: dict[str, Quantity]) -> None:
    for name, quantity in other.items():
        if name not in result or quantity.nanos > result[name].nanos:
            result[name] = quantity
