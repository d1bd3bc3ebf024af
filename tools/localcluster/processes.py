"""The components as processes: started in their own session with a pid file, stopped only by that
pid, and only while /proc/<pid>/exe is still the binary recorded with it. Never by name."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from .errors import ClusterError, log
from .layout import Layout


def pid_file(layout: Layout, name: str) -> Path:
    return layout.pids / f"{name}.pid"


def log_file(layout: Layout, name: str) -> Path:
    return layout.logs / f"{name}.log"


def running_pid(layout: Layout, name: str) -> int | None:
    """The pid in DIR/pids/NAME.pid if that process is alive AND still runs the binary recorded with it."""
    path = pid_file(layout, name)
    if not path.exists():
        return None
    lines = path.read_text().splitlines()
    try:
        pid, binary = int(lines[0]), lines[1]
    except (IndexError, ValueError):
        return None
    try:
        # /proc/PID/exe, not cmdline: cmdline reads empty for a moment right after exec.
        exe = os.readlink(f"/proc/{pid}/exe").removesuffix(" (deleted)")
    except OSError:
        return None
    if exe != os.path.realpath(binary):
        return None  # the pid was reused by something else: never touch it
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None
    return None if state == "Z" else pid


def start(layout: Layout, name: str, argv: list[str], env: dict[str, str] | None = None) -> int:
    """Start argv (argv[0]: the binary) in DIR/run, appending to DIR/logs/NAME.log; the running pid if it runs."""
    existing = running_pid(layout, name)
    if existing:
        log(f"{name} already running (pid {existing})")
        return existing
    with open(log_file(layout, name), "ab") as out:
        out.write(f"\n===== {time.strftime('%Y-%m-%dT%H:%M:%S')} {' '.join(argv)}\n".encode())
        out.flush()
        process = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, cwd=layout.run,
            env={**os.environ, **(env or {})}, start_new_session=True, close_fds=True,
        )
    pid_file(layout, name).write_text(f"{process.pid}\n{argv[0]}\n")
    log(f"started {name} (pid {process.pid}, log {log_file(layout, name)})")
    return process.pid


def stop(layout: Layout, name: str, timeout: float = 15.0) -> None:
    """SIGTERM to the component's process group, SIGKILL after `timeout` s; then its pid file goes."""
    pid = running_pid(layout, name)
    path = pid_file(layout, name)
    if pid is None:
        path.unlink(missing_ok=True)
        return
    # Each component was started in its own session, so its process group id is its pid.
    try:
        kill = os.killpg if os.getpgid(pid) == pid else os.kill
        kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        path.unlink(missing_ok=True)
        return
    if not _exits(layout, name, pid, timeout):
        log(f"{name} (pid {pid}) ignored SIGTERM for {timeout:.0f}s; sending SIGKILL")
        try:
            kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        _exits(layout, name, pid, None)
    path.unlink(missing_ok=True)
    log(f"stopped {name} (pid {pid})")


def _exits(layout: Layout, name: str, pid: int, timeout: float | None) -> bool:
    """Whether the component's process `pid` is gone within `timeout` seconds (None: waits as long as it takes)."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while running_pid(layout, name) == pid:
        if deadline is not None and time.monotonic() >= deadline:
            return False
        time.sleep(0.1)
    return True


def stop_all(layout: Layout, names: Iterable[str]) -> None:
    """Stop the named components in reverse (start) order, then any other component this dir has a
    pid file of (one a later version of the tool no longer starts, say)."""
    names = list(names)
    for name in reversed(names):
        stop(layout, name)
    if layout.pids.is_dir():
        for path in sorted(layout.pids.glob("*.pid")):
            if path.stem not in names:
                stop(layout, path.stem)


def tail(path: Path, lines: int = 25) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def wait_for(what: str, check: Callable[[], bool], timeout: float, layout: Layout, component: str | None = None) -> None:
    """Poll `check` every 0.25 s until it is true; a ClusterError (with the component's log tail) if
    the component exits or `timeout` seconds pass. An exception from `check` means "not yet"."""
    deadline = time.monotonic() + timeout
    last = ""
    while time.monotonic() < deadline:
        if component and running_pid(layout, component) is None:
            raise ClusterError(f"{component} exited while waiting for {what}:\n{tail(log_file(layout, component))}")
        try:
            if check():
                return
        except Exception as error:  # noqa: BLE001 - any failure means "not yet"
            last = str(error)
        time.sleep(0.25)
    extra = f"\nlast error: {last}" if last else ""
    if component:
        extra += f"\n{component} log:\n{tail(log_file(layout, component))}"
    raise ClusterError(f"timed out after {timeout:.0f}s waiting for {what}{extra}")
