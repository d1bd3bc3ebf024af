"""One container as a local process: its own process group, its output streamed line by line."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import IO

from .envs import LOCAL_IP

LogSink = Callable[[str], None]
COMMAND_NOT_FOUND = 127  # what a shell reports; a container that cannot start fails like this too
# The launchers of the bundled runtimes come from the image there; here they must be on this host.
INSTALL_HINTS = {
    "mpirun": "install Open MPI (Debian: apt-get install openmpi-bin)",
    "torchrun": "install torch (pip install 'pulumi-kubeflow-trainer[local]')",
}


@dataclass(frozen=True)
class ContainerLaunch:
    """Everything needed to start one container, resolved and rewritten for this host."""

    pod: str
    container: str
    argv: Sequence[str]
    env: Mapping[str, str]
    cwd: str
    prefix: str  # the log prefix, `[<pod>]` or `[<pod>/<container>]`
    ready_port: int | None = None  # readinessProbe.tcpSocket, mapped to this host
    stand_in: bool = False  # not started: an sshd whose role mpirun plays locally


class PodProcess:
    """A started container. Stand-ins never run; they are ready at once and never finish."""

    def __init__(self, launch: ContainerLaunch, log: LogSink) -> None:
        self.launch = launch
        self._log = log
        self._process: subprocess.Popen[bytes] | None = None
        self._pump: threading.Thread | None = None
        self.start_error: str | None = None
        if not launch.stand_in:
            self._start()

    def _start(self) -> None:
        argv = list(self.launch.argv)
        executable = argv[0] if "/" in argv[0] else shutil.which(argv[0], path=self.launch.env.get("PATH"))
        if executable is None:
            self.start_error = f"executable file not found in $PATH: {argv[0]!r}"
            if argv[0] in INSTALL_HINTS:
                self.start_error += f"; {INSTALL_HINTS[argv[0]]}"
            self._log(f"{self.launch.prefix} {self.start_error}")
            return
        try:
            # A session of its own: stopping the Pod signals torchrun and every worker it started, and
            # Ctrl-C in the terminal reaches run_local only, which then stops the Pods in order.
            self._process = subprocess.Popen(
                argv, executable=executable, env=dict(self.launch.env), cwd=self.launch.cwd,
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
            )
        except OSError as error:
            self.start_error = f"cannot start {argv[0]!r}: {error.strerror}"
            self._log(f"{self.launch.prefix} {self.start_error}")
            return
        self._pump = threading.Thread(target=self._stream, args=(self._process.stdout,), daemon=True)
        self._pump.start()

    def _stream(self, stream: IO[bytes] | None) -> None:
        assert stream is not None
        for raw in iter(stream.readline, b""):
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            self._log(f"{self.launch.prefix} {line}")
        stream.close()

    def exit_code(self) -> int | None:
        """None while running (and for stand-ins); the exit code, or -N when killed by signal N."""
        if self.start_error is not None:
            return COMMAND_NOT_FOUND
        return self._process.poll() if self._process is not None else None

    def is_ready(self) -> bool:
        """Started and, with a tcpSocket readinessProbe, accepting connections on its port."""
        if self.launch.stand_in:
            return True
        if self.exit_code() is not None:
            return self.exit_code() == 0
        if self.launch.ready_port is None:
            return True
        with socket.socket() as probe:
            probe.settimeout(0.2)
            return probe.connect_ex((LOCAL_IP, self.launch.ready_port)) == 0

    def terminate(self) -> None:
        """SIGTERM to the process group, as the kubelet does first."""
        if self._process is not None and self._process.poll() is None:
            _signal_group(self._process.pid, signal.SIGTERM)

    def kill(self) -> None:
        """SIGKILL to the group; also when the leader is gone, for workers it left behind."""
        if self._process is not None:
            _signal_group(self._process.pid, signal.SIGKILL)
            self._process.wait()

    def drain(self, timeout: float = 5.0) -> None:
        """Waits for the last lines of output to be logged."""
        if self._pump is not None:
            self._pump.join(timeout)


def _signal_group(pid: int, signum: int) -> None:
    try:
        os.killpg(pid, signum)
    except (ProcessLookupError, PermissionError):
        pass
