from dataclasses import dataclass

import pytest

from pulumi_kubeflow_trainer.api.quantity import Quantity, QuantityError, canonical


@dataclass(frozen=True)
class Case:
    name: str
    given: object
    want: str


CANONICAL_CASES = [
    Case("half a cpu as a decimal becomes millicores", "0.5", "500m"),
    Case("a yaml number is a quantity", 2, "2"),
    Case("a yaml float becomes millicores", 0.7, "700m"),
    Case("fractional binary sizes become the next smaller binary unit", "1.5Gi", "1536Mi"),
    Case("whole binary sizes keep their unit", "20Gi", "20Gi"),
    Case("a thousand plain units become kilo", "1000", "1k"),
    Case("millicores that make whole cores drop the suffix", "2000m", "2"),
    Case("binary sizes below 1024 are written decimally", "512", "512"),
    Case("exponent notation is kept as written", "1E3", "1E3"),
    Case("values finer than nano round up", "1.0000000001", "1000000001n"),
    Case("zero is zero", "0", "0"),
]


@pytest.mark.parametrize("case", CANONICAL_CASES, ids=lambda case: case.name)
def test_canonical(case: Case) -> None:
    assert canonical(case.given) == case.want


# What k8s.io/apimachinery v0.36.2 prints for `resource.MustParse(text).String()`: the text as written
# when ParseQuantity's fast path finds it canonical (a sign, an exponent's case, leading zeros kept),
# else the canonical form. Upstream's JobSet carries every quantity through that round trip.
APIMACHINERY = {
    "+1": "+1", "+2": "+2", "-1": "-1", "2.0": "2", ".5": "500m", "0.5": "500m", "1.5": "1500m", "1500m": "1500m",
    "2000m": "2", "1e3": "1e3", "1E3": "1E3", "1e9": "1e9", "1e0": "1e0", "1e-3": "1e-3", "1e+3": "1e+3",
    "+1e3": "+1e3", "1.0e3": "1e3", "1000": "1k", "1000000": "1M", "1e6": "1e6", "1Gi": "1Gi", "1024Mi": "1Gi",
    "1024Ki": "1Mi", "1536Mi": "1536Mi", "1.5Gi": "1536Mi", "0.5Gi": "512Mi", "7Ki": "7Ki", "8Ki": "8Ki",
    "1023Ki": "1023Ki", "123456789": "123456789", "1073741824": "1073741824", "0100": "0100", "01": "01",
    "00": "0", "0.0": "0", "1.000": "1", "1000m": "1", "999m": "999m", "0.1n": "1n", "+0": "0", "-0": "0",
    "1.5e3": "1500", "2e-9": "2e-9", "1000k": "1M", "10e2": "1e3", "0.001": "1m", "2048Mi": "2Gi", "12e1": "120",
    "1200e-1": "120", "+.001Gi": "1073741824m", "+1.1Ki": "1126400m", "0.5Ki": "512", "9223372036854775807": "9223372036854775807",
}


@pytest.mark.parametrize(("text", "want"), sorted(APIMACHINERY.items()), ids=repr)
def test_prints_what_apimachinery_prints(text: str, want: str) -> None:
    assert canonical(text) == want


def test_arithmetic_results_are_canonical() -> None:
    assert str(Quantity.parse("+2") + Quantity.parse("+2")) == "4"


@pytest.mark.parametrize("text", ["abc", "1.2.3", "5 Gi", "", "Gi", True], ids=repr)
def test_rejects_what_is_not_a_quantity(text: object) -> None:
    with pytest.raises(QuantityError):
        Quantity.parse(text)


@pytest.mark.parametrize(("text", "want"), [("0.7", 1), ("2.5", 3), ("3.7", 4), ("4", 4), ("250m", 1)], ids=repr)
def test_ceil_rounds_up_like_quantity_value(text: str, want: int) -> None:
    assert Quantity.parse(text).ceil() == want


def test_sums_keep_the_format_of_the_first_non_zero_term() -> None:
    total = Quantity.parse("0") + Quantity.parse("1Gi") + Quantity.parse("512Mi")
    assert str(total) == "1536Mi"
    assert str(Quantity.parse("500m").times(3)) == "1500m"
