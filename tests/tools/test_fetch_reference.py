"""tools/fetch_reference.py on its cold paths, with no network and no `go`.

`go mod download -json` answers are recorded in tests/tools/recorded_reference/ (real proxy answers
of 2026-12-01, the GOMODCACHE prefix replaced by `$GOMODCACHE`); the modules themselves are small
fakes under tmp_path with the files the fetcher copies.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import FETCH_REFERENCE as fetch_reference

RECORDED = Path(__file__).resolve().parent / "recorded_reference"
VOLCANO = "v1.13.1-0.20251028070205-46d20c0699e7"  # what trainer v2.3.0's go.mod requires
TRAINER_FILES = {
    "go.mod": f"module github.com/kubeflow/trainer/v2\n\nrequire (\n\tsigs.k8s.io/jobset v0.12.0\n\tvolcano.sh/apis {VOLCANO}\n)\n",
    "manifests/base/crds/trainer.kubeflow.org_trainjobs.yaml": "kind: CustomResourceDefinition # trainjobs\n",
    "manifests/base/crds/trainer.kubeflow.org_trainingruntimes.yaml": "kind: CustomResourceDefinition # runtimes\n",
    "manifests/base/crds/trainer.kubeflow.org_clustertrainingruntimes.yaml": "kind: CustomResourceDefinition # cluster\n",
    "manifests/base/runtimes/kustomization.yaml": "resources: [torch_distributed.yaml]\n",
    "manifests/base/runtimes/torch_distributed.yaml": "kind: ClusterTrainingRuntime\n",
    "manifests/base/runtimes/torchtune/qwen2_5/qwen2_5_1.5B.yaml": "kind: ClusterTrainingRuntime\n",
}
JOBSET_FILES = {"config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml": "kind: CustomResourceDefinition # jobset\n"}
SCHEDULER_PLUGINS_FILES = {"manifests/coscheduling/crd.yaml": "kind: CustomResourceDefinition # podgroup\n"}
RECORDINGS = ("trainer-v2.3.0", "jobset-v0.12.0", "scheduler-plugins-v0.35.4-devel")


class RecordedGo:
    """A `go` that answers `mod download -json` from recordings and `clean` with success; any other
    command fails the test."""

    def __init__(self, modcache: Path, *names: str) -> None:
        self.modcache = modcache
        self.answers = {}
        for name in names:
            recording = json.loads((RECORDED / f"{name}.json").read_text())
            self.answers[tuple(recording["args"])] = recording
        self.asked: list[tuple[str, ...]] = []

    def __call__(self, args: list[str], cwd: Path) -> subprocess.CompletedProcess:
        self.asked.append(tuple(args))
        if args[0] == "clean":
            return subprocess.CompletedProcess(args, 0, "", "")
        recording = self.answers.get(tuple(args))
        if recording is None:
            raise AssertionError(f"no recorded answer for: go {' '.join(args)}")
        stdout = json.dumps(recording["stdout"], indent="\t").replace("$GOMODCACHE", str(self.modcache))
        return subprocess.CompletedProcess(args, recording["returncode"], stdout + "\n", recording["stderr"])


class NoGo:
    def __call__(self, args: list[str], cwd: Path) -> subprocess.CompletedProcess:
        raise AssertionError(f"a warm fetch ran go {' '.join(args)}")


class FakeGenerator:
    """Stands in for controller-gen: records the Volcano version it was asked for."""

    def __init__(self) -> None:
        self.versions: list[str] = []

    def __call__(self, go, work: Path, version: str, target: Path) -> dict[str, str]:
        self.versions.append(version)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("kind: CustomResourceDefinition # volcano podgroup\n")
        return {"module": "volcano.sh/apis", "version": version, "path": "pkg/apis/scheduling/v1beta1", "sha256": "x"}


def make_module(modcache: Path, label: str, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = modcache / label / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


@pytest.fixture
def modcache(tmp_path: Path) -> Path:
    """Fake modules where the recorded answers' Dir points."""
    root = tmp_path / "mod"
    make_module(root, "github.com/kubeflow/trainer/v2@v2.3.0", TRAINER_FILES)
    make_module(root, "sigs.k8s.io/jobset@v0.12.0", JOBSET_FILES)
    make_module(root, "sigs.k8s.io/scheduler-plugins@v0.35.4-devel", SCHEDULER_PLUGINS_FILES)
    return root


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "reference"


