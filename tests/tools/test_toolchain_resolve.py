"""tools/toolchain_resolve.py against recorded Go proxy answers (tests/tools/recorded/, re-recorded by
record_go_answers.py): which versions tools/bootstrap and tools/bootstrap-cluster build. No network,
no `go`: every go command a resolver runs must be one of the case's recordings."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest

TOOLS = Path(__file__).resolve().parents[2] / "tools"
RECORDED = Path(__file__).resolve().parent / "recorded"
PSEUDO = "v4.0.0-20260115033456-f47bc2d6f199"
PSEUDO_COMMIT = "f47bc2d6f1996444d11c12b4ef083b82585f7c07"
SDK_4_25_COMMIT = "144dd813d53edee4aac1f946500deef6513b12f0"


def load_resolver() -> ModuleType:
    spec = importlib.util.spec_from_file_location("toolchain_resolve", TOOLS / "toolchain_resolve.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules["toolchain_resolve"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


resolver = load_resolver()


class RecordedGo:
    """A `go` that knows only the named recordings; any other command fails the test."""

    def __init__(self, *names: str) -> None:
        self.answers = {}
        for name in names:
            recording = json.loads((RECORDED / f"{name}.json").read_text())
            self.answers[tuple(recording["args"])] = recording
        self.asked: list[tuple[str, ...]] = []

    def __call__(self, args) -> resolver.GoAnswer:
        self.asked.append(tuple(args))
        recording = self.answers.get(tuple(args))
        if recording is None:
            raise AssertionError(f"no recorded answer for: go {' '.join(args)}")
        stdout = recording["stdout"]
        if not isinstance(stdout, str):  # JSON answers are stored as JSON, go prints them tab-indented
            stdout = json.dumps(stdout, indent="\t") + "\n"
        return resolver.GoAnswer(recording["returncode"], stdout, recording["stderr"])


class Logs(list):
    def __call__(self, message: str) -> None:
        self.append(message)

    def say(self, text: str) -> bool:
        return any(text in line for line in self)


def proxy(*names: str) -> resolver.Proxy:
    return resolver.Proxy(RecordedGo(*names))


@dataclass(frozen=True)
class Case:
    name: str
    answers: tuple[str, ...]
    args: tuple
    expect: object = None
    error: str | None = None  # the ResolveError message, instead of `expect`
    log: str | None = None  # a line the resolver must log


def check(case: Case, resolve) -> None:
    logs = Logs()
    if case.error is not None:
        with pytest.raises(resolver.ResolveError, match=re.escape(case.error)):
            resolve(proxy(*case.answers), *case.args, log=logs)
    else:
        assert resolve(proxy(*case.answers), *case.args, log=logs) == case.expect
    if case.log is not None:
        assert logs.say(case.log), f"expected a log line with {case.log!r}, got {logs}"


# ------------------------------------------------------------------------------ the pulumi CLI

CLI = [
    Case("a CLI version both pkg/v3 and sdk/v3 serve is built as wanted", ("pkg-3.274.1", "sdk-3.274.1"), ("3.274.1",), "3.274.1"),
    Case(
        "a refused CLI version falls back to the nearest newer release, at its newest patch",
        ("pkg-3.272.0", "pkg-versions", "pkg-3.274.1", "sdk-3.274.1"),
        ("3.272.0",),
        "3.274.1",
        log="github.com/pulumi/pulumi/pkg/v3@v3.272.0 is not served; picking the nearest served release",
    ),
    Case(
        "a CLI version newer than every listed release falls back to the nearest older one",
        ("pkg-3.280.0", "pkg-versions", "pkg-3.276.0", "sdk-3.276.0"),
        ("3.280.0",),
        "3.276.0",
    ),
]


@pytest.mark.parametrize("case", CLI, ids=lambda case: case.name)
def test_cli_version(case: Case) -> None:
    check(case, resolver.cli_version)


# ------------------------------------------------------------------------------ the language host and scripts

LANGHOST = [
    Case(
        "without a pseudo-version the legacy host is built, and the log says the module is not served",
        ("langhost-versions",),
        ("",),
        "legacy",
        log="is not served by the proxy (no version at all)",
    ),
    Case("a refused language host pseudo-version means the legacy host", ("langhost-pseudo", "langhost-versions"), ("v3.0.0-20261105124506-0123456789ab",), "legacy"),
    Case("a served language host pseudo-version is built from its own module", ("langhost-pseudo-served",), ("v3.0.0-20261105124506-0123456789ab",), "module"),
]


@pytest.mark.parametrize("case", LANGHOST, ids=lambda case: case.name)
def test_langhost_source(case: Case) -> None:
    check(case, resolver.langhost_source)


SCRIPTS = [
    Case("the runtime scripts come from the Python SDK's own sdk/v3 when it is served", ("sdk-3.272.0",), ("3.272.0", "3.274.1"), "3.272.0"),
    Case("the runtime scripts come from the CLI's sdk/v3 when the Python SDK's is refused", ("sdk-3.280.0",), ("3.280.0", "3.274.1"), "3.274.1"),
]


@pytest.mark.parametrize("case", SCRIPTS, ids=lambda case: case.name)
def test_python_scripts_sdk(case: Case) -> None:
    check(case, lambda proxy, want, cli, log: resolver.python_scripts_sdk(proxy, want, cli))


# ------------------------------------------------------------------------------ the kubernetes provider

REFUSED_4_34_2 = ("k8s-sdk-4.34.2-download", "k8s-sdk-4.34.2", "k8s-sdk-4.25.0")
FALLBACK = (PSEUDO, "4.25.0", "")


def provider(pseudo: str, sdk: str, label: str, commit: str) -> resolver.K8sProvider:
    return resolver.K8sProvider(pseudo, sdk, label, commit)


K8S = [
    Case(
        "a refused sdk/v4 release falls back to the pseudo-version, labelled with the nearest release and the commit from Origin",
        REFUSED_4_34_2 + ("k8s-provider-pseudo",),
        ("4.34.2",) + FALLBACK,
        provider(PSEUDO, "4.25.0", "4.25.0+git.f47bc2d6f199", PSEUDO_COMMIT),
        log="v4.34.2 is not served (so its commit cannot be found through the proxy)",
    ),
    Case(
        "a pseudo-version without Origin names its commit in its last part",
        REFUSED_4_34_2 + ("k8s-provider-pseudo-no-origin",),
        ("4.34.2",) + FALLBACK,
        provider(PSEUDO, "4.25.0", "4.25.0+git.f47bc2d6f199", "f47bc2d6f199"),
    ),
    Case(
        "a served sdk/v4 tag whose commit the proxy serves as a provider version is built under the tag's version",
        ("k8s-sdk-4.25.0-download", "k8s-provider-at-4.25.0-commit-served"),
        ("4.25.0",) + FALLBACK,
        provider("v4.0.0-20260116181547-144dd813d53e", "4.25.0", "4.25.0", SDK_4_25_COMMIT),
        log=f"kubernetes provider 4.25.0: commit {SDK_4_25_COMMIT}",
    ),
    Case(
        "a served sdk/v4 tag whose commit the proxy refuses as a provider version falls back",
        ("k8s-sdk-4.25.0-download", "k8s-provider-at-4.25.0-commit", "k8s-sdk-4.25.0", "k8s-provider-pseudo"),
        ("4.25.0",) + FALLBACK,
        provider(PSEUDO, "4.25.0", "4.25.0+git.f47bc2d6f199", PSEUDO_COMMIT),
        log=f"@{SDK_4_25_COMMIT} (the commit of github.com/pulumi/pulumi-kubernetes/sdk/v4 v4.25.0) is not served",
    ),
    Case(
        "a label override replaces the fallback's label and nothing else",
        REFUSED_4_34_2 + ("k8s-provider-pseudo",),
        ("4.34.2", PSEUDO, "4.25.0", "4.34.2"),
        provider(PSEUDO, "4.25.0", "4.34.2", PSEUDO_COMMIT),
    ),
    Case(
        "a refused fallback pseudo-version is a clear error",
        ("k8s-sdk-4.34.2-download", "k8s-sdk-4.34.2", "k8s-provider-other-pseudo"),
        ("4.34.2", "v4.0.0-20251201000000-0123456789ab", "4.25.0", ""),
        error="fallback github.com/pulumi/pulumi-kubernetes/provider/v4@v4.0.0-20251201000000-0123456789ab not served either",
    ),
    Case(
        "a refused fallback sdk/v4 tag is a clear error",
        ("k8s-sdk-4.34.2-download", "k8s-sdk-4.34.2", "k8s-provider-pseudo"),
        ("4.34.2", PSEUDO, "4.34.2", ""),
        error="github.com/pulumi/pulumi-kubernetes/sdk/v4@v4.34.2 not served",
    ),
]


@pytest.mark.parametrize("case", K8S, ids=lambda case: case.name)
def test_k8s_provider(case: Case) -> None:
    check(case, resolver.k8s_provider)


def test_a_fresh_machine_never_gets_an_empty_commit_in_the_label() -> None:
    """The engine refuses `4.25.0+git.` ("Build meta data is empty")."""
    found = resolver.k8s_provider(proxy(*REFUSED_4_34_2, "k8s-provider-pseudo-no-origin"), "4.34.2", *FALLBACK, log=Logs())
    assert re.fullmatch(r"4\.25\.0\+git\.[0-9a-f]{12}", found.label)


PSEUDO_COMMITS = [
    ("a pseudo-version's last part is its commit", PSEUDO, "f47bc2d6f199"),
    ("a pre-release pseudo-version's last part is its commit", "v1.2.4-0.20191109021931-daa7c04131f5", "daa7c04131f5"),
    ("a release tag names no commit", "v4.34.2", ""),
    ("a last part that is not 12 hex digits is no commit", "v4.0.0-20260115033456-notahash", ""),
]


@pytest.mark.parametrize("text, commit", [c[1:] for c in PSEUDO_COMMITS], ids=[c[0] for c in PSEUDO_COMMITS])
def test_pseudo_commit(text: str, commit: str) -> None:
    assert resolver.pseudo_commit(text) == commit


# ------------------------------------------------------------------------------ tools/bootstrap-cluster

NEAREST = [
    Case("a served Kubernetes version without Origin is built as wanted", ("kube-1.36.5",), ("k8s.io/kubernetes", "1.36.5"), "1.36.5"),
    Case("a served version with Origin is built as wanted", ("jobset-0.12.0",), ("sigs.k8s.io/jobset", "0.12.0"), "0.12.0"),
    Case("the wanted etcd is served", ("etcd-3.6.16",), ("go.etcd.io/etcd/server/v3", "3.6.16"), "3.6.16"),
    Case(
        "a refused Kubernetes patch falls back to the nearest older listed patch of its minor",
        ("kube-1.36.6", "kube-versions", "kube-1.36.3"),
        ("k8s.io/kubernetes", "1.36.6"),
        "1.36.3",
        log="FALLBACK: k8s.io/kubernetes v1.36.6 -> v1.36.3 (nearest served in the same minor line)",
    ),
    Case(
        "a refused kwok patch falls back within its minor line, never to a newer minor",
        ("kwok-0.7.1", "kwok-versions", "kwok-0.7.0"),
        ("sigs.k8s.io/kwok", "0.7.1"),
        "0.7.0",
        log="sigs.k8s.io/kwok@v0.7.1 is not served: go: sigs.k8s.io/kwok@v0.7.1: reading",
    ),
    Case(
        "a refused version whose minor line lists nothing is a clear error",
        ("kwok-0.9.0", "kwok-versions"),
        ("sigs.k8s.io/kwok", "0.9.0"),
        error="no served sigs.k8s.io/kwok version in the 0.9 line (wanted v0.9.0)",
    ),
    Case(
        "a refused version of a module whose listing is refused too is a clear error",
        ("jobset-0.12.1", "jobset-versions"),
        ("sigs.k8s.io/jobset", "0.12.1"),
        error="no served sigs.k8s.io/jobset version in the 0.12 line (wanted v0.12.1)",
    ),
    Case(
        "a listed version the proxy refuses is a clear error",
        ("kube-1.36.6", "kube-versions", "kube-1.36.3-refused"),
        ("k8s.io/kubernetes", "1.36.6"),
        error="k8s.io/kubernetes@v1.36.3 is listed but not served",
    ),
]


@pytest.mark.parametrize("case", NEAREST, ids=lambda case: case.name)
def test_nearest_served(case: Case) -> None:
    check(case, resolver.nearest_served)


CHOICES = [
    ("the nearest newer release is preferred to a nearer older one", [(1, 36, 1), (1, 36, 3), (1, 36, 9), (1, 36, 7)], (1, 36, 4), (1, 36, 7)),
    ("without a newer release the nearest older one is taken", [(1, 36, 1), (1, 36, 3)], (1, 36, 6), (1, 36, 3)),
    ("the wanted version itself is never the fallback", [(1, 36, 6)], (1, 36, 6), None),
    ("no listed release, no fallback", [], (1, 36, 6), None),
]


@pytest.mark.parametrize("listed, want, pick", [c[1:] for c in CHOICES], ids=[c[0] for c in CHOICES])
def test_nearest(listed, want, pick) -> None:
    assert resolver.nearest(listed, want) == pick


def test_a_listing_keeps_releases_only() -> None:
    listed = resolver.Proxy(RecordedGo("kube-versions")).releases("k8s.io/kubernetes")
    assert (1, 36, 3) in listed and all(len(release) == 3 for release in listed)
    assert (1, 38, 0) not in listed, "v1.38.0-beta.0 is a pre-release"


# ------------------------------------------------------------------------------ the command line the scripts call


def test_the_command_prints_shell_assignable_lines(capsys) -> None:
    args = ["--log-prefix", "[bootstrap]", "k8s-provider", "--want", "4.34.2", "--fallback-pseudo", PSEUDO, "--fallback-sdk", "4.25.0"]
    assert resolver.main(args, run=RecordedGo(*REFUSED_4_34_2, "k8s-provider-pseudo-no-origin")) == 0
    out, err = capsys.readouterr()
    assert out.splitlines() == [f"K8S_PSEUDO={PSEUDO}", "K8S_SDK=4.25.0", "K8S_LABEL=4.25.0+git.f47bc2d6f199", "K8S_COMMIT=f47bc2d6f199"]
    assert all(line.startswith("[bootstrap] ") for line in err.splitlines()), "logs go to stderr with the script's prefix"


def test_nothing_served_exits_1_with_the_error_on_stderr(capsys) -> None:
    args = ["--log-prefix", "[bootstrap-cluster]", "nearest", "sigs.k8s.io/jobset", "0.12.1"]
    assert resolver.main(args, run=RecordedGo("jobset-0.12.1", "jobset-versions")) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert "[bootstrap-cluster] ERROR: no served sigs.k8s.io/jobset version in the 0.12 line (wanted v0.12.1)" in err


@pytest.mark.parametrize("script", ["bootstrap", "bootstrap-cluster"])
def test_the_scripts_call_the_resolver_for_every_choice(script: str) -> None:
    text = (TOOLS / script).read_text()
    assert "tools/toolchain_resolve.py" in text
    assert "go list -m -versions" not in text, "version choice is the resolver's job"


def test_the_resolver_asks_about_the_modules_bootstrap_builds() -> None:
    assigned = dict(re.findall(r"^([A-Z0-9_]+_MOD)=(\S+)$", (TOOLS / "bootstrap").read_text(), re.M))
    for name in ("PKG_MOD", "SDK_MOD", "LANGHOST_MOD", "K8S_PROV_MOD", "K8S_SDK_MOD"):
        assert getattr(resolver, name) == assigned[name], name
