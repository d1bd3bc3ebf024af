"""Fetch the upstream reference data the tests and tools/cluster read (run it via tools/fetch-reference).

The data is what upstream publishes, taken from the Go module proxy (the only network this needs):

  github.com/kubeflow/trainer/v2@TRAINER    manifests/base/crds/trainer.kubeflow.org_*.yaml -> crds/trainer/
                                            manifests/base/runtimes/**                      -> runtimes/base/
  sigs.k8s.io/jobset@JOBSET                 config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml -> crds/jobset/
  sigs.k8s.io/scheduler-plugins@SP          manifests/coscheduling/crd.yaml                 -> crds/scheduler-plugins/
  volcano.sh/apis@<trainer's go.mod pin>    pkg/apis/scheduling/v1beta1 (Go types), turned into
                                            crds/volcano/scheduling.volcano.sh_podgroups.yaml by controller-gen

Volcano publishes its PodGroup CRD only in its main repository, which is no Go module the proxy
serves; its API types are. controller-gen (the version trainer's Makefile uses, which also generated
Volcano's own v1.13 CRD) with Volcano's CRD options gives the same file byte for byte.

Everything lands in ${PULUMI_KFT_REFERENCE:-${XDG_CACHE_HOME:-~/.cache}/pulumi-kubeflow-trainer/reference-<pins>},
with its own GOMODCACHE/GOPATH/GOCACHE under go/ while it runs (deleted afterwards: ~450 MB that no
later run reuses). stamp.json is written last: it names the pins and every file with its module,
version, path and sha256. A run whose stamp matches does no Go work and needs no network. Logs go to
stderr; the LAST stdout line is the reference dir.

    tools/fetch-reference [--dir DIR] [--refetch]
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

TRAINER = "v2.3.0"  # the Trainer release this project targets
JOBSET = "v0.12.0"  # pinned in trainer v2.3.0's go.mod
SCHEDULER_PLUGINS = "v0.35.4-devel"  # pinned in trainer v2.3.0's go.mod
CONTROLLER_TOOLS = "v0.18.0"  # CONTROLLER_GEN_VERSION of trainer v2.3.0's Makefile
RECIPE = 1  # bump when the layout or the way a file is made changes: forces a new dir

TRAINER_MODULE = "github.com/kubeflow/trainer/v2"
VOLCANO_MODULE = "volcano.sh/apis"
VOLCANO_PACKAGE = "volcano.sh/apis/pkg/apis/scheduling/v1beta1"
CONTROLLER_GEN = "sigs.k8s.io/controller-tools/cmd/controller-gen"
# Volcano's Makefile: CRD_OPTIONS ?= "crd:crdVersions=v1,allowDangerousTypes=true".
VOLCANO_CRD_OPTIONS = "crd:crdVersions=v1,allowDangerousTypes=true"
VOLCANO_CRD = "crds/volcano/scheduling.volcano.sh_podgroups.yaml"
STAMP = "stamp.json"
REPO = Path(__file__).resolve().parents[1]
DATA_DIRS = ("crds", "runtimes")


def log(message: str) -> None:
    print(f"[fetch-reference] {message}", file=sys.stderr, flush=True)


class FetchError(RuntimeError):
    pass


@dataclass(frozen=True)
class Copy:
    """One file, or every file of a folder, of a module, and where it goes in the reference dir."""

    source: str
    target: str


@dataclass(frozen=True)
class Source:
    module: str
    version: str
    copies: tuple[Copy, ...]


SOURCES = (
    Source(TRAINER_MODULE, TRAINER, (
        Copy("manifests/base/crds/trainer.kubeflow.org_trainjobs.yaml", "crds/trainer/trainer.kubeflow.org_trainjobs.yaml"),
        Copy("manifests/base/crds/trainer.kubeflow.org_trainingruntimes.yaml",
             "crds/trainer/trainer.kubeflow.org_trainingruntimes.yaml"),
        Copy("manifests/base/crds/trainer.kubeflow.org_clustertrainingruntimes.yaml",
             "crds/trainer/trainer.kubeflow.org_clustertrainingruntimes.yaml"),
        Copy("manifests/base/runtimes", "runtimes/base"),
    )),
    Source("sigs.k8s.io/jobset", JOBSET, (
        Copy("config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml", "crds/jobset/jobset.x-k8s.io_jobsets.yaml"),
    )),
    Source("sigs.k8s.io/scheduler-plugins", SCHEDULER_PLUGINS, (
        Copy("manifests/coscheduling/crd.yaml", "crds/scheduler-plugins/crd.yaml"),
    )),
)


# ------------------------------------------------------------------------------------------ where


def pins_label() -> str:
    return (f"trainer{TRAINER.lstrip('v')}-jobset{JOBSET.lstrip('v')}-sp{SCHEDULER_PLUGINS.lstrip('v')}"
            f"-cg{CONTROLLER_TOOLS.lstrip('v')}-r{RECIPE}")


def default_dir(env: dict[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    cache = Path(env.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "pulumi-kubeflow-trainer" / f"reference-{pins_label()}"


def reference_dir(env: dict[str, str] | None = None) -> Path:
    """$PULUMI_KFT_REFERENCE, else the default cache dir: what the tests read and this tool writes."""
    env = os.environ if env is None else env
    return Path(env["PULUMI_KFT_REFERENCE"]) if env.get("PULUMI_KFT_REFERENCE") else default_dir(env)


# ------------------------------------------------------------------------------------------ stamp


def stamp_key() -> str:
    """Only the pins: checking a stamp needs no network."""
    return (f"recipe={RECIPE} trainer={TRAINER} jobset={JOBSET} scheduler-plugins={SCHEDULER_PLUGINS} "
            f"controller-tools={CONTROLLER_TOOLS}")


def is_warm(root: Path) -> bool:
    """The stamp names the current pins and every file it lists is there."""
    try:
        stamp = json.loads((root / STAMP).read_text())
    except (OSError, ValueError):
        return False
    files = stamp.get("files") or {}
    return stamp.get("key") == stamp_key() and bool(files) and all((root / name).is_file() for name in files)


def write_stamp(root: Path, files: dict[str, dict[str, str]], origins: dict[str, dict]) -> None:
    stamp = {"key": stamp_key(), "origins": origins, "files": dict(sorted(files.items()))}
    tmp = root / f"{STAMP}.tmp"
    tmp.write_text(json.dumps(stamp, indent=2) + "\n")
    tmp.replace(root / STAMP)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# ------------------------------------------------------------------------------------------ go


class Go(Protocol):
    """Runs `go ARGS` in a folder; tests pass a fake that answers from recorded output."""

    def __call__(self, args: list[str], cwd: Path) -> subprocess.CompletedProcess: ...


class IsolatedGo:
    """`go` with the GOMODCACHE/GOPATH/GOCACHE of the reference dir, so nothing touches the user's."""

    def __init__(self, root: Path) -> None:
        self.go_root = root / "go"
        if shutil.which("go") is None:
            raise FetchError("go not found (need Go >= 1.24 and the Go module proxy)")

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update({
            "GOMODCACHE": str(self.go_root / "mod"), "GOPATH": str(self.go_root / "path"),
            "GOCACHE": str(self.go_root / "cache"),
            "GOFLAGS": f"{env.get('GOFLAGS', '')} -mod=mod".strip(), "GOWORK": "off", "CGO_ENABLED": "0",
            # All modules here declare an older Go; never download a toolchain behind our back.
            "GOTOOLCHAIN": "local",
        })
        return env

    def __call__(self, args: list[str], cwd: Path) -> subprocess.CompletedProcess:
        cwd.mkdir(parents=True, exist_ok=True)
        return subprocess.run(["go", *args], cwd=cwd, env=self.env(), capture_output=True, text=True)


