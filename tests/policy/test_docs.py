"""docs/policy.md and stacks/policy-config.json say what the pack does: every policy, level and default,
and config examples that the pack's own schemas accept."""

from __future__ import annotations

import json
import re
from typing import Any

import jsonschema
import pytest

from pulumi_kubeflow_trainer.policy.rules import RULES
from tests.builders import gpu_runtime, gpu_trainjob, make_runtime, make_trainjob, policy_stack
from tests.toolchain import REPO

DOC = (REPO / "docs" / "policy.md").read_text()
LEVELS = ("advisory", "mandatory", "disabled")


def documented_rows() -> set[tuple[str, str, str, str]]:
    rows = set()
    for line in DOC.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0].startswith("`") and cells[1] in LEVELS:
            rows.add((cells[0].strip("`"), cells[1], cells[2].strip("`"), cells[3].strip("`")))
    return rows


def test_the_config_reference_lists_every_policy_its_level_and_each_setting_with_its_default() -> None:
    expected = set()
    for rule in RULES:
        settings = [(key, json.dumps(schema["default"])) for key, schema in rule.properties.items()] or [("(none)", "")]
        expected |= {(rule.name, rule.level, key, default) for key, default in settings}
    assert documented_rows() == expected


def check_config(config: dict[str, Any]) -> None:
    """A policy config file as the CLI checks it: known policy names, levels, settings against the schemas."""
    rules = {rule.name: rule for rule in RULES}
    for name, value in config.items():
        assert name == "all" or name in rules, f"{name} is not a policy of the pack"
        if isinstance(value, str):
            assert value in LEVELS
            continue
        settings = {key: item for key, item in value.items() if key != "enforcementLevel"}
        assert value.get("enforcementLevel", "advisory") in LEVELS
        schema = {"type": "object", "properties": dict(rules[name].properties), "additionalProperties": False}
        jsonschema.validate(settings, schema)


def test_the_example_config_of_the_docs_fits_the_schemas() -> None:
    (example,) = re.findall(r"```json\n(.*?)```", DOC, re.DOTALL)
    check_config(json.loads(example))


def test_the_example_config_of_the_stacks_fits_the_schemas() -> None:
    check_config(json.loads((REPO / "stacks" / "policy-config.json").read_text()))


def test_the_readme_block_is_short_and_has_the_command() -> None:
    block = DOC.split("<!-- README block", 1)[1].split("<!-- end of README block -->", 1)[0].splitlines()[1:]
    assert 5 <= len(block) <= 10
    assert 'pulumi preview --policy-pack "$(command -v kubeflow-trainer-policy)"' in "\n".join(block)


@pytest.fixture
def everything_wrong() -> Any:
    old = gpu_runtime("old-torch", **{"trainer.kubeflow.org/support": "deprecated"})
    host = make_runtime("host").torch().trainer(hostNetwork=True)
    stack = policy_stack().runtime_component(old).runtime_component(host)
    stack.trainjob(gpu_trainjob("big", gpus=8, nodes=64, runtime="old-torch").image("docker.io/me/x:1"), old)
    return stack.trainjob(make_trainjob("team-a", "host").runtime_ref("host"), host).inventory()


def test_without_config_only_host_access_and_the_queue_are_enforced_and_deprecated_runtimes_warned(everything_wrong: Any) -> None:
    """What docs/policy.md says the defaults do: limits and allow-lists are off until configured."""
    found = {rule.name: [v.message for v in rule.judge(everything_wrong, rule.settings(None))] for rule in RULES}
    assert {name: len(messages) for name, messages in found.items() if messages} == {
        "deprecated-runtimes": 1, "gpu-trainjobs-need-a-queue": 1, "no-host-access": 1}
    assert {rule.name: rule.level for rule in RULES if found[rule.name]} == {
        "deprecated-runtimes": "advisory", "gpu-trainjobs-need-a-queue": "mandatory", "no-host-access": "mandatory"}
