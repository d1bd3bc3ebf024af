"""The components of the local cluster, in start order: one module each, with a COMPONENT.

Adding one (a Kueue controller, the coscheduling scheduler, the Trainer controller manager) is a
module here with a Component subclass, and its module name in START_ORDER; its binary must then be
built by tools/bootstrap-cluster.
"""

from __future__ import annotations

import importlib

from .base import Component

START_ORDER = (
    "etcd",
    "apiserver",
    "controller_manager",
    "scheduler",
    "scheduler_plugins",
    "kwok",
    "jobset",
    "kueue",
)
# Opt-in components (`tools/cluster up --trainer-controller`): started after START_ORDER's when asked for
# (or when the cluster dir was first started with them), in this order.
OPTIONAL = ("trainer_controller",)


def load(optional: tuple[str, ...] | list[str] = ()) -> list[Component]:
    unknown = set(optional) - set(OPTIONAL)
    if unknown:
        raise ValueError(f"unknown optional components: {sorted(unknown)}")
    modules = [*START_ORDER, *(module for module in OPTIONAL if module in optional)]
    return [importlib.import_module(f"{__name__}.{module}").COMPONENT for module in modules]


def names(components: list[Component]) -> list[str]:
    return [component.name for component in components]


def port_names(components: list[Component]) -> list[str]:
    return [port for component in components for port in component.ports]


def binaries(components: list[Component]) -> list[str]:
    """Every binary `up` needs in the bin dir: the components' and kubectl."""
    return [*(component.binary for component in components), "kubectl"]
