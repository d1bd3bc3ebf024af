"""`run_local()`: a TrainJob's JobSet as local processes, in the order and with the outcome JobSet gives."""

from __future__ import annotations

import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from ..loading import Source
from .inputs import prepare_manifests
from .plan import LocalPlan, plan_jobset
from .pods import HostEnv, PodRun, declared_ports, prepare_pod
from .process import LogSink
from .rewrite import PortMap, Rewriter

COMPLETED, FAILED = "Completed", "Failed"
POLL_SECONDS = 0.05


@dataclass(frozen=True)
class LocalRunResult:
    """The run's terminal state, worded like the JobSet's condition."""

    job: str
    status: str  # Completed | Failed
    reason: str  # AllJobsCompleted | FailedJobs | DeadlineExceeded | Interrupted | Stuck
    message: str
    workdir: Path
    failed_pod: str | None = None
    failed_container: str | None = None
    exit_code: int | None = None
    exit_codes: dict[str, int | None] = field(default_factory=dict)  # pod → its first non-zero or 0, None if unfinished

    @property
    def ok(self) -> bool:
        return self.status == COMPLETED

    def __str__(self) -> str:
        return f"TrainJob {self.job}: {self.status} ({self.reason}): {self.message}"


def run_local(
    manifests: Source | Iterable[Source],
    *,
    workdir: str | Path | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
    log: LogSink | TextIO | None = None,
    job: str | None = None,
    grace_seconds: float = 5.0,
    bundled: bool = True,
) -> LocalRunResult:
    """Runs every Pod of one TrainJob's JobSet as a local process; returns when the JobSet would finish.

    `manifests`: `render()` output (JobSet, Secrets, ConfigMaps), or a TrainJob with its runtimes (it is
    rendered here; the bundled runtimes fill in unless `bundled=False`: runtime_lookup), as dicts, models,
    YAML text or files. `env` is added to
    every container last. `log` receives each output line, prefixed `[<pod>]` (default: stdout).
    """
    plan = plan_jobset(prepare_manifests(manifests, job, bundled=bundled))
    root = Path(workdir) if workdir is not None else Path(tempfile.mkdtemp(prefix=f"trainjob-{plan.jobset}-"))
    root = root.resolve()
    rewriter = Rewriter.for_plan(plan, PortMap.for_ports(declared_ports(plan)))
    host = HostEnv(local_base_env(), dict(env or {}))
    prepared = [prepare_pod(pod, plan, root, rewriter, host) for pod in plan.pods]
    runs = LocalJobSet(plan, {p.plan.name: p for p in prepared}, _sink(log), grace_seconds)
    return runs.run(root, timeout)


