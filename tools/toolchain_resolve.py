#!/usr/bin/env python3
"""Which module versions tools/bootstrap and tools/bootstrap-cluster build, from what the Go proxy serves.

The proxy here serves only some module versions (others answer `403 Forbidden ... This module version
is not available`) and its answers do not always carry an `Origin` (the commit). This module makes
those choices; the scripts do the building. It asks `go` through a runner (`Proxy(run=...)`), so the
tests answer with recorded proxy answers (tests/tools/recorded/) and need no network. Standard
library only: it runs with the system python3 before any venv exists.

Commands (stdout: KEY=VALUE lines, one per line, values unquoted; logs and errors go to stderr):

    cli-version   --want 3.272.0                        CLI_VERSION=3.274.1
    langhost      [--pseudo v3.0.0-<ts>-<commit>]       LANGHOST=module | LANGHOST=legacy
    python-scripts --want 3.272.0 --cli 3.274.1         SCRIPTS_SDK=3.272.0
    k8s-provider  --want 4.34.2 --fallback-pseudo P --fallback-sdk 4.25.0 [--label-override L]
                                                        K8S_PSEUDO= K8S_SDK= K8S_LABEL= K8S_COMMIT=
    nearest       MODULE WANT                           VERSION=1.36.5

`--log-prefix` (before the command) names the calling script in log lines. Exit status 1 with
`<prefix> ERROR: ...` on stderr when nothing usable is served.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

# The modules the resolution asks about (tools/bootstrap builds from the same paths).
PKG_MOD = "github.com/pulumi/pulumi/pkg/v3"
SDK_MOD = "github.com/pulumi/pulumi/sdk/v3"
LANGHOST_MOD = "github.com/pulumi/pulumi/sdk/python/cmd/pulumi-language-python/v3"
K8S_PROV_MOD = "github.com/pulumi/pulumi-kubernetes/provider/v4"
K8S_SDK_MOD = "github.com/pulumi/pulumi-kubernetes/sdk/v4"

Release = tuple[int, int, int]
RELEASE = re.compile(r"^v(\d+)\.(\d+)\.(\d+)$")  # pre-releases and pseudo-versions are never picked
Log = Callable[[str], None]


class ResolveError(Exception):
    """Nothing usable is served; the message says what was asked."""


@dataclass(frozen=True)
class GoAnswer:
    returncode: int
    stdout: str
    stderr: str


GoRunner = Callable[[Sequence[str]], GoAnswer]  # gets go's arguments, e.g. ["list", "-m", "-json", "mod@v1"]


def run_go(args: Sequence[str]) -> GoAnswer:
    """The real `go`, in the environment the calling script prepared (GOMODCACHE, GOFLAGS, ...)."""
    done = subprocess.run(["go", *args], capture_output=True, text=True)
    return GoAnswer(done.returncode, done.stdout, done.stderr)


def stderr_log(prefix: str) -> Log:
    return lambda message: print(f"{prefix} {message}", file=sys.stderr, flush=True)


# ------------------------------------------------------------------------------ the proxy's answers


class Proxy:
    """The questions the resolvers ask the Go proxy, each one `go` command."""

    def __init__(self, run: GoRunner = run_go) -> None:
        self.run = run

    def info(self, module: str, version: str) -> dict | None:
        """`go list -m -json`: the version's info (Version, Time, maybe Origin), None if not served."""
        answer = self.run(["list", "-m", "-json", f"{module}@{version}"])
        return json.loads(answer.stdout) if answer.returncode == 0 else None

    def served(self, module: str, version: str) -> bool:
        return self.info(module, version) is not None

    def refusal(self, module: str, version: str) -> str:
        """Why a version is not served: the last two lines of go's error ('' if it is served)."""
        answer = self.run(["list", "-m", "-json", f"{module}@{version}"])
        return "" if answer.returncode == 0 else " ".join(answer.stderr.strip().splitlines()[-2:])

    def download_origin_hash(self, module: str, version: str) -> str:
        """`go mod download -json`: the commit in its Origin, '' if not served or not given."""
        answer = self.run(["mod", "download", "-json", f"{module}@{version}"])
        if answer.returncode != 0 or not answer.stdout.strip():
            return ""
        return origin_hash(json.loads(answer.stdout))

    def releases(self, module: str) -> list[Release] | None:
        """`go list -m -versions`: the listed releases, None if the proxy refuses the list. The list is
        not the truth: it may miss served versions and name refused ones."""
        answer = self.run(["list", "-m", "-versions", module])
        if answer.returncode != 0:
            return None
        return [parse_release(word) for word in answer.stdout.split()[1:] if RELEASE.match(word)]


def origin_hash(info: dict | None) -> str:
    return ((info or {}).get("Origin") or {}).get("Hash") or ""


