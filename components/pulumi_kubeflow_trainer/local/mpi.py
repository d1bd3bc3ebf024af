"""Open MPI on one host: the launcher's own `mpirun` command, run as written, starts every rank here.

In the cluster the launcher's mpirun reads the hostfile the MPI plugin mounts (`<pod>.<subdomain>
slots=N` per node), starts an `orted` on each node over ssh (the nodes run sshd) and the ranks under
them. Here every Pod DNS name becomes 127.0.0.1, so the hostfile becomes `127.0.0.1 slots=<all slots>`
(rewrite.merge_hostfile) and mpirun starts all ranks on this host by itself, with the slot count and
rank order of the cluster; the sshd nodes are stand-ins that never start. Two things stay to settle:

- mpirun looks for `ssh` (or `rsh`) at start even when it needs none, and stops when there is none
  (a CI container). Its remote shell is set to a stand-in that refuses: nothing of a local run ever
  connects anywhere, and a host outside the run (a `--host` of the user's) fails with a clear line.
- mpirun refuses to run as root unless told. In the cluster the launcher runs as its runAsUser (1000
  in the bundled runtimes); here as this host's user, so as root the refusal would guard a root the
  container does not have: it is lifted by the two environment variables Open MPI reads (not
  `--allow-run-as-root`: the command is the user's and runs as written), unless the container itself
  asks for root (runAsUser 0), where the cluster refuses too.

Per-node daemons (a stand-in ssh that runs `orted` here for each node) were tried: Open MPI then takes
each node for another machine that shares this one's session directory and shared memory, and ranks
crash in the shared-memory transport. One mpirun over the merged hostfile is what works.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .plan import PodPlan

OPEN_MPI_AS_ROOT = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
RSH_AGENT_VARIABLE = "OMPI_MCA_plm_rsh_agent"
RSH_AGENT = """\
#!/bin/sh
# trainjob run-local: Open MPI's remote shell (plm_rsh_agent). mpirun starts the JobSet's ranks on this
# host itself; it calls this only for a host that is not this one.
while [ $# -gt 0 ]; do case "$1" in -o) shift 2 ;; -*) shift ;; *) break ;; esac; done
echo "trainjob run-local: mpirun asked to start a daemon on host '$1' over ssh; a local run starts ranks on this host only (the JobSet's hostfile names 127.0.0.1)" >&2
exit 1
"""


def root_allowance(container: Mapping[str, Any], pod: PodPlan) -> dict[str, str]:
    """OPEN_MPI_AS_ROOT when this process is root and the container does not itself ask for root."""
    if os.geteuid() != 0:
        return {}
    pod_user = (pod.spec.get("securityContext") or {}).get("runAsUser")
    user = (container.get("securityContext") or {}).get("runAsUser", pod_user)
    return {} if user == 0 else dict(OPEN_MPI_AS_ROOT)


def rsh_agent(workdir: Path) -> dict[str, str]:
    """The refusing remote shell, written once per work dir, as the env variable that names it."""
    path = workdir / ".run-local" / "mpi-rsh-agent"
    if not path.exists() or path.read_text() != RSH_AGENT:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(RSH_AGENT)
        path.chmod(0o755)
    return {RSH_AGENT_VARIABLE: str(path)}
