"""`trainjob list|get|logs|wait`: the TrainJobs of a cluster, as kubectl reads one.

The cluster: `--kubeconfig` (else $KUBECONFIG, else ~/.kube/config, else in-cluster) and `--context`;
the namespace: `-n`, else the context's; `-A` for all (list). `-o json|yaml` prints the data
(details.py) for scripts; the default is a table that fits the terminal.

`wait` returns when the TrainJob is Complete (exit status 0) or Failed (3), or when the timeout
passed first (4); 1 is an error (cannot read the cluster, no such TrainJob), as for every command.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..status import COMPLETE, FAILED
from ..yamlio import dump
from .details import SUMMARY_KEYS, details, summary
from .kubeclient import KubeAPI
from .kubeconfig import KubeAPIError
from .logs import log_lines
from .trainjobs import STATES, LiveTrainJob, find, find_all
from .waiting import wait_for_state

FAILED_EXIT, TIMED_OUT_EXIT = 3, 4


def add_parsers(commands: Any) -> None:
    """The four commands, on `trainjob`'s subparsers."""
    listing = commands.add_parser("list", help="list the TrainJobs of a namespace (JobSets made here, TrainJob objects)")
    get = commands.add_parser("get", help="a TrainJob's state, conditions, admission, Pods and why it fails or waits")
    logs = commands.add_parser("logs", help="print a TrainJob's log (rank 0 by default)")
    wait = commands.add_parser("wait", help="wait until a TrainJob is Complete or Failed; the exit status says which")
    for command in (listing, get, logs, wait):
        command.add_argument("--kubeconfig", metavar="FILE", help="kubeconfig file (default: $KUBECONFIG, ~/.kube/config)")
        command.add_argument("--context", help="the kubeconfig context (default: its current context)")
        command.add_argument("-n", "--namespace", help="the namespace (default: the context's)")
    for command in (get, logs, wait):
        command.add_argument("name", metavar="NAME", help="the TrainJob's name")
    for command in (listing, get, wait):
        command.add_argument("-o", "--output", choices=("table", "json", "yaml"), default="table", help="output format")
    listing.add_argument("-A", "--all-namespaces", action="store_true", help="the TrainJobs of every namespace")
    logs.add_argument("--node", type=int, default=0, metavar="N", help="the node (rank) whose log to print (default 0)")
    logs.add_argument("--all", action="store_true", help="every Pod's log, each line prefixed by its step")
    logs.add_argument("-f", "--follow", action="store_true", help="stream the log (waits for the Pod to start)")
    logs.add_argument("--previous", action="store_true", help="the log of the container's previous run (after a restart)")
    logs.add_argument("--tail", type=int, metavar="LINES", help="the last LINES lines only")
    wait.add_argument("--timeout", type=float, default=600.0, metavar="SECONDS", help="give up after this long (default 600)")


def _api(args: argparse.Namespace) -> tuple[KubeAPI, str]:
    if args.kubeconfig and not Path(args.kubeconfig).expanduser().is_file():
        raise KubeAPIError(f"--kubeconfig {args.kubeconfig}: no such file")
    api = KubeAPI(kubeconfig=args.kubeconfig, context=args.context)
    return api, args.namespace or api.namespace


def run_list(args: argparse.Namespace) -> int:
    api, namespace = _api(args)
    rows = [summary(job) for job in find_all(api, None if args.all_namespaces else namespace)]
    if args.output != "table":
        return _print_data(rows, args.output)
    columns = [key for key in SUMMARY_KEYS if key != "created" and (key != "namespace" or args.all_namespaces)]
    if not rows:
        where = "any namespace" if args.all_namespaces else f"namespace {namespace}"
        print(f"No TrainJobs in {where}.", file=sys.stderr)
        return 0
    print(table(columns, rows))
    return 0


def run_get(args: argparse.Namespace) -> int:
    api, namespace = _api(args)
    found = details(api, find(api, namespace, args.name))
    if args.output != "table":
        return _print_data(found, args.output)
    print(describe(found))
    return 0


def run_logs(args: argparse.Namespace) -> int:
    api, namespace = _api(args)
    job = find(api, namespace, args.name)
    for line in log_lines(api, job, rank=args.node, every_pod=args.all, follow=args.follow, previous=args.previous, tail=args.tail):
        print(line, flush=args.follow)
    return 0