def parse_release(text: str) -> Release:
    match = RELEASE.match(text if text.startswith("v") else "v" + text)
    if not match:
        raise ResolveError(f"not a release version: {text}")
    major, minor, patch = match.groups()
    return int(major), int(minor), int(patch)


def release_text(release: Release) -> str:
    return ".".join(map(str, release))


def nearest(candidates: Sequence[Release], want: Release) -> Release | None:
    """The nearest newer candidate, else the nearest older one (a newer version keeps the wanted one's
    fixes; an older one at least keeps its interfaces)."""
    newer = sorted(c for c in candidates if c > want)
    older = sorted(c for c in candidates if c < want)
    return newer[0] if newer else (older[-1] if older else None)


# ------------------------------------------------------------------------------ tools/bootstrap


def cli_version(proxy: Proxy, want: str, log: Log) -> str:
    """The pulumi CLI version: the wanted one if pkg/v3 and sdk/v3 serve it, else the nearest served
    release (newer preferred: a newer CLI driving an older Python SDK is the supported direction) at
    the newest listed patch of its minor (patch releases fix regressions of the .0)."""
    if proxy.served(PKG_MOD, f"v{want}") and proxy.served(SDK_MOD, f"v{want}"):
        return want
    log(f"{PKG_MOD}@v{want} is not served; picking the nearest served release")
    listed = proxy.releases(PKG_MOD) or []
    pick = nearest(listed, parse_release(want))
    if pick is None:
        raise ResolveError(f"no served version of {PKG_MOD}")
    pick = max(r for r in listed if r[:2] == pick[:2])
    version = release_text(pick)
    if not proxy.served(PKG_MOD, f"v{version}"):
        raise ResolveError(f"{PKG_MOD}@v{version} is listed but not served")
    if not proxy.served(SDK_MOD, f"v{version}"):
        raise ResolveError(f"{SDK_MOD}@v{version} not served (needed together with pkg/v3 v{version})")
    return version


def langhost_source(proxy: Proxy, pseudo: str, log: Log) -> str:
    """'module' when the language host's own module is served at `pseudo` (the CLI's release commit),
    else 'legacy': the in-sdk package of an old sdk/v3 (the module is not served at any version here)."""
    if pseudo and proxy.served(LANGHOST_MOD, pseudo):
        return "module"
    if proxy.releases(LANGHOST_MOD) is not None:
        log(f"note: {LANGHOST_MOD} is listed by the proxy; set PULUMI_KFT_LANGHOST_PSEUDO=v3.0.0-<ts>-<commit>")
        log("  (the pseudo-version of the CLI's release commit) to build it instead of the legacy host")
    else:
        log(f"language host module {LANGHOST_MOD} is not served by the proxy (no version at all);")
    return "legacy"


def python_scripts_sdk(proxy: Proxy, want: str, cli: str) -> str:
    """The sdk/v3 version to copy the two Python runtime scripts from: the Python SDK's own (they run
    inside its process) when served, else the CLI's."""
    return want if proxy.served(SDK_MOD, f"v{want}") else cli


@dataclass(frozen=True)
class K8sProvider:
    pseudo: str  # the provider/v4 version (the module has no tags: always a pseudo-version)
    sdk: str  # the sdk/v4 tag it is built with
    label: str  # the version stamped into the binary
    commit: str

    def lines(self) -> list[str]:
        return [f"K8S_PSEUDO={self.pseudo}", f"K8S_SDK={self.sdk}", f"K8S_LABEL={self.label}", f"K8S_COMMIT={self.commit}"]


def k8s_provider(proxy: Proxy, want: str, fallback_pseudo: str, fallback_sdk: str, label_override: str, log: Log) -> K8sProvider:
    """The provider's release commit is found through the sdk/v4 tag's Origin, then looked up as a
    pseudo-version; when the proxy cannot tell it, the fallback pseudo-version is built."""
    commit = proxy.download_origin_hash(K8S_SDK_MOD, f"v{want}")
    info = proxy.info(K8S_PROV_MOD, commit) if commit else None
    if info is not None:
        log(f"kubernetes provider {want}: commit {commit} -> {K8S_PROV_MOD}@{info['Version']}")
        return K8sProvider(info["Version"], want, want, commit)
    if commit:
        log(f"{K8S_PROV_MOD}@{commit} (the commit of {K8S_SDK_MOD} v{want}) is not served")
    elif proxy.served(K8S_SDK_MOD, f"v{want}"):
        log(f"{K8S_SDK_MOD}@v{want} is served but the proxy gives no commit (Origin) for it")
    else:
        log(f"{K8S_SDK_MOD}@v{want} is not served (so its commit cannot be found through the proxy)")
    return k8s_fallback(proxy, want, fallback_pseudo, fallback_sdk, label_override, log)


