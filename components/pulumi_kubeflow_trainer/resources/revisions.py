"""Runtime revisions: a TrainJob renders against its runtime as it was when the TrainJob was created.

Why: a runtime is code that a platform team keeps editing, while TrainJobs live on in the same stack.
Rendering every TrainJob against the runtime's current text would make a one-line image bump replace
(re-run, or kill) the JobSet of every TrainJob that uses the runtime. The Trainer controller never
does that to a running or finished TrainJob (its JobSet plugin leaves an existing, unsuspended JobSet
alone), and a stack must not either.

How: each TrainJob keeps the runtime it was created with in a `pulumi.Stash` child, `<name>-runtime`.
A stash is a resource built into the engine whose `output` keeps the value it was created with; with
`ignore_changes=["input"]` a runtime edit is no step at all. The stash is replaced, so the TrainJob
moves to the runtime's current text, when its `runtime_pin` changes or it names another runtime. The
children are rendered against the stash's output, known at preview as at `up` (runtimes are plain
values). `RevisionReport` says once per runtime, at every preview and up, which TrainJobs keep an older one.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pulumi

from ..api.runtime import Runtime
from ..loading import parse

PIN_SUFFIX = "-runtime"
_REPORT = "_kubeflow_trainer_revision_report"


def canonical_json(manifest: Mapping[str, Any]) -> str:
    """The text a stash keeps: JSON survives the engine's property values (numbers there are floats)."""
    return json.dumps(manifest, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def revision_of(manifest: Mapping[str, Any]) -> str:
    """A short digest of a runtime manifest: equal texts, equal revisions."""
    return hashlib.sha256(canonical_json(manifest).encode()).hexdigest()[:12]


@dataclass(frozen=True)
class RuntimeRevision:
    """A runtime as one TrainJob renders against it: which runtime, and its text."""

    kind: str
    name: str
    manifest: dict[str, Any]
    revision: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "revision", revision_of(self.manifest))

    @classmethod
    def of(cls, runtime: Runtime, *, namespace_pending: bool = False) -> RuntimeRevision:
        """`namespace_pending`: the TrainJob's namespace is an Output, and a TrainingRuntime given for it
        is taken to be in it; its namespace is not part of the revision then."""
        manifest = runtime.to_manifest()
        if namespace_pending:
            manifest["metadata"] = {key: value for key, value in manifest["metadata"].items() if key != "namespace"}
        return cls(runtime.kind, runtime.name, manifest)

    @property
    def label(self) -> str:
        return f"{self.kind} {self.name}"

    def record(self) -> dict[str, Any]:
        """What the stash keeps."""
        return {"kind": self.kind, "name": self.name, "revision": self.revision, "manifest": canonical_json(self.manifest)}

    @classmethod
    def from_record(cls, record: object) -> RuntimeRevision | None:
        """The revision a stash kept; None for anything else (a stash of no known shape)."""
        if not isinstance(record, dict) or not isinstance(record.get("manifest"), str):
            return None
        return cls(str(record.get("kind")), str(record.get("name")), json.loads(record["manifest"]))

    def model(self) -> Runtime:
        runtime = parse(self.manifest, f"{self.label} (revision {self.revision})")
        assert isinstance(runtime, Runtime), "a runtime's own manifest parses as a runtime"
        return runtime


def pin(name: str, revision: RuntimeRevision, trainjob: pulumi.Input[str], runtime_pin: str | int | None,
        parent: pulumi.Resource) -> pulumi.Stash:
    """The TrainJob's `<name>-runtime` stash: created with `revision`, kept until the TrainJob names
    another runtime, becomes another TrainJob (namespace/name), or changes `runtime_pin`."""
    trigger = {"trainjob": trainjob, "runtime": revision.label, "pin": runtime_pin}
    options = pulumi.ResourceOptions(parent=parent, ignore_changes=["input"], replacement_trigger=trigger)
    return pulumi.Stash(f"{name}{PIN_SUFFIX}", input=revision.record(), opts=options)


@dataclass
class RevisionReport:
    """Says once per runtime which TrainJobs keep an older revision of it. One per program: every
    TrainJob announces itself while the program runs (`expect`), and reports its pinned revision once
    the engine answered (`settle`), which is after the program's own code has run."""

    waiting: Counter[str] = field(default_factory=Counter)
    kept: dict[str, dict[str, list[str]]] = field(default_factory=lambda: defaultdict(lambda: defaultdict(list)))

    def expect(self, current: RuntimeRevision) -> None:
        self.waiting[current.label] += 1

    def settle(self, current: RuntimeRevision, pinned: RuntimeRevision, trainjob: str, controller: bool,
               runtime: pulumi.Resource | None) -> None:
        """`runtime`: the runtime's component, where the message goes (else the stack's)."""
        if pinned.revision != current.revision:
            self.kept[current.label][pinned.revision].append(trainjob)
        self.waiting[current.label] -= 1
        if self.waiting[current.label] == 0 and self.kept[current.label]:
            pulumi.log.info(changed_message(current, self.kept.pop(current.label), controller), resource=runtime)


def changed_message(current: RuntimeRevision, kept: Mapping[str, list[str]], controller: bool) -> str:
    """True at every preview while TrainJobs keep older revisions (the program cannot know when the runtime
    changed, only that the TrainJobs' revisions differ from its text now)."""
    count = sum(len(names) for names in kept.values())
    revisions = "; ".join(f"{revision} ({', '.join(sorted(names))})" for revision, names in sorted(kept.items()))
    existing = f"{count} existing TrainJob{'s' if count > 1 else ''} of this stack"
    if controller:
        return (f"{current.label} is at revision {current.revision}: the Trainer controller uses it for TrainJobs it "
                f"creates and re-applies it to suspended ones it reconciles; {existing} {'were' if count > 1 else 'was'} "
                f"created with revision {revisions} and {'are' if count > 1 else 'is'} not re-created")
    return (f"{current.label} is at revision {current.revision}: it applies to new TrainJobs; {existing} "
            f"{'keep' if count > 1 else 'keeps'} revision {revisions}; change runtime_pin on a TrainJob to move it "
            f"to revision {current.revision} (it runs again)")


def program_report() -> RevisionReport:
    """The program's report, kept on its root resource (the Stack): it belongs to this program run
    and to no other. Under unit-test mocks there is no root, and each TrainJob reports alone."""
    root = pulumi.runtime.get_root_resource()
    report = getattr(root, _REPORT, None)
    if report is None:
        report = RevisionReport()
        if root is not None:
            setattr(root, _REPORT, report)
    return report
