"""Pod templates of v1 replica specs, made ready for v2: the operator's container becomes `node`, its
framework port goes (v2's ML policy declares its own), and what v1 ignored or pruned is reported."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..api import constants as c
from .report import Losses
from .v1job import KindRules, ReplicaSpec

TEMPLATE_KEYS = ("metadata", "spec")
TEMPLATE_METADATA_KEYS = ("labels", "annotations")
_RESTART_POLICIES = {"OnFailure": "OnFailure", "Never": "Never", "ExitCode": "Never", "Always": "OnFailure"}


def main_container_index(rules: KindRules, containers: list[Mapping[str, Any]]) -> int:
    """The container v1 configures: the one of the kind's default name, else the first (v1's
    getDefaultContainerIndex; MPI always takes the first)."""
    if rules.container is not None:
        for index, container in enumerate(containers):
            if container.get("name") == rules.container:
                return index
    return 0


def node_template(rules: KindRules, replica: ReplicaSpec, losses: Losses, *, drop_port: bool) -> dict[str, Any]:
    """The replica's pod template with its main container named `node` (what v2's plugins configure)
    and, when `drop_port`, without the port v1 used for its own rendezvous."""
    template = _pruned_template(replica, losses)
    containers = template["spec"]["containers"]
    main = containers[main_container_index(rules, containers)]
    path = f"{replica.path}.template.spec.containers[{containers.index(main)}]"
    others = [container.get("name") for container in containers if container is not main]
    if c.NODE in others:
        losses.add(f"{replica.path}.template.spec.containers", f"a container named {c.NODE!r} besides {main.get('name')!r}: "
                                                              f"v2 configures the container named {c.NODE!r}, so it is renamed "
                                                              f"to {c.NODE}-sidecar")
        for container in containers:
            if container is not main and container.get("name") == c.NODE:
                container["name"] = f"{c.NODE}-sidecar"
    main["name"] = c.NODE
    if drop_port and rules.port is not None:
        _drop_framework_port(main, rules.port[0], path, losses)
    return template


def _pruned_template(replica: ReplicaSpec, losses: Losses) -> dict[str, Any]:
    """The template as v1's API server kept it: a PodTemplateSpec has metadata and spec only."""
    template = replica.template
    for key in [key for key in template if key not in TEMPLATE_KEYS]:
        losses.add(f"{replica.path}.template.{key}", "not a field of a pod template: the API server pruned it for v1 too")
        del template[key]
    metadata = template.get("metadata")
    if isinstance(metadata, Mapping):
        kept = {key: value for key, value in metadata.items() if key in TEMPLATE_METADATA_KEYS and value}
        for key, value in metadata.items():
            if key not in TEMPLATE_METADATA_KEYS and value is not None:
                losses.add(f"{replica.path}.template.metadata.{key}", "the operator names and places the Pods itself, and "
                                                                      "v2's JobSet does too: only labels and annotations are carried")
        template["metadata"] = kept
        if not kept:
            del template["metadata"]
    return template


def _drop_framework_port(container: dict[str, Any], port_name: str, path: str, losses: Losses) -> None:
    ports = [port for port in container.get("ports") or [] if not (isinstance(port, Mapping) and port.get("name") == port_name)]
    dropped = len(container.get("ports") or []) - len(ports)
    if dropped:
        losses.add(f"{path}.ports", f"the port named {port_name!r} was v1's rendezvous port; v2's ML policy declares its own "
                                    f"({c.CONTAINER_TRAINER_PORT}) and sets the env to it, so it is not carried")
    if ports:
        container["ports"] = ports
    else:
        container.pop("ports", None)


def pod_restart_policy(replica: ReplicaSpec, losses: Losses, *, carried: bool = True) -> str:
    """The Pods' restartPolicy v1 gave (its replica restartPolicy wins over the template's), as v2's Jobs take it;
    what v2 makes of ExitCode and Always is reported only for a replica whose Pods v2 runs (`carried`)."""
    given = (replica.template.get("spec") or {}).get("restartPolicy")
    if given:
        losses.add(f"{replica.path}.template.spec.restartPolicy", f"ignored by v1 too: the replica's restartPolicy "
                                                                  f"({replica.restart_policy}) replaced it")
        del replica.template["spec"]["restartPolicy"]
    policy = replica.restart_policy
    if carried and policy == "ExitCode":
        losses.add(f"{replica.path}.restartPolicy", "ExitCode: v1 restarted a Pod whose exit code was retryable (128 and up) "
                                                    "and failed the job otherwise; v2's Jobs run the Pods with restartPolicy Never "
                                                    "and retry failed Pods up to the Job's backoffLimit whatever the code")
    elif carried and policy == "Always":
        losses.add(f"{replica.path}.restartPolicy", "Always: a Job's Pods cannot restart always; v2 runs them with OnFailure, "
                                                    "so a container that exits 0 is done")
    return _RESTART_POLICIES[policy]


def differences(kept: Any, other: Any, path: str) -> list[str]:
    """The paths (under `path`) where `other` differs from `kept`; lists of another length differ as a whole."""
    if isinstance(kept, Mapping) and isinstance(other, Mapping):
        found = []
        for key in sorted(set(kept) | set(other)):
            found += differences(kept.get(key), other.get(key), f"{path}.{key}")
        return found
    if isinstance(kept, list) and isinstance(other, list) and len(kept) == len(other):
        return [found for index, (a, b) in enumerate(zip(kept, other, strict=True)) for found in differences(a, b, f"{path}[{index}]")]
    return [] if kept == other else [path]