@dataclass(frozen=True)
class Module:
    path: str
    version: str
    dir: Path
    origin: dict

    @property
    def label(self) -> str:
        return f"{self.path}@{self.version}"


def download(go: Go, work: Path, module: str, version: str) -> Module:
    """`go mod download -json`; its JSON names the error when the proxy does not serve the version."""
    result = go(["mod", "download", "-json", f"{module}@{version}"], work)
    try:
        answer = json.loads(result.stdout)
    except ValueError:
        raise FetchError(f"go mod download {module}@{version} failed: {result.stderr.strip() or result.stdout.strip()}") from None
    if answer.get("Error") or result.returncode != 0 or not answer.get("Dir"):
        reason = answer.get("Error") or result.stderr.strip() or "no Dir in the answer"
        raise FetchError(f"{module}@{version} is not available from the Go module proxy: {reason}")
    return Module(module, answer.get("Version", version), Path(answer["Dir"]), answer.get("Origin") or {})


def copy_from(module: Module, copy: Copy, root: Path) -> dict[str, dict[str, str]]:
    """Copies one file or folder; returns the provenance of every file written, by its reference path."""
    source = module.dir / copy.source
    if source.is_file():
        pairs = [(source, copy.target)]
    elif source.is_dir():
        pairs = [(path, f"{copy.target}/{path.relative_to(source).as_posix()}")
                 for path in sorted(source.rglob("*")) if path.is_file()]
    else:
        pairs = []
    if not pairs:
        raise FetchError(f"{module.label} has no {copy.source}: upstream moved it, or the pin is wrong")
    written = {}
    for path, target in pairs:
        destination = root / target
        destination.parent.mkdir(parents=True, exist_ok=True)
        # copyfile, not copy: module cache files are read-only, the reference files need not be.
        shutil.copyfile(path, destination)
        relative = path.relative_to(module.dir).as_posix()
        written[target] = {"module": module.path, "version": module.version, "path": relative, "sha256": sha256(destination)}
    return written


def required_version(module: Module, required: str) -> str:
    """The version of `required` in the module's go.mod require block."""
    text = (module.dir / "go.mod").read_text() if (module.dir / "go.mod").is_file() else ""
    found = re.search(rf"^\s*(?:require\s+)?{re.escape(required)}\s+(v\S+)", text, re.MULTILINE)
    if not found:
        raise FetchError(f"{module.label}'s go.mod does not require {required}")
    return found.group(1)


