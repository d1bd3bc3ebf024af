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
    Case("exponent notation keeps its format", "1E3", "1e3"),
    Case("values finer than nano round up", "1.0000000001", "1000000001n"),
    Case("zero is zero", "0", "0"),
]


@pytest.mark.parametrize("case", CANONICAL_CASES, ids=lambda case: case.name)
def test_canonical(case: Case) -> None:
    assert canonical(case.given) == case.want


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
