"""One v1 Pod against the v2 Pod that does its work.

`Comparison.pair()` returns the differences, each at the path of the v1 document field it comes from
(the test accepts one only where migrate reported a loss at that path), and raises MappingError where
the distributed env does not follow the env mapping (pulumi_kubeflow_trainer.migration.envmap),
which nothing excuses.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pulumi_kubeflow_trainer.api import constants as c
from pulumi_kubeflow_trainer.api.quantity import Quantity
from pulumi_kubeflow_trainer.migration.envmap import V2_ONLY, EnvMapping, mappings
from pulumi_kubeflow_trainer.migration.plan import node_host
from pulumi_kubeflow_trainer.migration.v1job import KINDS, KindRules

from .pods import V1_LABEL_PREFIX, Pod, clean, leaf_differences, rank_of, same, v1_host

# What each side's operator adds to a Pod, besides the env: not the user's, so not compared.
V1_VOLUMES = {"mpi-job-kubectl", "mpi-job-config"}
V2_VOLUMES = {"mpi-ssh-auth", "mpi-hostfile"}
V1_INIT_CONTAINERS = {"init-pytorch", "kubectl-delivery"}
POD_KEYS_COMPARED_APART = ("containers", "initContainers", "volumes", "restartPolicy", "serviceAccountName")
CONTAINER_KEYS_COMPARED_APART = ("name", "env", "ports", "volumeMounts")


class MappingError(AssertionError):
    pass


@dataclass
class Comparison:
    manifest: dict[str, Any]  # the v1 job as written
    v2_env_names: set[str] = field(default_factory=set)  # filled per pair

    @property
    def rules(self) -> KindRules:
        return KINDS[self.manifest["kind"]]

    @property
    def name(self) -> str:
        return str(self.manifest["metadata"]["name"])

    @property
    def has_master(self) -> bool:
        return "Master" in self.manifest["spec"][self.rules.specs_key]

    def template(self, role: str) -> dict[str, Any]:
        return self.manifest["spec"][self.rules.specs_key][role]["template"]  # type: ignore[no-any-return]

    def pair(self, v1: Pod, v2: Pod) -> list[str]:
        base = f"spec.{self.rules.specs_key}.{v1.role}"
        found = self._pod(v1, v2, base)
        main = self._main_index(v1)
        for index, container in enumerate(v1.spec["containers"]):
            name = c.NODE if index == main else container["name"]
            other = next((item for item in v2.spec["containers"] if item["name"] == name), None)
            path = f"{base}.template.spec.containers[{index}]"
            if other is None:
                found.append(path)
                continue
            found += self._container(container, other, path, main=index == main)
            user_env = (self.template(v1.role)["spec"]["containers"][index].get("env")) or []
            if index == main:
                found += self._env(v1, v2, container.get("env") or [], other.get("env") or [], user_env, path)
            elif not same(other.get("env"), user_env):
                found.append(f"{path}.env")
        return found

    def _main_index(self, pod: Pod) -> int:
        names = [container["name"] for container in pod.spec["containers"]]
        return names.index(self.rules.container) if self.rules.container in names else 0

    def _pod(self, v1: Pod, v2: Pod, base: str) -> list[str]:
        found = []
        user_labels = {key: value for key, value in v1.labels.items() if not key.startswith(V1_LABEL_PREFIX)}
        if user_labels != v2.labels:
            found.append(f"{base}.template.metadata.labels")
        if v1.annotations != v2.annotations:
            found.append(f"{base}.template.metadata.annotations")
        a, b = v1.spec, v2.spec
        for key in sorted(set(a) | set(b)):
            if key not in POD_KEYS_COMPARED_APART:
                found += leaf_differences(a.get(key), b.get(key), f"{base}.template.spec.{key}")
        if a.get("restartPolicy") != (b.get("restartPolicy") or "OnFailure"):  # JobSet's webhook defaults it
            found.append(f"{base}.restartPolicy")
        v1_account = a.get("serviceAccountName")
        if v1_account == f"{self.name}-launcher" and not self.template(v1.role)["spec"].get("serviceAccountName"):
            v1_account = None  # MPI's launcher account for kubectl exec, the operator's
        if v1_account != b.get("serviceAccountName"):
            found.append(f"{base}.template.spec.serviceAccountName")
        if not same(_named(a.get("volumes"), V1_VOLUMES), _named(b.get("volumes"), V2_VOLUMES)):
            found.append(f"{base}.template.spec.volumes")
        if not same(_named(a.get("initContainers"), V1_INIT_CONTAINERS), _named(b.get("initContainers"), set())):
            found.append(f"{base}.template.spec.initContainers")
        return found

    def _container(self, a: dict[str, Any], b: dict[str, Any], path: str, *, main: bool) -> list[str]:
        found = [difference for key in sorted(set(a) | set(b)) if key not in CONTAINER_KEYS_COMPARED_APART
                 for difference in leaf_differences(a.get(key), b.get(key), f"{path}.{key}")]
        v1_mounts = [mount for mount in a.get("volumeMounts") or [] if mount["name"] not in V1_VOLUMES]
        v2_mounts = [mount for mount in b.get("volumeMounts") or [] if mount["name"] not in V2_VOLUMES]
        if not same(v1_mounts, v2_mounts):
            found.append(f"{path}.volumeMounts")
        framework_port = self.rules.port[0] if self.rules.port and self.rules.container != "paddle" else None
        v1_ports = [port for port in a.get("ports") or [] if not main or port.get("name") != framework_port]
        v2_ports = [port for port in b.get("ports") or []
                    if not main or framework_port is None or port.get("containerPort") != c.CONTAINER_TRAINER_PORT]
        if not same(v1_ports, v2_ports):
            found.append(f"{path}.ports")
        return found

    def _env(self, v1: Pod, v2: Pod, v1_env: list[Any], v2_env: list[Any], user: list[Any], path: str) -> list[str]:
        """The user's env as it was (where migrate dropped a variable, the difference is reported at it);
        v1's own variables as the mapping says; nothing else of v2's but what the mapping lists."""
        found, remaining = [], [clean(item) for item in v2_env]
        for index, variable in enumerate(clean(v1_env[: len(user)])):
            if variable in remaining:
                remaining.remove(variable)
            else:
                found.append(f"{path}.env[{index}]")
        table = mappings(self.rules.framework)
        for variable in clean(v1_env[len(user):]):
            name = variable["name"]
            mapping = table.get(name)
            if mapping is None:
                raise MappingError(f"{path}: v1 sets {name}, which the env mapping does not list")
            carried = [item for item in remaining if item["name"] == name]
            if mapping.by == "dropped":
                if carried:
                    raise MappingError(f"{path}: {name} is mapped as dropped, but v2's Pod has {carried}")
                continue
            if not carried:
                raise MappingError(f"{path}: {name} ({mapping.by}) is not in v2's Pod {v2.role}-{v2.index}")
            expected = self._expected(mapping, variable, v1, v2)
            if carried[0].get("value", "") != expected:
                raise MappingError(f"{path}: {name}: v1 {variable.get('value')!r}, v2 {carried[0].get('value')!r}, "
                                   f"the mapping ({mapping.value}) says {expected!r}")
            remaining.remove(carried[0])
        known = set(table) | {name for framework, name, _ in V2_ONLY if framework == self.rules.framework}
        unknown = [item["name"] for item in remaining if item["name"] not in known]
        if unknown:
            raise MappingError(f"{path}: v2's Pod {v2.role}-{v2.index} sets {unknown}, which the env mapping does not list")
        return found

    def _expected(self, mapping: EnvMapping, variable: dict[str, Any], v1: Pod, v2: Pod) -> str:
        value = str(variable.get("value", ""))
        rule = mapping.value
        if rule == "same":
            return value
        if rule == "port":
            return str(c.CONTAINER_TRAINER_PORT)
        if rule == "rank":
            return str(rank_of(v1, self.has_master))
        if rule == "host":
            return self.host(value)
        if rule == "hosts":
            return ",".join(self.host(host) for host in value.split(","))
        if rule == "endpoint":
            host, _, port = value.rpartition(":")
            return f"{self.host(host)}:{port if self._keeps_port() else c.CONTAINER_TRAINER_PORT}"
        if rule == "nnodes":
            return str(self._nodes())
        if rule == "nproc":
            return value if value.isdigit() else _auto_nproc(v2)
        raise AssertionError(f"no check for the rule {rule!r} of {mapping.v1}")

    def host(self, host: str) -> str:
        """v1's host of a Pod (`<job>-<type>-<i>`) as the v2 node of the same rank; other hosts as they are."""
        if host == "$(POD_IP_DUMMY)":
            return node_host(self.name, 0)
        for role in ("Master", "Worker"):
            prefix = v1_host(self.name, role, 0)[:-1]
            if host.startswith(prefix) and host[len(prefix):].isdigit():
                index = int(host[len(prefix):])
                rank = index + (1 if self.has_master and role == "Worker" else 0)
                return node_host(self.name, rank)
        return host

    def _keeps_port(self) -> bool:
        elastic = self.manifest["spec"].get("elasticPolicy") or {}
        return self.rules.kind == "PaddleJob" or elastic.get("rdzvPort") is not None

    def _nodes(self) -> int:
        specs = self.manifest["spec"][self.rules.specs_key]
        return sum(spec.get("replicas", 1) for spec in specs.values())


def _named(items: list[dict[str, Any]] | None, operators: set[str]) -> Any:
    return clean([item for item in items or [] if item.get("name") not in operators])


def _auto_nproc(pod: Pod) -> str:
    """v2's PET_NPROC_PER_NODE without numProcPerNode: `auto` with GPUs, else the CPUs (at least 1)."""
    node = next(item for item in pod.spec["containers"] if item["name"] == c.NODE)
    resources = node.get("resources") or {}
    for source in ("requests", "limits"):
        if any("gpu" in key for key in resources.get(source) or {}):
            return "auto"
    for source in ("requests", "limits"):
        cpu = (resources.get(source) or {}).get("cpu")
        if cpu is not None:
            return str(max(1, Quantity.parse(cpu).ceil()))
    return "1"
