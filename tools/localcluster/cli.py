"""A real, local Kubernetes control plane on 127.0.0.1 for the cluster tests (and for trying the stacks).

    tools/cluster up     [--dir DIR] [--nodes N] [--bin BIN] [--crds DIR] [--timeout S]
    tools/cluster down   [--dir DIR] [--purge]
    tools/cluster status [--dir DIR]
    tools/cluster env    [--dir DIR]          # `eval "$(tools/cluster env)"`: KUBECONFIG and PATH
    tools/cluster kubectl [--dir DIR] ARGS... # kubectl against this cluster

`up` starts etcd, kube-apiserver, kube-controller-manager, kube-scheduler, the coscheduling scheduler
of scheduler-plugins (gang scheduling of PodGroups, for Pods with schedulerName
scheduler-plugins-scheduler), kwok (fake nodes whose Pods run to completion), the JobSet
controller with its webhooks served on loopback and Kueue (JobSet integration, its CRDs, its webhooks
on loopback; no queues); generates the
certificates, the admin token and the kubeconfig; installs the CRDs (JobSet, scheduler-plugins and
Volcano PodGroup, Kubeflow Trainer); creates the kwok nodes (cpu, memory, nvidia.com/gpu) and waits
until everything is ready. Its last line of stdout is the kubeconfig path. Running `up` on a dir
whose cluster is stopped starts it again with the same data (etcd), certificates and, when they are
still free, the same ports.

`down` stops only the processes this tool started, by the process ids in DIR/pids (each checked
against the binary it must be running), never by name. `--purge` then deletes DIR.

Binaries: --bin, else $PULUMI_KFT_CLUSTER_BIN, else the last stdout line of tools/bootstrap-cluster
(which builds them on first use). The default DIR is
${XDG_CACHE_HOME:-~/.cache}/pulumi-kubeflow-trainer/clusters/default; use one --dir per cluster to
run several at once (every cluster gets its own free loopback ports).

Pods run by kwok: Running as soon as they are bound, then Succeeded (Pods owned by a Job) about a
second later. A Pod fails instead (phase Failed, exit code 1, reason Error) when it carries the
label or annotation `kwok.kubeflow-trainer.test/fail: "true"`, or when one of its containers has
the environment variable `KWOK_FAIL` (any value). See tools/cluster.md.
"""

from __future__ import annotations

import argparse
import os
import shutil
from pathlib import Path

from . import components
from .errors import ClusterError, log
from .kubectl import Kubectl
from .layout import DEFAULT_DIR, Layout
from .network import LOOPBACK
from .nodes import NODE_SELECTOR
from .pki import read_token
from .probes import http_ok, quiet
from .processes import running_pid, stop_all
from .up import cmd_up

__all__ = ["main"]


def cmd_down(args: argparse.Namespace) -> int:
    layout = Layout(Path(args.dir))
    if not layout.root.exists():
        log(f"nothing at {layout.root}")
        return 0
    stop_all(layout, components.names(components.load()))
    if args.purge:
        if layout.state.exists() or not any(layout.root.iterdir()):
            shutil.rmtree(layout.root)
            log(f"deleted {layout.root}")
        else:
            log(f"not deleting {layout.root}: it has no cluster.json, so it is not a cluster dir")
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    layout = Layout(Path(args.dir))
    state = layout.load()
    if not state:
        print(f"no cluster at {layout.root}")
        return 1
    healthy = True
    for name in components.names(components.load(state.get("optional", []))):
        pid = running_pid(layout, name)
        healthy &= pid is not None
        print(f"{name:24} {'running, pid ' + str(pid) if pid else 'stopped'}")
    if running_pid(layout, "kube-apiserver") and (layout.pki / "tokens.csv").exists():
        healthy &= _api_status(layout, state)
    print(f"{'kubeconfig':24} {layout.kubeconfig}")
    print(f"{'logs':24} {layout.logs}")
    print("healthy" if healthy else "NOT healthy")
    return 0 if healthy else 1


def _api_status(layout: Layout, state: dict) -> bool:
    """Prints whether the API server is ready and how many nodes are; True when all are."""
    port = state.get("ports", {}).get("apiserver")
    ready = quiet(lambda: http_ok(f"https://{LOOPBACK}:{port}/readyz", read_token(layout), layout.pki / "ca.crt"))
    print(f"{'api server':24} https://{LOOPBACK}:{port} {'ready' if ready else 'NOT ready'}")
    if not (ready and state.get("bin")):
        return ready
    kubectl = Kubectl(Path(state["bin"]), layout.kubeconfig)
    result = kubectl("get", "nodes", "-l", NODE_SELECTOR, "-o",
                     'jsonpath={range .items[*]}{.metadata.name}={.status.conditions[?(@.type=="Ready")].status} {end}',
                     check=False)
    nodes = result.stdout.split()
    ready_nodes = [node for node in nodes if node.endswith("=True")]
    print(f"{'nodes ready':24} {len(ready_nodes)}/{len(nodes)}")
    return bool(nodes) and len(ready_nodes) == len(nodes)


def _state(args: argparse.Namespace) -> tuple[Layout, dict]:
    layout = Layout(Path(args.dir))
    state = layout.load()
    if not state:
        raise ClusterError(f"no cluster at {layout.root}; run tools/cluster up")
    return layout, state


def cmd_env(args: argparse.Namespace) -> int:
    layout, state = _state(args)
    print(f"export KUBECONFIG={layout.kubeconfig}")
    print(f"export PATH={state['bin']}:$PATH")
    return 0


def cmd_kubectl(args: argparse.Namespace) -> int:
    layout, state = _state(args)
    argv = [str(Path(state["bin"]) / "kubectl"), f"--kubeconfig={layout.kubeconfig}", *args.kubectl_args]
    os.execv(argv[0], argv)


COMMANDS = {"up": cmd_up, "down": cmd_down, "status": cmd_status, "env": cmd_env, "kubectl": cmd_kubectl}


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="tools/cluster", description=__doc__.split("\n\n")[0],
                                  formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    commands = top.add_subparsers(dest="command", required=True)
    for name in COMMANDS:
        sub = commands.add_parser(name)
        sub.add_argument("--dir", default=os.environ.get("PULUMI_KFT_CLUSTER_DIR") or str(DEFAULT_DIR),
                         help="cluster dir (data, certs, logs, pids, kubeconfig)")
        if name == "up":
            sub.add_argument("--nodes", type=int, default=2, help="kwok nodes (default 2)")
            sub.add_argument("--bin", help="dir with the binaries (default: tools/bootstrap-cluster)")
            sub.add_argument("--crds", help="dir of CRD YAML files (default: $PULUMI_KFT_CRDS, else "
                                            "crds/ of tools/fetch-reference)")
            sub.add_argument("--timeout", type=float, default=120.0, help="seconds to wait for each step")
            sub.add_argument("--keep-on-failure", action="store_true", help="leave processes running if up fails")
            sub.add_argument("--trainer-controller", dest="optional", action="append_const", const="trainer_controller",
                             help="also run the Kubeflow Trainer controller manager v2.3.0 (tools/build-oracle builds "
                                  "it; kept on for this dir's restarts)")
        if name == "down":
            sub.add_argument("--purge", action="store_true", help="also delete the cluster dir")
        if name == "kubectl":
            sub.add_argument("kubectl_args", nargs=argparse.REMAINDER)
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except ClusterError as error:
        log(f"ERROR: {error}")
        return 1
