"""framework/memo: values kept by their key's identity, no longer than the key lives or the limit allows."""

from __future__ import annotations

import gc
from dataclasses import dataclass

import pulumi_kubeflow_trainer as kt
from pulumi_kubeflow_trainer.blueprints import bundled_runtime
from pulumi_kubeflow_trainer.framework import compiled
from pulumi_kubeflow_trainer.framework.memo import IdentityMemo
from tests.builders import make_trainjob


@dataclass(eq=False)
class Key:
    name: str


def test_an_entry_goes_with_its_key() -> None:
    memo: IdentityMemo[Key, str] = IdentityMemo()
    key = Key("a")
    memo.put(key, "value")
    assert memo.get(key) == "value"
    del key
    gc.collect()
    assert len(memo) == 0


def test_entries_whose_values_hold_their_keys_are_dropped_oldest_first_at_the_limit() -> None:
    memo: IdentityMemo[Key, tuple[Key, int]] = IdentityMemo(limit=3)
    keys = [Key(str(number)) for number in range(5)]
    for number, key in enumerate(keys):
        memo.put(key, (key, number))
    assert len(memo) == 3 and memo.get(keys[0]) is None and memo.get(keys[4]) == (keys[4], 4)


def test_rendering_from_dicts_again_and_again_keeps_a_bounded_number_of_compiled_runtimes() -> None:
    runtime = bundled_runtime("torch-distributed").to_manifest()
    trainjob = make_trainjob().runtime_ref("torch-distributed").num_nodes(2).obj()
    for _ in range(compiled.COMPILED_RUNTIMES_KEPT + 50):
        kt.render([runtime, trainjob])  # a new runtime model each call
    gc.collect()
    assert len(compiled._COMPILED) <= compiled.COMPILED_RUNTIMES_KEPT
