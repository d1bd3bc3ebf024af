"""README's quickstart, run as written: its bash block, line for line, in a fresh HOME with a fresh
virtual environment, with the Pulumi toolchain of tools/bootstrap as the reader's `pulumi`. The project
it copies (examples/quickstart) renders to out/ when no cluster is configured."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.toolchain import REPO, offline_env_module

pytestmark = pytest.mark.engine
SECTION = "## Quickstart: your own project"


def quickstart_lines() -> str:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index(SECTION):]
    return re.search(r"```bash\n(.*?)```", section, re.DOTALL).group(1)


def reader_env(engine_bin: Path, home: Path) -> dict[str, str]:
    """A reader's shell: `pulumi` and its plugins on PATH, the offline switches, nothing else of ours (no
    backend, passphrase, PULUMI_HOME or interpreter: the quickstart's lines set what they need)."""
    env = offline_env_module().load(engine_bin, overrides={"HOME": str(home)})
    for key in ("PULUMI_BACKEND_URL", "PULUMI_CONFIG_PASSPHRASE", "PULUMI_HOME", "PULUMI_PYTHON_CMD", "KUBECONFIG",
                "VIRTUAL_ENV", "PYTHONPATH"):
        env.pop(key, None)
    path = [part for part in env["PATH"].split(os.pathsep) if ".venv" not in part]
    provider = engine_bin.parent / "provider"  # a reader's pulumi brings its provider itself (downloaded); here, on PATH
    env["PATH"] = os.pathsep.join([str(provider), *path] if provider.is_dir() else path)
    env["TMPDIR"] = str(home / "tmp")
    # The CLI finds `~` (of `pulumi login --local`, file://~) and its default PULUMI_HOME in /etc/passwd,
    # not in $HOME: without these the quickstart's stack and login would land in the real user's
    # ~/.pulumi, and a second run would find its stack there ("stack 'organization/mnist/dev' already
    # exists"). PULUMI_BACKEND_URL outranks the backend `pulumi login --local` records.
    env["PULUMI_HOME"] = str(home / ".pulumi")
    env["PULUMI_BACKEND_URL"] = f"file://{home}"
    return env


def test_the_readme_quickstart_runs_as_written(engine_bin: Path, tmp_path: Path):
    home = tmp_path / "home"
    (home / "tmp").mkdir(parents=True)
    lines = quickstart_lines()
    assert "pulumi up" in lines and "cp -r examples/quickstart" in lines
    result = subprocess.run(["bash", "-euo", "pipefail", "-c", lines], cwd=REPO, env=reader_env(engine_bin, home),
                            capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, f"the quickstart failed:\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}"

    rendered = [doc for path in sorted((home / "mnist" / "out" / "1-manifest").glob("*.yaml"))
                for doc in yaml.safe_load_all(path.read_text()) if doc]
    jobset = next(doc for doc in rendered if doc["kind"] == "JobSet")
    assert jobset["metadata"]["name"] == "mnist" and jobset["spec"]["replicatedJobs"][0]["replicas"] == 1
    node = jobset["spec"]["replicatedJobs"][0]["template"]["spec"]
    assert node["parallelism"] == 2, "two nodes"
    assert "Resources:" in result.stdout and "error" not in result.stderr.lower()
