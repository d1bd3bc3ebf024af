"""The pack's plumbing: property values from pulumi-policy's proxies, config over defaults, the entry."""

from __future__ import annotations

import sys
from typing import Any

import pytest
from pulumi_policy import PolicyConfigSchema
from pulumi_policy.proxy import UNKNOWN_NUMBER_VALUE, UNKNOWN_STRING_VALUE, unknown_checking_proxy

from pulumi_kubeflow_trainer.policy import __main__ as entry
from pulumi_kubeflow_trainer.policy.inventory import UNKNOWN
from pulumi_kubeflow_trainer.policy.pack import plain
from pulumi_kubeflow_trainer.policy.rules import RULES


def test_property_values_lose_the_proxies_keep_unknowns_as_unknown_and_whole_numbers_as_int() -> None:
    props = unknown_checking_proxy({
        "spec": {"replicas": 2.0, "cpu": 0.5, "image": UNKNOWN_STRING_VALUE, "jobs": [{"n": UNKNOWN_NUMBER_VALUE}, "x"]},
    })
    assert plain(props) == {"spec": {"replicas": 2, "cpu": 0.5, "image": UNKNOWN, "jobs": [{"n": UNKNOWN}, "x"]}}
    assert type(plain(props)["spec"]["replicas"]) is int


@pytest.mark.parametrize("rule", RULES, ids=lambda rule: rule.name)
def test_every_policy_has_a_default_for_every_setting_and_a_schema_pulumi_policy_accepts(rule: Any) -> None:
    assert rule.settings(None) == {key: schema["default"] for key, schema in rule.properties.items()}
    assert rule.level in ("advisory", "mandatory")
    if rule.properties:
        PolicyConfigSchema({key: dict(value) for key, value in rule.properties.items()})


def test_the_config_replaces_only_the_settings_it_names() -> None:
    rule = next(rule for rule in RULES if rule.name == "max-gpus-per-trainjob")
    assert rule.settings({"limit": 32, "enforcementLevel": "advisory"}) == {"limit": 32, "resourceNames": ["nvidia.com/gpu"]}


def test_the_entry_run_by_hand_prints_how_to_run_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert entry.main([]) == 0
    assert 'pulumi preview --policy-pack "$(command -v kubeflow-trainer-policy)"' in capsys.readouterr().out


def test_the_entry_without_pulumi_policy_says_which_extra_to_install(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "pulumi_policy", None)  # as if not installed: the import raises ImportError
    assert entry.main(["127.0.0.1:1234"]) == 1
    assert capsys.readouterr().err.strip() == (
        "kubeflow-trainer-policy: pulumi-policy is not installed: pip install 'pulumi-kubeflow-trainer[policy]'"
    )
