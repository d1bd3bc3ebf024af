from dataclasses import dataclass
from typing import Any

import pytest

from pulumi_kubeflow_trainer.framework.merge import clone, strategic_merge


@dataclass(frozen=True)
class Case:
    name: str
    original: dict[str, Any]
    patch: dict[str, Any]
    want: dict[str, Any]


def env(*pairs: tuple[str, str]) -> list[dict[str, str]]:
    return [{"name": name, "value": value} for name, value in pairs]


CASES = [
    Case(
        "env merges by name and new vars come before original-only vars that follow them",
        {"env": env(("A", "1"), ("B", "2"))},
        {"env": env(("A", "x"), ("C", "3"))},
        {"env": env(("A", "x"), ("C", "3"), ("B", "2"))},
    ),
    Case(
        "an original-only item that precedes a patched one keeps its place",
        {"env": env(("A", "1"), ("B", "2"))},
        {"env": env(("B", "x"))},
        {"env": env(("A", "1"), ("B", "x"))},
    ),
    Case(
        "volume mounts merge by mount path, not by name",
        {"volumeMounts": [{"name": "a", "mountPath": "/a"}]},
        {"volumeMounts": [{"name": "a", "mountPath": "/b"}]},
        {"volumeMounts": [{"name": "a", "mountPath": "/b"}, {"name": "a", "mountPath": "/a"}]},
    ),
    Case(
        "tolerations are replaced, being atomic",
        {"tolerations": [{"key": "a"}]},
        {"tolerations": [{"key": "b"}]},
        {"tolerations": [{"key": "b"}]},
    ),
    Case(
        "node selectors merge key by key",
        {"nodeSelector": {"a": "1"}},
        {"nodeSelector": {"b": "2"}},
        {"nodeSelector": {"a": "1", "b": "2"}},
    ),
    Case(
        "nested structs merge recursively and their unkeyed lists are replaced",
        {"affinity": {"nodeAffinity": {"x": 1, "terms": [1, 2]}}},
        {"affinity": {"nodeAffinity": {"terms": [3]}}},
        {"affinity": {"nodeAffinity": {"x": 1, "terms": [3]}}},
    ),
    Case(
        "finalizers are a set union with the patch's first",
        {"finalizers": ["a", "b"]},
        {"finalizers": ["c", "a"]},
        {"finalizers": ["c", "a", "b"]},
    ),
    Case(
        "containers merge by name, keeping fields the patch does not name; new env goes first",
        {"containers": [{"name": "node", "image": "i", "env": env(("A", "1"))}]},
        {"containers": [{"name": "node", "env": env(("B", "2"))}]},
        {"containers": [{"name": "node", "image": "i", "env": env(("B", "2"), ("A", "1"))}]},
    ),
    Case("a null in the patch deletes the field", {"a": 1, "b": 2}, {"a": None}, {"b": 2}),
]


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.name)
def test_strategic_merge(case: Case) -> None:
    original = clone(case.original)
    assert strategic_merge(original, case.patch) == case.want
    assert original == case.original, "the original must not be modified"


def test_clone_is_deep() -> None:
    original = {"a": [{"b": 1}]}
    copied = clone(original)
    copied["a"][0]["b"] = 2
    assert original == {"a": [{"b": 1}]}
