"""allowed-image-registries: every container image of the rendered pods comes from an allowed registry."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .inventory import Inventory, Violation, unjudged
from .pods import containers

ALLOWED_REGISTRIES = "allowed-image-registries"
DOCKER_HUB = "docker.io"


def repository(image: str) -> str:
    """The image's repository with its registry, as a container runtime resolves it: `pytorch/pytorch:2`
    is `docker.io/pytorch/pytorch`, `busybox` is `docker.io/library/busybox`."""
    name = image.split("@", 1)[0]
    last = name.rsplit("/", 1)[-1]
    if ":" in last:
        name = name[: len(name) - len(last)] + last.split(":", 1)[0]
    first, slash, _rest = name.partition("/")
    if slash and ("." in first or ":" in first or first == "localhost"):
        return name
    return f"{DOCKER_HUB}/{name}" if slash else f"{DOCKER_HUB}/library/{name}"


def allowed(image: str, registries: list[str]) -> bool:
    """`ghcr.io/acme` allows `ghcr.io/acme/train:1` but not `ghcr.io/acme-other/x`; a repository
    (`ghcr.io/acme/train`) allows itself."""
    resolved = repository(image)
    return any(resolved == entry.rstrip("/") or resolved.startswith(entry.rstrip("/") + "/") for entry in registries)


def allowed_image_registries(stack: Inventory, config: Mapping[str, Any]) -> list[Violation]:
    """One violation per image and workload, naming the first field that uses it."""
    registries = list(config["registries"])
    if not registries:
        return []
    found = []
    for workload in stack.workloads:
        seen: set[str] = set()
        for template in workload.pods:
            for item in containers(template.spec, template.path):
                image = item.container.get("image")
                if not isinstance(image, str) or image in seen or allowed(image, registries):
                    continue
                seen.add(image)
                found.append(Violation(
                    f'{workload.subject}: {item.path}.image: "{image}" ({repository(image)}) is not from an allowed registry: '
                    f"{', '.join(registries)} (policy {ALLOWED_REGISTRIES})",
                    workload.urn,
                ))
    return found + unjudged(stack, ALLOWED_REGISTRIES)