def local_base_env() -> dict[str, str]:
    """This process's environment, with its interpreter's bin first so `python`/`torchrun` are this one's."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), env.get("PATH", os.defpath)])
    env["PYTHONUNBUFFERED"] = "1"  # lines reach the log as they are printed, not when a buffer fills
    return env


def _sink(log: LogSink | TextIO | None) -> LogSink:
    lock = threading.Lock()
    write: Callable[[str], Any]
    if log is None:
        write = lambda line: (sys.stdout.write(line + "\n"), sys.stdout.flush())  # noqa: E731
    elif callable(log):
        write = log
    else:
        write = lambda line: (log.write(line + "\n"), log.flush())  # noqa: E731

    def emit(line: str) -> None:
        with lock:  # one line at a time, whichever pod it comes from
            write(line)

    return emit


class LocalJobSet:
    """Starts replicated jobs as their dependencies allow and decides the outcome."""

    def __init__(self, plan: LocalPlan, prepared: Mapping[str, Any], log: LogSink, grace_seconds: float) -> None:
        self.plan = plan
        self.prepared = prepared
        self.log = log
        self.grace_seconds = grace_seconds
        self.runs: dict[str, PodRun] = {}
        self.started: set[str] = set()  # replicated jobs whose Pods were created

    def run(self, workdir: Path, timeout: float | None) -> LocalRunResult:
        deadline = time.monotonic() + timeout if timeout is not None else None
        try:
            while True:
                self._start_due_jobs()
                outcome = self._outcome(workdir)
                if outcome is not None:
                    return outcome
                if deadline is not None and time.monotonic() > deadline:
                    return self._result(workdir, FAILED, "DeadlineExceeded", f"still running after {timeout:g} s")
                time.sleep(POLL_SECONDS)
        except KeyboardInterrupt:
            return self._result(workdir, FAILED, "Interrupted", "stopped by Ctrl-C or SIGTERM")
        finally:
            self._stop_all()

    def _start_due_jobs(self) -> None:
        for job in self.plan.replicated_jobs:
            if job.name in self.started or not all(self._reached(dep, status) for dep, status in job.depends_on):
                continue
            self.started.add(job.name)
            for pod in job.pods:
                self.runs[pod.name] = PodRun(self.prepared[pod.name], self.log)
        for run in self.runs.values():
            run.poll()

    def _reached(self, job_name: str, status: str) -> bool:
        pods = [pod for job in self.plan.replicated_jobs if job.name == job_name for pod in job.pods]
        runs = [self.runs.get(pod.name) for pod in pods]
        if status == "Ready":  # JobSet counts ready and succeeded Pods
            return all(run is not None and (run.ready() or run.succeeded()) for run in runs)
        return all(run is not None and run.succeeded() for run in runs)

    def _outcome(self, workdir: Path) -> LocalRunResult | None:
        for run in self.runs.values():
            failure = run.failure()
            if failure is not None:
                container, code = failure
                message = f"pod {run.name} failed: container {container} exited with code {code}"
                return self._result(workdir, FAILED, "FailedJobs", message, run.name, container, code)
        if self._succeeded():
            return self._result(workdir, COMPLETED, "AllJobsCompleted", "jobset completed successfully")
        if not any(run.active() for run in self.runs.values()) and not self._startable():
            waiting = [job.name for job in self.plan.replicated_jobs if job.name not in self.started]
            what = f"{', '.join(waiting)} wait for dependencies that cannot be met" if waiting else "nothing left can finish"
            return self._result(workdir, FAILED, "Stuck", what)
        return None

    def _startable(self) -> bool:
        return any(
            job.name not in self.started and all(self._reached(d, s) for d, s in job.depends_on)
            for job in self.plan.replicated_jobs
        )

    def _succeeded(self) -> bool:
        """successPolicy: All (or Any) Jobs of the target replicated jobs have completed."""
        jobs = [
            [self.runs.get(pod.name) for pod in pods]
            for rjob in self.plan.replicated_jobs if rjob.name in self.plan.success_targets
            for pods in rjob.jobs().values()
        ]
        done = [all(run is not None and run.succeeded() for run in job) for job in jobs]
        return any(done) if self.plan.success_operator == "Any" else bool(done) and all(done)

    def _result(self, workdir: Path, status: str, reason: str, message: str, pod: str | None = None,
                container: str | None = None, code: int | None = None) -> LocalRunResult:
        codes = {name: _exit_code(run) for name, run in self.runs.items()}
        return LocalRunResult(self.plan.jobset, status, reason, message, workdir, pod, container, code, codes)

    def _stop_all(self) -> None:
        """SIGTERM to every Pod, then SIGKILL to what is left after the grace period."""
        processes = [process for run in self.runs.values() for process in run.all_processes()]
        for process in processes:
            process.terminate()
        deadline = time.monotonic() + self.grace_seconds
        try:
            while any(p.exit_code() is None and not p.launch.stand_in for p in processes) and time.monotonic() < deadline:
                time.sleep(POLL_SECONDS)
        except KeyboardInterrupt:
            pass  # a second Ctrl-C cuts the grace period short; nothing is left running all the same
        for process in processes:
            process.kill()
        for process in processes:
            process.drain()


def _exit_code(run: PodRun) -> int | None:
    failure = run.failure()
    if failure is not None:
        return failure[1]
    return 0 if run.succeeded() else None
