"""`tools/cluster up`: configure, start every component in order, install the CRDs, create the nodes,
settle; stop what was started if any of it fails."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import components
from .binaries import find_bin
from .components import Component
from .context import Cluster
from .crds import crds_dir, install_crds
from .errors import log
from .kubeconfig import write_kubeconfig
from .layout import Layout
from .network import pick_ports
from .nodes import NODE_CAPACITY, create_nodes
from .pki import make_pki
from .processes import running_pid, start, stop_all


def cmd_up(args: argparse.Namespace) -> int:
    t0 = time.monotonic()
    layout = Layout(Path(args.dir))
    layout.make()
    state = layout.load()
    # Opt-in components stay on for a dir first started with them (a restart keeps what it had).
    optional = sorted(set(getattr(args, "optional", None) or []) | set(state.get("optional", [])))
    parts = components.load(optional)
    bin_dir = find_bin(args.bin, components.binaries(parts))
    if already_up(layout, parts):
        print(layout.kubeconfig)
        return 0
    crds = crds_dir(args.crds)
    state["optional"] = optional
    cluster = prepare(layout, state, bin_dir, parts, args)
    phases: dict[str, float] = {}
    try:
        start_all(cluster, [part for part in parts if not part.after_crds], phases)
        timed(phases, "crds", lambda: install_crds(cluster.kubectl, crds, args.timeout))
        timed(phases, "nodes", lambda: create_nodes(cluster.kubectl, args.nodes, args.timeout))
        start_all(cluster, [part for part in parts if part.after_crds], phases, "after crds")
        timed(phases, "settle", lambda: settle_all(cluster, parts))
    except BaseException:
        if not args.keep_on_failure:
            log("up failed: stopping what was started (--keep-on-failure keeps it for debugging)")
            stop_all(layout, components.names(parts))
        raise
    total = time.monotonic() - t0
    state.update({"started_at": time.time(), "up_seconds": round(total, 1)})
    layout.save(state)
    log("phases: " + ", ".join(f"{name} {seconds:.1f}s" for name, seconds in phases.items()))
    report(cluster, args.nodes, crds, total)
    return 0


def already_up(layout: Layout, parts: list[Component]) -> bool:
    """True when every component runs (and the kubeconfig exists); stops a partly running cluster."""
    running = [running_pid(layout, component.name) is not None for component in parts]
    if all(running) and layout.kubeconfig.exists():
        log(f"already up (dir {layout.root}); `tools/cluster status` for details")
        return True
    if any(running):
        log("some components are running and some are not: stopping them first")
        stop_all(layout, components.names(parts))
    return False


def prepare(layout: Layout, state: dict[str, Any], bin_dir: Path, parts: list[Component],
            args: argparse.Namespace) -> Cluster:
    """Ports (the previous ones if still free), PKI, kubeconfig, every component's config; saved state."""
    ports = pick_ports(components.port_names(parts), state.get("ports"))
    token = make_pki(layout, tuple(component.name for component in parts if component.serves_webhooks))
    write_kubeconfig(layout, ports, token)
    cluster = Cluster(layout, bin_dir, ports, token, args.timeout, tuple(state.get("optional", [])))
    for component in parts:
        component.configure(cluster)
    state.update({"ports": ports, "bin": str(bin_dir), "kubeconfig": str(layout.kubeconfig), "nodes": args.nodes})
    layout.save(state)
    return cluster


def start_all(cluster: Cluster, parts: list[Component], phases: dict[str, float], phase: str = "controllers") -> None:
    """Start the components in order. A gate is awaited before the next starts (its phase is named
    after it); the others of a run of non-gates are awaited together after it (phase `phase`)."""
    mark, pending = time.monotonic(), []
    for component in parts:
        component.before_start(cluster)
        start(cluster.layout, component.name, component.command(cluster), component.env(cluster) or None)
        pending.append(component)
        if component.gate:
            wait_healthy(cluster, pending)
            phases[component.name] = time.monotonic() - mark
            mark, pending = time.monotonic(), []
    if pending:
        wait_healthy(cluster, pending)
        phases[phase] = time.monotonic() - mark


def wait_healthy(cluster: Cluster, parts: list[Component]) -> None:
    for component in parts:
        check = component.health(cluster)
        if check:
            cluster.wait(check[0], check[1], component.name)


def settle_all(cluster: Cluster, parts: list[Component]) -> None:
    for component in parts:
        component.settle(cluster)


def timed(phases: dict[str, float], name: str, step: Callable[[], None]) -> None:
    mark = time.monotonic()
    step()
    phases[name] = time.monotonic() - mark


def report(cluster: Cluster, nodes: int, crds: Path, total: float) -> None:
    """What `up` prints on stdout; the kubeconfig path last (the contract with scripts and tests)."""
    layout = cluster.layout
    print(f"cluster up in {total:.1f}s: dir {layout.root}")
    print(f"api server: {cluster.url('apiserver', 'https')} (Kubernetes {cluster.kubectl.server_version()})")
    print(f"nodes: {nodes} kwok nodes with {', '.join(f'{k}={v}' for k, v in NODE_CAPACITY.items())}")
    print(f"crds: {crds}")
    print(f"use: export KUBECONFIG={layout.kubeconfig}; {cluster.bin_dir}/kubectl get nodes")
    print(layout.kubeconfig)