def run_wait(args: argparse.Namespace) -> int:
    api, namespace = _api(args)
    job, finished = wait_for_state(api, namespace, args.name, (COMPLETE, FAILED), timeout=args.timeout, on_poll=_progress(args))
    found = summary(job) if job.state == COMPLETE else details(api, job)
    if args.output != "table":
        _print_data(found, args.output)
    else:
        print(f"TrainJob {namespace}/{job.name}: {job.state}" + ("" if finished else f" still, after {args.timeout:g} s"))
        for hint in found.get("hints") or []:
            print(_hint_text(hint))
    if not finished:
        return TIMED_OUT_EXIT
    return 0 if job.state == COMPLETE else FAILED_EXIT


def _progress(args: argparse.Namespace) -> Callable[[LiveTrainJob], None]:
    """A line on stderr whenever the state changes (the table output only)."""
    seen: list[str] = []

    def report(job: LiveTrainJob) -> None:
        if args.output == "table" and (not seen or seen[-1] != job.state):
            seen.append(job.state)
            print(f"{job.namespace}/{job.name}: {job.state}", file=sys.stderr, flush=True)

    return report


def _print_data(data: Any, output: str) -> int:
    sys.stdout.write(json.dumps(data, indent=2) + "\n" if output == "json" else dump(data))
    return 0


def table(columns: Sequence[str], rows: Sequence[dict[str, Any]], width: int | None = None) -> str:
    """Rows under upper-case headers, the widest column cut (ending in `~`) until the table fits `width`
    (default: the terminal's)."""
    cells = [[str(row.get(column) if row.get(column) not in (None, "") else "-") for column in columns] for row in rows]
    widths = [max(len(column), *(len(line[index]) for line in cells)) for index, column in enumerate(columns)]
    limit = width or shutil.get_terminal_size((120, 24)).columns
    while sum(widths) + 3 * (len(widths) - 1) > limit and max(widths) > 8:
        widths[widths.index(max(widths))] -= 1
    header = [column.upper() for column in columns]
    lines = [header, *cells]
    return "\n".join("   ".join(_fit(cell, widths[index]) for index, cell in enumerate(line)).rstrip() for line in lines)


def _fit(cell: str, width: int) -> str:
    return cell.ljust(width) if len(cell) <= width else cell[: width - 1] + "~"


def describe(found: dict[str, Any]) -> str:
    """`get`'s text: the summary, conditions, jobs, admission, Pods and hints."""
    lines = [f"Name:       {found['namespace']}/{found['name']}   ({found['mode']} mode)",
             f"State:      {found['state']}   nodes {found['nodes']}   queue {found['queue'] or '-'}   "
             f"runtime {found['runtime'] or '-'}   age {found['age']}"]
    conditions = [{"type": c.get("type"), "status": c.get("status"), "reason": c.get("reason"), "message": c.get("message")}
                  for c in found["conditions"]]
    lines += _section("Conditions", ("type", "status", "reason", "message"), conditions)
    lines += _section("Jobs", ("name", "active", "ready", "succeeded", "failed", "suspended"), found["jobsStatus"])
    admission = found["admission"]
    where = f" in ClusterQueue {admission['clusterQueue']}" if admission.get("clusterQueue") else ""
    why = f": {admission.get('reason')}: {admission.get('message')}" if admission.get("reason") else ""
    lines.append(f"Admission:  {admission['state']}{where}{why}")
    lines += _section("Pods", ("step", "pod", "phase", "node", "restarts"), found["pods"])
    if found["hints"]:
        lines += ["Hints:", *("  " + _hint_text(hint).replace("\n", "\n  ") for hint in found["hints"])]
    return "\n".join(lines)


def _section(title: str, columns: Sequence[str], rows: Sequence[dict[str, Any]]) -> list[str]:
    if not rows:
        return [f"{title + ':':<11} none"]
    return [f"{title}:", *("  " + line for line in table(columns, rows).splitlines())]


def _hint_text(hint: dict[str, Any]) -> str:
    text = f"{hint['cause']}: {hint['subject']}: {hint['message']}"
    if hint.get("logTail"):
        text += "\n  last log lines:\n" + "\n".join(f"    {line}" for line in hint["logTail"])
    return text


COMMANDS = {"list": run_list, "get": run_get, "logs": run_logs, "wait": run_wait}
__all__ = ["COMMANDS", "STATES", "add_parsers", "describe", "table"]