def k8s_fallback(proxy: Proxy, want: str, pseudo: str, sdk: str, label_override: str, log: Log) -> K8sProvider:
    info = proxy.info(K8S_PROV_MOD, pseudo)
    if info is None:
        raise ResolveError(f"fallback {K8S_PROV_MOD}@{pseudo} not served either")
    if not proxy.served(K8S_SDK_MOD, f"v{sdk}"):
        raise ResolveError(f"{K8S_SDK_MOD}@v{sdk} not served")
    # The proxy does not always send Origin; a pseudo-version names its commit (12 hex digits) in its
    # last part, which is all the label uses.
    commit = origin_hash(info) or pseudo_commit(pseudo)
    if not commit:
        raise ResolveError(f"no commit for {K8S_PROV_MOD}@{pseudo}: set PULUMI_KFT_K8S_LABEL_OVERRIDE")
    # Labelled with what it is (nearest release + commit), not with the version it is not. With the SDK
    # pinned at that release, the plugin (installed under this label) serves the SDK's request without a
    # warning: build metadata does not count in semver precedence.
    label = label_override or f"{sdk}+git.{commit[:12]}"
    log(f"FALLBACK: building {K8S_PROV_MOD}@{pseudo} (commit {commit}) with {K8S_SDK_MOD}@v{sdk},")
    log(f"  labelled {label}; installed as a plugin of that version, it serves the Python SDK's request for {want}")
    return K8sProvider(pseudo, sdk, label, commit)


def pseudo_commit(pseudo: str) -> str:
    """vX.Y.Z-<timestamp>-<12 hex digits>: the last part, '' for anything else."""
    last = pseudo.rsplit("-", 1)[-1]
    return last if pseudo.count("-") >= 2 and re.fullmatch(r"[0-9a-f]{12}", last) else ""


# ------------------------------------------------------------------------------ tools/bootstrap-cluster


def nearest_served(proxy: Proxy, module: str, want: str, log: Log) -> str:
    """The wanted version if served, else the nearest listed release of the same major.minor (newer
    preferred): a control plane must not change minor behind the pins' back."""
    refusal = proxy.refusal(module, f"v{want}")
    if not refusal:
        return want
    log(f"{module}@v{want} is not served: {refusal}")
    wanted = parse_release(want)
    same_minor = [r for r in proxy.releases(module) or [] if r[:2] == wanted[:2]]
    pick = nearest(same_minor, wanted)
    if pick is None:
        raise ResolveError(f"no served {module} version in the {wanted[0]}.{wanted[1]} line (wanted v{want})")
    version = release_text(pick)
    if not proxy.served(module, f"v{version}"):
        raise ResolveError(f"{module}@v{version} is listed but not served")
    log(f"FALLBACK: {module} v{want} -> v{version} (nearest served in the same minor line)")
    return version


# ------------------------------------------------------------------------------ command line


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    top.add_argument("--log-prefix", default="[toolchain_resolve]")
    commands = top.add_subparsers(dest="command", required=True)
    cli = commands.add_parser("cli-version")
    cli.add_argument("--want", required=True)
    langhost = commands.add_parser("langhost")
    langhost.add_argument("--pseudo", default="")
    scripts = commands.add_parser("python-scripts")
    scripts.add_argument("--want", required=True)
    scripts.add_argument("--cli", required=True)
    k8s = commands.add_parser("k8s-provider")
    k8s.add_argument("--want", required=True)
    k8s.add_argument("--fallback-pseudo", required=True)
    k8s.add_argument("--fallback-sdk", required=True)
    k8s.add_argument("--label-override", default="")
    near = commands.add_parser("nearest")
    near.add_argument("module")
    near.add_argument("want")
    return top


def answer_lines(args: argparse.Namespace, proxy: Proxy, log: Log) -> list[str]:
    """The KEY=VALUE lines a command prints."""
    if args.command == "cli-version":
        return [f"CLI_VERSION={cli_version(proxy, args.want, log)}"]
    if args.command == "langhost":
        return [f"LANGHOST={langhost_source(proxy, args.pseudo, log)}"]
    if args.command == "python-scripts":
        return [f"SCRIPTS_SDK={python_scripts_sdk(proxy, args.want, args.cli)}"]
    if args.command == "k8s-provider":
        found = k8s_provider(proxy, args.want, args.fallback_pseudo, args.fallback_sdk, args.label_override, log)
        return found.lines()
    return [f"VERSION={nearest_served(proxy, args.module, args.want, log)}"]


def main(argv: Sequence[str] | None = None, run: GoRunner = run_go) -> int:
    args = parser().parse_args(argv)
    log = stderr_log(args.log_prefix)
    try:
        lines = answer_lines(args, Proxy(run), log)
    except ResolveError as error:
        log(f"ERROR: {error}")
        return 1
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
