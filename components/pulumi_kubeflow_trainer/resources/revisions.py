"""Runtime revisions: a TrainJob renders against its runtime as it was when the TrainJob was created.

Why: a runtime is code that a platform team keeps editing, while TrainJobs live on in the same stack.
Rendering every TrainJob against the runtime's current text would make a one-line image bump replace
(re-run, or kill) the JobSet of every TrainJob that uses the runtime. The Trainer controller never
does that to a running or finished TrainJob (its JobSet plugin leaves an existing, unsuspended JobSet
alone), and a stack must not either.

How: the state keeps, in resources of the engine's built-in type `pulumi:index:Stash` (whose `output`
keeps the value it was created with; `ignore_changes` on the input makes a later value no step):
- per TrainJob, `<name>-runtime`: which runtime and which revision (a digest of its text) it renders
  against. Replaced, so the TrainJob moves to the runtime's current text, when its `runtime_pin`
  changes or it names another runtime;
- per runtime revision some TrainJob keeps, `<kind>-<namespace>-<name>-<revision>` (a child of the
  stack): that revision's text, once for all its TrainJobs. The program registers the ones its
  TrainJobs keep; the engine deletes the others.
- per TrainJob, `<name>-jobset-render`: a digest of its JobSet's fixed fields as this library rendered
  them when the JobSet was made. A later release may render them otherwise; the JobSet then keeps
  them (`ignore_changes`: the engine takes them from the state) instead of being replaced, which would
  run the training again. Replaced with the JobSet (`run`, `runtime_pin`, an edit of the TrainJob).
The children are rendered against the kept text, known at preview as at `up` (runtimes are plain
values). `RevisionReport` says once per runtime, at every preview and up, which TrainJobs keep an older
revision.
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
from .children import fixed_fields

PIN_SUFFIX = "-runtime"
RENDER_SUFFIX = "-jobset-render"
STASH_TYPE = "pulumi:index:Stash"
_PROGRAM = "_kubeflow_trainer_revisions"


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
    namespace: str  # "" for a ClusterTrainingRuntime, or a TrainingRuntime of a namespace known at deploy time only
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
        namespace = "" if namespace_pending else (manifest["metadata"].get("namespace") or "")
        if namespace_pending:
            manifest["metadata"] = {key: value for key, value in manifest["metadata"].items() if key != "namespace"}
        return cls(runtime.kind, namespace, runtime.name, manifest)

    @property
    def label(self) -> str:
        return f"{self.kind} {f'{self.namespace}/' if self.namespace else ''}{self.name}"

    @property
    def pin(self) -> dict[str, str]:
        """What a TrainJob's `<name>-runtime` keeps: which runtime, which revision."""
        return {"kind": self.kind, "namespace": self.namespace, "name": self.name, "revision": self.revision}

    def text_name(self, revision: str) -> str:
        """The name of the stash of `revision` of this runtime."""
        return "-".join(part for part in (self.kind.lower(), self.namespace, self.name, revision) if part)

    def model(self) -> Runtime:
        runtime = parse(self.manifest, f"{self.label} (revision {self.revision})")
        assert isinstance(runtime, Runtime), "a runtime's own manifest parses as a runtime"
        return runtime


def stash(name: str, value: Any, options: pulumi.ResourceOptions) -> pulumi.CustomResource:
    """A `pulumi.Stash`, registered as a plain CustomResource of its type and properties: the SDK then
    finds no third `__init__` on the stack and stores no call stack with it (about 1.8 KB of state per
    stash, written again on every step of an `up`: bench/pulumi measured the difference)."""
    return pulumi.CustomResource(STASH_TYPE, name, {"input": value, "output": None}, options)


def pin(name: str, current: RuntimeRevision, trainjob: pulumi.Input[str], runtime_pin: str | int | None,
        parent: pulumi.Resource) -> pulumi.CustomResource:
    """The TrainJob's `<name>-runtime`: created with `current`'s revision, kept until the TrainJob names
    another runtime, becomes another TrainJob (namespace/name), or changes `runtime_pin`."""
    trigger = {"trainjob": trainjob, "runtime": current.label, "pin": runtime_pin}
    options = pulumi.ResourceOptions(parent=parent, ignore_changes=["input"], replacement_trigger=trigger)
    return stash(f"{name}{PIN_SUFFIX}", current.pin, options)