def cold_fetch(root: Path, modcache: Path) -> tuple[RecordedGo, FakeGenerator]:
    go, generate = RecordedGo(modcache, *RECORDINGS), FakeGenerator()
    fetch_reference.fetch(root, go=go, generate=generate)
    return go, generate


def test_a_cold_fetch_copies_the_files_into_the_stable_layout_and_stamps_them(root: Path, modcache: Path) -> None:
    go, generate = cold_fetch(root, modcache)
    data = sorted(path.relative_to(root).as_posix() for path in root.rglob("*") if path.is_file() and path.name != ".lock")
    assert data == [
        "crds/jobset/jobset.x-k8s.io_jobsets.yaml",
        "crds/scheduler-plugins/crd.yaml",
        "crds/trainer/trainer.kubeflow.org_clustertrainingruntimes.yaml",
        "crds/trainer/trainer.kubeflow.org_trainingruntimes.yaml",
        "crds/trainer/trainer.kubeflow.org_trainjobs.yaml",
        "crds/volcano/scheduling.volcano.sh_podgroups.yaml",
        "runtimes/base/kustomization.yaml",
        "runtimes/base/torch_distributed.yaml",
        "runtimes/base/torchtune/qwen2_5/qwen2_5_1.5B.yaml",
        "stamp.json",
    ]
    assert (root / "crds/scheduler-plugins/crd.yaml").read_text() == SCHEDULER_PLUGINS_FILES["manifests/coscheduling/crd.yaml"]
    assert generate.versions == [VOLCANO]
    stamp = json.loads((root / "stamp.json").read_text())
    assert stamp["key"] == fetch_reference.stamp_key()
    assert stamp["files"]["runtimes/base/torchtune/qwen2_5/qwen2_5_1.5B.yaml"] | {"sha256": ""} == {
        "module": "github.com/kubeflow/trainer/v2", "version": "v2.3.0",
        "path": "manifests/base/runtimes/torchtune/qwen2_5/qwen2_5_1.5B.yaml", "sha256": "",
    }
    assert stamp["origins"]["github.com/kubeflow/trainer/v2@v2.3.0"]["Hash"] == "658725bdae5c7e3a0854d93ac6ff492e109a22ab"
    assert ("clean", "-modcache", "-cache") in go.asked
    assert fetch_reference.is_warm(root)


def test_a_warm_fetch_runs_no_go_and_changes_nothing(root: Path, modcache: Path) -> None:
    cold_fetch(root, modcache)
    before = (root / "stamp.json").stat().st_mtime_ns
    assert fetch_reference.fetch(root, go=NoGo(), generate=FakeGenerator()) == root.resolve()
    assert (root / "stamp.json").stat().st_mtime_ns == before


