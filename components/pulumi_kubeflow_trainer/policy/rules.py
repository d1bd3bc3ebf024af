"""The pack's policies: name, default enforcement level, config schema with defaults, judging function.

Each property's `default` is what the policy uses when the policy config (`pulumi preview
--policy-pack-config file.json`) does not set it; docs/policy.md lists them (a test keeps it true).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .gpus import NEEDS_QUEUE, PER_NAMESPACE, PER_TRAINJOB, gpu_trainjobs_need_a_queue, max_gpus_per_namespace, max_gpus_per_trainjob
from .host_access import NO_HOST_ACCESS, no_host_access
from .images import ALLOWED_REGISTRIES, allowed_image_registries
from .inventory import Inventory, Violation
from .runtimes import ALLOWED, DEPRECATED, allowed_runtimes, deprecated_runtimes

MANDATORY, ADVISORY = "mandatory", "advisory"
Judge = Callable[[Inventory, Mapping[str, Any]], list[Violation]]


@dataclass(frozen=True)
class Rule:
    name: str
    description: str
    level: str
    properties: Mapping[str, Mapping[str, Any]]  # JSON schema of the config, each with a `default`
    judge: Judge

    def settings(self, config: Mapping[str, Any] | None) -> dict[str, Any]:
        """The config the judge gets: the policy config's values over the defaults."""
        given = config or {}
        return {key: given.get(key, schema["default"]) for key, schema in self.properties.items()}


def _strings(description: str) -> dict[str, Any]:
    return {"type": "array", "items": {"type": "string"}, "default": [], "description": description}


def _limit(description: str) -> dict[str, Any]:
    return {"type": ["integer", "null"], "minimum": 0, "default": None, "description": description}


def _flag(description: str) -> dict[str, Any]:
    return {"type": "boolean", "default": False, "description": description}


GPU_NAMES = {**_strings("the extended resources counted as GPUs"), "default": ["nvidia.com/gpu"]}

RULES: tuple[Rule, ...] = (
    Rule(ALLOWED, "TrainJobs use only the allowed runtimes (by name or by label)", MANDATORY, {
        "names": _strings("runtime names allowed (either kind); with `labels` empty and this empty, every runtime is allowed"),
        "labels": {"type": "object", "additionalProperties": {"type": "string"}, "default": {},
                   "description": "a runtime carrying every one of these labels is allowed"},
    }, allowed_runtimes),
    Rule(DEPRECATED, "TrainJobs should not use a runtime labelled trainer.kubeflow.org/support=deprecated", ADVISORY, {},
         deprecated_runtimes),
    Rule(PER_TRAINJOB, "A TrainJob (or JobSet) asks for at most `limit` GPUs (per-node ask x pods, as rendered)", MANDATORY, {
        "limit": _limit("the most GPUs one TrainJob or JobSet may ask for; null: no limit"),
        "resourceNames": GPU_NAMES,
    }, max_gpus_per_trainjob),
    Rule(PER_NAMESPACE, "The TrainJobs and JobSets of the stack in one namespace ask for at most its limit of GPUs", MANDATORY, {
        "limit": _limit("the most GPUs per namespace, for namespaces not in `namespaces`; null: no limit"),
        "namespaces": {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}, "default": {},
                       "description": "a limit per namespace, over `limit`"},
        "resourceNames": GPU_NAMES,
    }, max_gpus_per_namespace),
    Rule(NEEDS_QUEUE, "A TrainJob or JobSet that asks for GPUs names a Kueue queue (label kueue.x-k8s.io/queue-name)", MANDATORY, {
        "queues": _strings("the queue names allowed; empty: any queue"),
        "resourceNames": GPU_NAMES,
    }, gpu_trainjobs_need_a_queue),
    Rule(ALLOWED_REGISTRIES, "Container images come from the allowed registries", MANDATORY, {
        "registries": _strings("registries or repository prefixes allowed (ghcr.io/acme, docker.io/pytorch); empty: any"),
    }, allowed_image_registries),
    Rule(NO_HOST_ACCESS, "No privileged container, hostPath volume or host networking, from runtime patches or in the pod specs",
         MANDATORY, {
        "allowPrivileged": _flag("allow privileged containers"),
        "allowHostPath": _flag("allow hostPath volumes"),
        "allowHostNetwork": _flag("allow hostNetwork: true"),
    }, no_host_access),
)