async def kept_revision(pinned: pulumi.CustomResource, current: RuntimeRevision) -> str:
    """The revision a TrainJob's `<name>-runtime` kept (the current one for a new TrainJob, or under
    unit-test mocks, which keep nothing)."""
    kept = await pinned.output.future()  # type: ignore[attr-defined]  # an output property the SDK sets
    revision = kept.get("revision") if isinstance(kept, dict) else None
    return revision if isinstance(revision, str) and revision else current.revision


async def kept_text(current: RuntimeRevision, revision: str) -> RuntimeRevision:
    """The text of `revision` of the runtime of `current`, from the program's stash of it."""
    text = program_revisions().text(current, revision)
    if revision == current.revision:
        return current
    kept = await text.output.future()  # type: ignore[attr-defined]  # an output property the SDK sets
    manifest = json.loads(kept) if isinstance(kept, str) else None
    if not isinstance(manifest, dict) or revision_of(manifest) != revision:
        raise ValueError(f"{current.label}: the state has no text of revision {revision} (stash {current.text_name(revision)}); "
                         "change runtime_pin on the TrainJob to move it to the current revision")
    return RuntimeRevision(current.kind, current.namespace, current.name, manifest)


def render_digest(jobset: Mapping[str, Any]) -> str:
    """A short digest of the JobSet's fixed fields as this library renders them (Outputs as their tokens)."""
    return revision_of(fixed_fields(jobset))


def render_record(name: str, digest: str, trainjob: pulumi.Input[str], spec_digest: pulumi.Input[str], revision: str,
                  rerun: tuple[str | int | None, str | int | None], parent: pulumi.Resource) -> pulumi.CustomResource:
    """The TrainJob's `<name>-jobset-render`: `digest` of its JobSet as rendered when the JobSet was made.
    Replaced with the JobSet, so it takes the rendering of now: when the TrainJob becomes another
    TrainJob, its spec changes (`spec_digest`: `suspend` aside), it keeps another runtime revision, or
    its `run` or `runtime_pin` (`rerun`) changes."""
    trigger = {"trainjob": trainjob, "spec": spec_digest, "revision": revision, "run": rerun[0], "pin": rerun[1]}
    options = pulumi.ResourceOptions(parent=parent, ignore_changes=["input"], replacement_trigger=trigger)
    return stash(f"{name}{RENDER_SUFFIX}", {"jobset": digest}, options)


async def kept_render(record: pulumi.CustomResource, current: str) -> str:
    """The digest `<name>-jobset-render` kept (`current` for a new one, or under unit-test mocks)."""
    kept = await record.output.future()  # type: ignore[attr-defined]  # an output property the SDK sets
    digest = kept.get("jobset") if isinstance(kept, dict) else None
    return digest if isinstance(digest, str) and digest else current


@dataclass
class RevisionReport:
    """Says once per runtime which TrainJobs keep an older revision of it: every TrainJob announces
    itself while the program runs (`expect`), and reports its kept revision once the engine answered
    (`settle`), which is after the program's own code has run."""

    waiting: Counter[str] = field(default_factory=Counter)
    kept: dict[str, dict[str, list[str]]] = field(default_factory=lambda: defaultdict(lambda: defaultdict(list)))

    def expect(self, current: RuntimeRevision) -> None:
        self.waiting[current.label] += 1

    def settle(self, current: RuntimeRevision, revision: str, trainjob: str, controller: bool,
               runtime: pulumi.Resource | None) -> None:
        """`runtime`: the runtime's component, where the message goes (else the stack's)."""
        if revision != current.revision:
            self.kept[current.label][revision].append(trainjob)
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


@dataclass
class ProgramRevisions:
    """What one program run shares between its TrainJobs: the report, and one stash per runtime revision."""

    report: RevisionReport = field(default_factory=RevisionReport)
    texts: dict[str, pulumi.CustomResource] = field(default_factory=dict)

    def text(self, current: RuntimeRevision, revision: str) -> pulumi.CustomResource:
        """The stash of `revision`'s text, registered once per program. A new one gets the current text:
        only the current revision is new (a missing older one is caught by its digest)."""
        name = current.text_name(revision)
        if name not in self.texts:
            options = pulumi.ResourceOptions(ignore_changes=["input"])
            self.texts[name] = stash(name, canonical_json(current.manifest), options)
        return self.texts[name]


def program_revisions() -> ProgramRevisions:
    """The program's, kept on its root resource (the Stack): it belongs to this program run and to no
    other. Under unit-test mocks there is no root, and each TrainJob has its own."""
    root = pulumi.runtime.get_root_resource()
    found = getattr(root, _PROGRAM, None)
    if found is None:
        found = ProgramRevisions()
        if root is not None:
            setattr(root, _PROGRAM, found)
    return found