def test_main_prints_the_warm_dir_as_its_last_line(root: Path, modcache: Path, capsys: pytest.CaptureFixture) -> None:
    cold_fetch(root, modcache)
    assert fetch_reference.main(["--dir", str(root)]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == str(root.resolve())


@pytest.mark.parametrize("damage", ["a listed file is gone", "the stamp names other pins"])
def test_a_damaged_or_stale_stamp_fetches_again(root: Path, modcache: Path, damage: str) -> None:
    cold_fetch(root, modcache)
    if damage == "a listed file is gone":
        (root / "crds/jobset/jobset.x-k8s.io_jobsets.yaml").unlink()
    else:
        stamp = json.loads((root / "stamp.json").read_text())
        (root / "stamp.json").write_text(json.dumps({**stamp, "key": "recipe=0 trainer=v2.2.0"}))
    assert not fetch_reference.is_warm(root)
    go, _ = cold_fetch(root, modcache)
    assert ("mod", "download", "-json", "sigs.k8s.io/jobset@v0.12.0") in go.asked
    assert fetch_reference.is_warm(root)


def test_a_version_the_proxy_does_not_serve_fails_naming_it(root: Path, modcache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    trainer = fetch_reference.SOURCES[0]
    monkeypatch.setattr(fetch_reference, "SOURCES", (fetch_reference.Source(trainer.module, "v2.99.0", trainer.copies),))
    go = RecordedGo(modcache, "trainer-v2.99.0")
    with pytest.raises(fetch_reference.FetchError) as error:
        fetch_reference.fetch(root, go=go, generate=FakeGenerator())
    assert "github.com/kubeflow/trainer/v2@v2.99.0 is not available from the Go module proxy" in str(error.value)
    assert "403 Forbidden" in str(error.value)
    assert not (root / "stamp.json").exists()


def test_a_file_missing_in_the_module_fails_naming_module_and_path(root: Path, modcache: Path) -> None:
    (modcache / "sigs.k8s.io/scheduler-plugins@v0.35.4-devel/manifests/coscheduling/crd.yaml").unlink()
    with pytest.raises(fetch_reference.FetchError, match=r"sigs\.k8s\.io/scheduler-plugins@v0\.35\.4-devel has no "
                       r"manifests/coscheduling/crd\.yaml"):
        cold_fetch(root, modcache)
    assert not (root / "stamp.json").exists()
    assert not fetch_reference.is_warm(root)


def test_an_empty_runtimes_folder_in_the_module_fails(root: Path, modcache: Path) -> None:
    for path in (modcache / "github.com/kubeflow/trainer/v2@v2.3.0/manifests/base/runtimes").rglob("*.yaml"):
        path.unlink()
    with pytest.raises(fetch_reference.FetchError, match=r"has no manifests/base/runtimes"):
        cold_fetch(root, modcache)


def test_a_trainer_go_mod_without_volcano_fails(root: Path, modcache: Path) -> None:
    (modcache / "github.com/kubeflow/trainer/v2@v2.3.0/go.mod").write_text("module github.com/kubeflow/trainer/v2\n")
    with pytest.raises(fetch_reference.FetchError, match=r"go\.mod does not require volcano\.sh/apis"):
        cold_fetch(root, modcache)


class ControllerGenGo:
    """Answers the Volcano generation's go commands; `run` writes what controller-gen would."""

    def __init__(self, writes: bool = True) -> None:
        self.writes = writes
        self.asked: list[tuple[tuple[str, ...], Path]] = []

    def __call__(self, args: list[str], cwd: Path) -> subprocess.CompletedProcess:
        cwd.mkdir(parents=True, exist_ok=True)
        self.asked.append((tuple(args), cwd))
        if args[0] == "run" and self.writes:
            out = Path(args[-1].removeprefix("output:crd:dir="))
            out.mkdir(parents=True)
            (out / "scheduling.volcano.sh_podgroups.yaml").write_text("kind: CustomResourceDefinition\n")
        return subprocess.CompletedProcess(args, 0, "", "")


def test_volcano_is_generated_by_controller_gen_from_the_pinned_apis(tmp_path: Path) -> None:
    go, target = ControllerGenGo(), tmp_path / "ref/crds/volcano/scheduling.volcano.sh_podgroups.yaml"
    provenance = fetch_reference.generate_volcano_crd(go, tmp_path / "src", VOLCANO, target)
    commands = [args for args, _ in go.asked]
    assert commands[1] == ("get", f"volcano.sh/apis/pkg/apis/scheduling/v1beta1@{VOLCANO}")
    assert commands[2][:4] == ("run", "sigs.k8s.io/controller-tools/cmd/controller-gen@v0.18.0",
                               "crd:crdVersions=v1,allowDangerousTypes=true", "paths=volcano.sh/apis/pkg/apis/scheduling/v1beta1")
    assert target.read_text() == "kind: CustomResourceDefinition\n"
    assert (provenance["module"], provenance["version"]) == ("volcano.sh/apis", VOLCANO)


def test_controller_gen_writing_no_podgroups_crd_fails(tmp_path: Path) -> None:
    with pytest.raises(fetch_reference.FetchError, match="controller-gen wrote no scheduling.volcano.sh_podgroups.yaml"):
        fetch_reference.generate_volcano_crd(ControllerGenGo(writes=False), tmp_path / "src", VOLCANO, tmp_path / "t.yaml")


def test_the_reference_dir_must_be_outside_the_repo(capsys: pytest.CaptureFixture) -> None:
    assert fetch_reference.main(["--dir", str(fetch_reference.REPO / "reference")]) == 1
    assert "inside the repo" in capsys.readouterr().err
    assert not (fetch_reference.REPO / "reference").exists()


def test_the_dir_is_the_env_override_else_the_cache_named_by_the_pins(tmp_path: Path) -> None:
    assert fetch_reference.reference_dir({"PULUMI_KFT_REFERENCE": str(tmp_path)}) == tmp_path
    default = fetch_reference.reference_dir({"XDG_CACHE_HOME": str(tmp_path)})
    assert default == tmp_path / "pulumi-kubeflow-trainer" / f"reference-{fetch_reference.pins_label()}"
    assert "trainer2.3.0" in default.name and "jobset0.12.0" in default.name