# ------------------------------------------------------------------------------------------ volcano


def checked(result: subprocess.CompletedProcess, what: str) -> subprocess.CompletedProcess:
    if result.returncode != 0:
        raise FetchError(f"{what} failed:\n{result.stderr.strip()[-4000:]}")
    return result


def generate_volcano_crd(go: Go, work: Path, version: str, target: Path) -> dict[str, str]:
    """Volcano's PodGroup CRD from its Go types, the way Volcano's Makefile makes it."""
    started = time.monotonic()
    # A wrapper module pins volcano.sh/apis; controller-gen loads the package through it.
    wrapper = work / "volcano-crd"
    shutil.rmtree(wrapper, ignore_errors=True)
    checked(go(["mod", "init", "local.invalid/volcano-crd"], wrapper), "go mod init")
    checked(go(["get", f"{VOLCANO_PACKAGE}@{version}"], wrapper), f"go get {VOLCANO_PACKAGE}@{version}")
    generated = wrapper / "out"
    log(f"building and running controller-gen {CONTROLLER_TOOLS} (about 2 min cold on 2 cores)")
    checked(go(["run", f"{CONTROLLER_GEN}@{CONTROLLER_TOOLS}", VOLCANO_CRD_OPTIONS, f"paths={VOLCANO_PACKAGE}",
                f"output:crd:dir={generated}"], wrapper), "controller-gen")
    made = generated / Path(VOLCANO_CRD).name
    if not made.is_file():
        raise FetchError(f"controller-gen wrote no {made.name} for {VOLCANO_PACKAGE}@{version}")
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(made, target)
    log(f"generated {made.name} in {time.monotonic() - started:.0f}s")
    return {"module": VOLCANO_MODULE, "version": version, "path": VOLCANO_PACKAGE.removeprefix(f"{VOLCANO_MODULE}/"),
            "generator": f"{CONTROLLER_GEN}@{CONTROLLER_TOOLS} {VOLCANO_CRD_OPTIONS}", "sha256": sha256(target)}


# ------------------------------------------------------------------------------------------ fetch


@contextmanager
def locked(root: Path) -> Iterator[None]:
    """Two cold runs at once (two tools/test) take turns instead of writing the same files."""
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


Generator = Callable[[Go, Path, str, Path], dict[str, str]]


def fetch(root: Path, go: Go | None = None, generate: Generator = generate_volcano_crd, refetch: bool = False) -> Path:
    """The reference dir, filled from the proxy unless its stamp is current."""
    root = root.resolve()
    if not refetch and is_warm(root):
        return root
    with locked(root):
        if not refetch and is_warm(root):
            return root
        started = time.monotonic()
        go = go or IsolatedGo(root)
        clear_data(root)
        files, modules = {}, {}
        work = root / "src"
        for source in SOURCES:
            module = modules[source.module] = download(go, work, source.module, source.version)
            for copy in source.copies:
                files.update(copy_from(module, copy, root))
        volcano = required_version(modules[TRAINER_MODULE], VOLCANO_MODULE)
        files[VOLCANO_CRD] = generate(go, work, volcano, root / VOLCANO_CRD)
        origins = {module.label: module.origin for module in modules.values()}
        write_stamp(root, files, origins)
        prune_go(go, root)
        log(f"fetched {len(files)} files in {time.monotonic() - started:.0f}s into {root}")
    return root


def clear_data(root: Path) -> None:
    """The stamp goes first: an interrupted fetch is never mistaken for a complete one."""
    (root / STAMP).unlink(missing_ok=True)
    for name in DATA_DIRS:
        shutil.rmtree(root / name, ignore_errors=True)


def prune_go(go: Go, root: Path) -> None:
    """The module and build caches (~450 MB) only served this fetch: the pins are in the dir name, so
    no later fetch reuses them, and a warm run reads only the stamp. `go clean`, since the module
    cache is read-only."""
    go(["clean", "-modcache", "-cache"], root / "src")
    shutil.rmtree(root / "go", ignore_errors=True)
    shutil.rmtree(root / "src", ignore_errors=True)


def refuse_the_repo(root: Path) -> None:
    """The module cache (hundreds of MB) lives in the reference dir: it must never be committable."""
    if root == REPO or REPO in root.parents:
        raise FetchError(f"reference dir {root} is inside the repo; use a dir outside it (default: the cache)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tools/fetch-reference", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--dir", help="reference dir (default: $PULUMI_KFT_REFERENCE, else the cache dir)")
    parser.add_argument("--refetch", action="store_true", help="ignore the stamp and fetch again")
    args = parser.parse_args(argv)
    root = (Path(args.dir) if args.dir else reference_dir()).resolve()
    try:
        refuse_the_repo(root)
        root = fetch(root, refetch=args.refetch)
    except FetchError as error:
        log(f"ERROR: {error}")
        return 1
    print(root)
    return 0


if __name__ == "__main__":
    sys.exit(main())
