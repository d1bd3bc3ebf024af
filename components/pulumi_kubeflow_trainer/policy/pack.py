"""The pack as Pulumi runs it: the rules as stack policies, plus one resource policy that reads inputs.

What the engine shows a policy (checked with CLI 3.274.1, docs/policy.md): a resource policy gets each
resource's inputs, a stack policy every resource's outputs. A TrainJob component registers no outputs,
so its input `record` (which runtime, its runtime patches) reaches only a resource policy (controller
mode's prediction is an output of its `ControllerPrediction` child, which stack policies see). `kubeflow-trainer-inputs` keeps them,
in this process, for the stack policies that run after every resource was analyzed; it reports nothing.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any

from pulumi_policy import (
    EnforcementLevel,
    PolicyConfigSchema,
    PolicyPack,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
    StackValidationPolicy,
)
from pulumi_policy.proxy import UnknownValueError

from .inventory import UNKNOWN, StackResource
from .rules import RULES, Rule
from .stack import INPUTS_POLICY, TRAINJOB_COMPONENT, inventory

PACK = "kubeflow-trainer"


def plain(value: Any) -> Any:
    """A property value without the SDK's proxies: unknown values as UNKNOWN, whole numbers as int (the
    engine sends every number as a float)."""
    if isinstance(value, Mapping):
        return {key: _item(value, key) for key in value}
    if isinstance(value, Sequence) and not isinstance(value, str):
        return [_item(value, index) for index in range(len(value))]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _item(container: Any, key: Any) -> Any:
    try:
        return plain(container[key])
    except UnknownValueError:
        return UNKNOWN


class ComponentInputs:
    """The inputs of the stack's TrainJob components, by URN, as the resource policy saw them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_urn: dict[str, dict[str, Any]] = {}

    def keep(self, args: ResourceValidationArgs, _report: ReportViolation) -> None:
        if args.resource_type == TRAINJOB_COMPONENT:
            with self._lock:
                self._by_urn[args.urn] = plain(args.props)

    def of(self, urn: str) -> dict[str, Any] | None:
        with self._lock:
            return self._by_urn.get(urn)


def stack_policy(rule: Rule, inputs: ComponentInputs) -> StackValidationPolicy:
    def validate(args: StackValidationArgs, report: ReportViolation) -> None:
        resources = [
            StackResource(r.resource_type, r.urn, plain(r.props), r.parent.urn if r.parent else None, inputs.of(r.urn))
            for r in args.resources
        ]
        for violation in rule.judge(inventory(resources), rule.settings(plain(args.get_config()))):
            report(violation.message, violation.urn)

    schema = PolicyConfigSchema({key: dict(value) for key, value in rule.properties.items()}) if rule.properties else None
    return StackValidationPolicy(rule.name, rule.description, validate, EnforcementLevel(rule.level), schema)


def serve() -> None:
    """Start the analyzer the engine talks to; returns only when the engine stops it."""
    inputs = ComponentInputs()
    keeper = ResourceValidationPolicy(
        INPUTS_POLICY, "Reads the TrainJob components' inputs for the other policies (reports nothing; keep it enabled)",
        inputs.keep, EnforcementLevel.ADVISORY,
    )
    PolicyPack(PACK, [keeper, *(stack_policy(rule, inputs) for rule in RULES)], EnforcementLevel.MANDATORY)
