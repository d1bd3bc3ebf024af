"""Re-record the `go` answers in tests/tools/recorded/ from the Go module proxy (needs network).

    .venv/bin/python tests/tools/record_go_answers.py

Each answer is asked with a throwaway GOMODCACHE/GOPATH/GOCACHE (never the toolchain caches) and
trimmed to what tools/toolchain_resolve.py reads: no local paths, no sums. A few answers the proxy
does not give today are derived from recorded ones (DERIVED below); their files say so in `note`.
Not a test (pytest collects test_*.py only): the tests only read the files.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from datetime import date
from pathlib import Path

RECORDED = Path(__file__).resolve().parent / "recorded"
PKG = "github.com/pulumi/pulumi/pkg/v3"
SDK = "github.com/pulumi/pulumi/sdk/v3"
LANGHOST = "github.com/pulumi/pulumi/sdk/python/cmd/pulumi-language-python/v3"
K8S_SDK = "github.com/pulumi/pulumi-kubernetes/sdk/v4"
K8S_PROV = "github.com/pulumi/pulumi-kubernetes/provider/v4"
K8S_PSEUDO = "v4.0.0-20260115033456-f47bc2d6f199"
SDK_4_25_COMMIT = "144dd813d53edee4aac1f946500deef6513b12f0"


def info(target: str) -> list[str]:
    return ["list", "-m", "-json", target]


def listing(module: str) -> list[str]:
    return ["list", "-m", "-versions", module]


def download(target: str) -> list[str]:
    return ["mod", "download", "-json", target]


ANSWERS = {
    # the pulumi CLI and the Python runtime scripts
    "pkg-3.272.0": info(f"{PKG}@v3.272.0"),
    "sdk-3.272.0": info(f"{SDK}@v3.272.0"),
    "pkg-3.274.1": info(f"{PKG}@v3.274.1"),
    "sdk-3.274.1": info(f"{SDK}@v3.274.1"),
    "pkg-3.276.0": info(f"{PKG}@v3.276.0"),
    "sdk-3.276.0": info(f"{SDK}@v3.276.0"),
    "pkg-3.280.0": info(f"{PKG}@v3.280.0"),
    "sdk-3.280.0": info(f"{SDK}@v3.280.0"),
    "pkg-versions": listing(PKG),
    # the language host's own module
    "langhost-versions": listing(LANGHOST),
    "langhost-pseudo": info(f"{LANGHOST}@v3.0.0-20261105124506-0123456789ab"),
    # the kubernetes provider
    "k8s-sdk-4.34.2": info(f"{K8S_SDK}@v4.34.2"),
    "k8s-sdk-4.34.2-download": download(f"{K8S_SDK}@v4.34.2"),
    "k8s-sdk-4.25.0": info(f"{K8S_SDK}@v4.25.0"),
    "k8s-sdk-4.25.0-download": download(f"{K8S_SDK}@v4.25.0"),
    "k8s-provider-at-4.25.0-commit": info(f"{K8S_PROV}@{SDK_4_25_COMMIT}"),
    "k8s-provider-pseudo": info(f"{K8S_PROV}@{K8S_PSEUDO}"),
    "k8s-provider-other-pseudo": info(f"{K8S_PROV}@v4.0.0-20251201000000-0123456789ab"),
    # tools/bootstrap-cluster
    "kube-1.36.5": info("k8s.io/kubernetes@v1.36.5"),
    "kube-1.36.6": info("k8s.io/kubernetes@v1.36.6"),
    "kube-1.36.3": info("k8s.io/kubernetes@v1.36.3"),
    "kube-versions": listing("k8s.io/kubernetes"),
    "etcd-3.6.16": info("go.etcd.io/etcd/server/v3@v3.6.16"),
    "jobset-0.12.0": info("sigs.k8s.io/jobset@v0.12.0"),
    "jobset-0.12.1": info("sigs.k8s.io/jobset@v0.12.1"),
    "jobset-versions": listing("sigs.k8s.io/jobset"),
    "kwok-0.7.0": info("sigs.k8s.io/kwok@v0.7.0"),
    "kwok-0.7.1": info("sigs.k8s.io/kwok@v0.7.1"),
    "kwok-0.9.0": info("sigs.k8s.io/kwok@v0.9.0"),
    "kwok-versions": listing("sigs.k8s.io/kwok"),
}


def without_origin(answer: dict) -> dict:
    stdout = {k: v for k, v in answer["stdout"].items() if k != "Origin"}
    return {**answer, "stdout": stdout}


def refused_like(source: str, target: str):
    def derive(answer: dict) -> dict:
        stderr = answer["stderr"].replace(source, target)
        return {**answer, "args": [a.replace(source, target) for a in answer["args"]], "stderr": stderr}

    return derive


def resolved_commit(answer: dict) -> dict:
    stdout = {**answer["stdout"], "Version": "v4.0.0-20260116181547-144dd813d53e", "Time": "2026-01-16T18:15:47Z"}
    stdout["Origin"] = {**stdout["Origin"], "Hash": SDK_4_25_COMMIT}
    return {**answer, "args": info(f"{K8S_PROV}@{SDK_4_25_COMMIT}"), "stdout": stdout}


def served_like(answer: dict) -> dict:
    path, version = answer["args"][-1].split("@")
    return {**answer, "returncode": 0, "stdout": {"Path": path, "Version": version, "Time": "2026-11-05T12:45:06Z"}, "stderr": ""}


# name -> (recorded answer it is made from, what was changed, how)
DERIVED = {
    "k8s-provider-pseudo-no-origin": (
        "k8s-provider-pseudo",
        "the Origin removed: the answer a fresh machine got for this pseudo-version (the proxy does not always send Origin)",
        without_origin,
    ),
    "k8s-provider-at-4.25.0-commit-served": (
        "k8s-provider-pseudo",
        "what go answers for a provider commit the proxy serves (this proxy refuses every lookup by commit),"
        " for the sdk/v4 v4.25.0 commit: its pseudo-version, with Origin",
        resolved_commit,
    ),
    "langhost-pseudo-served": (
        "langhost-pseudo",
        "answered as served (the module is not served at any version today), as go answers for a served pseudo-version",
        served_like,
    ),
    "kube-1.36.3-refused": (
        "kube-1.36.6",
        "1.36.6's 403 answer, for 1.36.3: a version the listing names but the proxy refuses (not seen today)",
        refused_like("v1.36.6", "v1.36.3"),
    ),
}


def trim(stdout: str, args: list[str]):
    """JSON answers keep what the resolver reads (no local paths, sums or Go versions)."""
    if "-json" not in args or not stdout.strip():
        return stdout
    data = json.loads(stdout)
    return {k: data[k] for k in ("Path", "Version", "Time", "Origin", "Error") if k in data}


def record(args: list[str], cache: Path, go_version: str, proxy: str) -> dict:
    env = {**os.environ, "GOMODCACHE": str(cache / "mod"), "GOPATH": str(cache / "path"), "GOCACHE": str(cache / "cache"),
           "GOFLAGS": "-mod=mod", "GOWORK": "off"}
    done = subprocess.run(["go", *args], capture_output=True, text=True, env=env, cwd=cache)
    return {
        "recorded": f"{date.today()} with {go_version}, GOPROXY={proxy}",
        "args": args,
        "returncode": done.returncode,
        "stdout": trim(done.stdout, args),
        "stderr": done.stderr,
    }


def main() -> int:
    go_version = subprocess.run(["go", "version"], capture_output=True, text=True, check=True).stdout.split()[2]
    proxy = subprocess.run(["go", "env", "GOPROXY"], capture_output=True, text=True, check=True).stdout.strip()
    RECORDED.mkdir(exist_ok=True)
    answers = {}
    with tempfile.TemporaryDirectory(prefix="record-go-answers-") as tmp:
        for name, args in ANSWERS.items():
            answers[name] = record(args, Path(tmp), go_version, proxy)
            print(f"{name}: rc={answers[name]['returncode']}", file=sys.stderr)
        subprocess.run(["chmod", "-R", "u+w", tmp], check=False)  # the module cache is read-only
    for name, (source, note, derive) in DERIVED.items():
        answers[name] = {**derive(answers[source]), "note": f"derived from {source}.json: {note}"}
    for name, answer in answers.items():
        (RECORDED / f"{name}.json").write_text(json.dumps(answer, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
