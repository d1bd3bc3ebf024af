"""Our render() against the oracle's answers: normalisation, the deliberate differences, the verdict.

Both sides go through the same normalisation before they are compared: the CRDs' defaults (what the
API server stores; the oracle applies them), Secret data masked (keys are generated), runtime
snapshots in their canonical form (the oracle rewrites them). What remains must be equal, unless a
row of the table in docs/parity.md accepts it; every such row that the test can meet has a rule
here, under the row's id, and the test checks the two lists agree.
"""

from __future__ import annotations

import copy
import json
import re
import warnings
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from pulumi_kubeflow_trainer import render
from pulumi_kubeflow_trainer.framework.errors import TrainerError
from pulumi_kubeflow_trainer.ssh import seeded_key_generator

from .generator import Case
from .oracle import Answer, Oracle, Request

DOCS = Path(__file__).resolve().parents[2] / "docs" / "parity.md"
MASK = "<generated>"
OUTCOMES = ("agree", "both-reject", "differ", "only-ours-reject", "only-upstream-rejects", "upstream-panics")


# ----------------------------------------------------------------------------------------- our side

@dataclass
class Ours:
    objects: list[dict[str, Any]] | None = None  # None: refused
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    crash: str = ""  # an exception that is not a TrainerError: always a failure
    refused: list[str] = field(default_factory=list)  # what stops our render that upstream renders (api-server-refuses)


# render() as upstream's controller renders: the runtime snapshot too, no runtime but those given (it has
# no bundled ones), and what the API server would refuse in the children rendered (api-server-refuses).
AS_THE_CONTROLLER: dict[str, Any] = {"runtime_snapshot": True, "bundled": False, "refuse_undeployable": False}


def run_ours(case: Case) -> Ours:
    """Our render, as upstream's controller renders (the runtime snapshot too). What the API server
    would refuse in the children stops our render; it is then rendered as v2.3.0 admits it, to compare
    the objects, and the refusal kept (`api-server-refuses`)."""
    ours = _render(case, refuse_undeployable=True)
    if ours.objects is None and not ours.crash:
        admitted = _render(case, refuse_undeployable=False)
        if admitted.objects is not None:
            return Ours(objects=admitted.objects, warnings=admitted.warnings, refused=ours.errors)
    return ours


def _render(case: Case, *, refuse_undeployable: bool) -> Ours:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            objects = render(case.yaml, key_generator=seeded_key_generator("parity"),
                             **{**AS_THE_CONTROLLER, "refuse_undeployable": refuse_undeployable})
        except TrainerError as error:
            return Ours(errors=str(error).splitlines() or [type(error).__name__], warnings=[str(w.message) for w in caught])
        except Exception as error:  # noqa: BLE001 - reported, never swallowed
            return Ours(crash=f"{type(error).__name__}: {error}")
    return Ours(objects=[mask_secrets(copy.deepcopy(o)) for o in objects], warnings=[str(w.message) for w in caught])


def mask_secrets(obj: dict[str, Any]) -> dict[str, Any]:
    if obj.get("kind") == "Secret":
        for key in ("data", "stringData"):
            if isinstance(obj.get(key), dict):
                obj[key] = {name: MASK for name in obj[key]}
        if "stringData" in obj:  # the API server stores stringData as data
            obj.setdefault("data", {}).update(obj.pop("stringData"))
    return obj


# ----------------------------------------------------------------------------------------- facts of a case

@dataclass(frozen=True)
class Facts:
    """What the deliberate rules need to know about the input."""

    trainjob: dict[str, Any]
    family: str

    @classmethod
    def of(cls, case: Case) -> Facts:
        try:
            documents = [doc for doc in yaml.safe_load_all(case.yaml) if isinstance(doc, dict)]
        except yaml.YAMLError:
            documents = []
        trainjob = next((doc for doc in documents if doc.get("kind") == "TrainJob"), {})
        return cls(trainjob, case.family)

    @property
    def uid(self) -> str:
        return str((self.trainjob.get("metadata") or {}).get("uid") or "")

    @property
    def labels(self) -> dict[str, str]:
        return dict((self.trainjob.get("metadata") or {}).get("labels") or {})


# ----------------------------------------------------------------------------------------- deliberate differences

Rule = Callable[[Facts, list[dict[str, Any]], list[dict[str, Any]]], bool]


def _owner_uid(facts: Facts, ours: list[dict[str, Any]], upstream: list[dict[str, Any]]) -> bool:
    """Upstream always writes the owner reference, with an empty uid for a TrainJob that has none;
    we write it only when the TrainJob has a uid."""
    if facts.uid:
        return False
    changed = False
    for obj in upstream:
        metadata = obj.get("metadata") or {}
        refs = metadata.get("ownerReferences")
        if refs:
            kept = [ref for ref in refs if ref.get("uid")]
            if len(kept) != len(refs):
                changed = True
                if kept:
                    metadata["ownerReferences"] = kept
                else:
                    del metadata["ownerReferences"]
    return changed


def _api_defaults(facts: Facts, ours: list[dict[str, Any]], upstream: list[dict[str, Any]]) -> bool:
    """The CRDs' defaults are applied to both sides by the oracle; what is left is the TrainJob's own
    `suspend: false`, which upstream copies into the JobSet (a JobSet without suspend is not suspended)."""
    changed = False
    for obj in (*ours, *upstream):
        spec = obj.get("spec")
        if obj.get("kind") == "JobSet" and isinstance(spec, dict) and spec.get("suspend") is False:
            del spec["suspend"]
            changed = True
    return changed


def _flux_scripts(facts: Facts, ours: list[dict[str, Any]], upstream: list[dict[str, Any]]) -> bool:
    changed = False
    for obj in (*ours, *upstream):
        name = (obj.get("metadata") or {}).get("name", "")
        if obj.get("kind") == "ConfigMap" and name.endswith("-flux-entrypoint") and isinstance(obj.get("data"), dict):
            for key in ("init.sh", "entrypoint.sh"):
                if key in obj["data"]:
                    obj["data"][key] = "<script>"
                    changed = True
    return changed


def _kueue_labels(facts: Facts, ours: list[dict[str, Any]], upstream: list[dict[str, Any]]) -> bool:
    """The TrainJob's kueue.x-k8s.io/ labels go on our JobSet: no TrainJob object exists for Kueue."""
    kueue = {k: v for k, v in facts.labels.items() if k.startswith("kueue.x-k8s.io/")}
    if not kueue:
        return False
    changed = False
    for obj in ours:
        labels = (obj.get("metadata") or {}).get("labels")
        if obj.get("kind") == "JobSet" and labels:
            upstream_jobset = next((u for u in upstream if u.get("kind") == "JobSet"), {})
            upstream_labels = (upstream_jobset.get("metadata") or {}).get("labels") or {}
            for key, value in kueue.items():
                if labels.get(key) == value and key not in upstream_labels:
                    del labels[key]
                    changed = True
            if not labels:
                del obj["metadata"]["labels"]
    return changed


def _namespace_default(facts: Facts, ours: list[dict[str, Any]], upstream: list[dict[str, Any]]) -> bool:
    """A TrainJob without a namespace: our children have none either (they go where the TrainJob goes);
    upstream's are in the namespace the TrainJob was created in, `default` when the client names none."""
    if (facts.trainjob.get("metadata") or {}).get("namespace"):
        return False
    changed = False
    for obj in ours:
        metadata = obj.setdefault("metadata", {})
        if not metadata.get("namespace") and obj.get("kind") != "PriorityClass":
            metadata["namespace"] = "default"
            changed = True
    return changed


FRAMEWORK_PORT = 29500


def _port_upsert(facts: Facts, ours: list[dict[str, Any]], upstream: list[dict[str, Any]]) -> bool:
    """Upstream upserts the framework's port by `containerPort or name` with `ptr.Equal(nil, nil)` true:
    it replaces the first port without a name. We add it and keep the runtime's port."""
    changed = False
    for mine, theirs in _containers_side_by_side(ours, upstream):
        ports, their_ports = mine.get("ports") or [], theirs.get("ports") or []
        numbers = {port.get("containerPort") for port in their_ports}
        if FRAMEWORK_PORT not in numbers or len(ports) <= len(their_ports):
            continue
        kept = [port for port in ports if port.get("name") or port.get("containerPort") in numbers]
        if len(kept) == len(their_ports):
            mine["ports"] = kept
            changed = True
    return changed


def _containers_side_by_side(ours: list[dict[str, Any]], upstream: list[dict[str, Any]]) -> Iterable[tuple[dict[str, Any], dict[str, Any]]]:
    def containers(objects: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
        found = {}
        for obj in objects:
            if obj.get("kind") != "JobSet":
                continue
            for job in (obj.get("spec") or {}).get("replicatedJobs") or []:
                pod = (((job.get("template") or {}).get("spec") or {}).get("template") or {}).get("spec") or {}
                for container in pod.get("containers") or []:
                    found[(job.get("name"), container.get("name"))] = container
        return found

    theirs = containers(upstream)
    for key, container in containers(ours).items():
        if key in theirs:
            yield container, theirs[key]


def _go_encoding(facts: Facts, ours: list[dict[str, Any]], upstream: list[dict[str, Any]]) -> bool:
    """Upstream's objects pass through Go structs: `omitempty` drops an empty string, list or map, a
    zero or false (ours keeps what the input said), and empty structs are written (`resources: {}`).
    The oracle puts both sides through Go types; the live differential compares what the API server
    stored, so there a field that is empty on one side and absent on the other is not compared."""
    theirs = {(obj.get("kind"), (obj.get("metadata") or {}).get("name")): obj for obj in upstream}
    changed = False
    for obj in ours:
        other = theirs.get((obj.get("kind"), (obj.get("metadata") or {}).get("name")))
        if other is not None:
            changed = _drop_one_sided_empties(obj, other) or changed
    return changed


def _drop_one_sided_empties(mine: Any, theirs: Any) -> bool:
    if isinstance(mine, dict) and isinstance(theirs, dict):
        changed = False
        for side, other in ((mine, theirs), (theirs, mine)):
            for key in [k for k, v in side.items() if k not in other and v in ("", [], {}, 0, False) and v is not None]:
                del side[key]
                changed = True
        return any([_drop_one_sided_empties(mine[key], theirs[key]) for key in mine if key in theirs]) or changed
    if isinstance(mine, list) and isinstance(theirs, list) and len(mine) == len(theirs):
        return any([_drop_one_sided_empties(a, b) for a, b in zip(mine, theirs, strict=True)])
    return False


@dataclass(frozen=True)
class Deliberate:
    id: str
    rule: Rule | None  # None: decided on the verdict (variants, panics), not by rewriting objects


DELIBERATE: dict[str, Deliberate] = {d.id: d for d in (
    Deliberate("owner-uid", _owner_uid),
    Deliberate("api-defaults", _api_defaults),
    Deliberate("flux-scripts", _flux_scripts),
    Deliberate("kueue-labels", _kueue_labels),
    Deliberate("namespace-default", _namespace_default),
    Deliberate("port-upsert", _port_upsert),
    Deliberate("pod-template-fields", None),
    Deliberate("go-encoding", _go_encoding),
    Deliberate("generated-keys", None),
    Deliberate("snapshot-form", None),
    Deliberate("plugin-order", None),
    Deliberate("flux-no-numnodes", None),
    Deliberate("api-server-refuses", None),
)}


def apply_deliberate(facts: Facts, ours: list[dict[str, Any]], upstream: list[dict[str, Any]]) -> list[str]:
    """Rewrite both sides by every rule of DELIBERATE that applies; the ids of those that changed
    something. The one list of deliberate differences: the offline parity test (judge) and the live
    differential against the controller (tests/cluster/live_compare.py) both use it."""
    return [d.id for d in DELIBERATE.values() if d.rule is not None and d.rule(facts, ours, upstream)]


def table_ids(docs: Path = DOCS) -> dict[str, str]:
    """The ids of the deliberate-differences table in docs/parity.md, with their 'test' column."""
    ids: dict[str, str] = {}
    in_table = False
    for line in docs.read_text().splitlines():
        if line.startswith("| id |"):
            in_table = True
            continue
        if in_table and not line.startswith("|"):
            break
        match = re.match(r"\|\s*`([a-z0-9-]+)`\s*\|(.*)\|\s*([^|]*?)\s*\|\s*$", line)
        if in_table and match:
            ids[match.group(1)] = match.group(3)
    return ids


# ----------------------------------------------------------------------------------------- the verdict

@dataclass
class Verdict:
    case: Case
    outcome: str
    accepted_by: list[str] = field(default_factory=list)  # deliberate rows that made it agree
    detail: str = ""
    ours: Ours | None = None
    upstream: list[dict[str, Any]] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return self.outcome not in ("agree", "both-reject") and not (self.outcome != "differ" and self.accepted_by)


def canonical(objects: Iterable[dict[str, Any]]) -> str:
    def key(obj: dict[str, Any]) -> tuple[str, str]:
        return (str(obj.get("kind")), str((obj.get("metadata") or {}).get("name")))

    return json.dumps(sorted(objects, key=key), sort_keys=True, indent=1)


def judge(case: Case, ours: Ours, answer: Answer) -> Verdict:
    facts = Facts.of(case)
    variants = answer.variants
    if ours.crash:
        return Verdict(case, "differ", detail=f"render() crashed: {ours.crash}", ours=ours, upstream=variants)
    panics = [v for v in variants if v.get("panic")]
    produced = [v for v in variants if not v.get("panic") and not v.get("errors")]
    flux_refusal = any("the Flux runtime needs spec.trainer.numNodes" in error for error in ours.errors)
    if panics and not produced:
        # Upstream's Flux plugin dereferences spec.trainer.numNodes unchecked; we refuse such TrainJobs.
        accepted = ["flux-no-numnodes"] if "plugins/flux/flux.go" in panics[0]["panic"] and flux_refusal else []
        return Verdict(case, "upstream-panics", accepted, detail=panics[0]["panic"], ours=ours, upstream=variants)
    if ours.objects is None:
        if not produced:
            return Verdict(case, "both-reject", ours=ours, upstream=variants)
        if flux_refusal and all(not v["objects"] for v in produced):  # upstream leaves it alone (MultiKueue)
            return Verdict(case, "only-ours-reject", ["flux-no-numnodes"], detail="\n".join(ours.errors), ours=ours, upstream=variants)
        return Verdict(case, "only-ours-reject", detail="\n".join(ours.errors), ours=ours, upstream=variants)
    if not produced:
        refused = variants[0]
        errors = refused.get("errors") or []
        # We do not carry Kubernetes' PodSpec schema: an unknown field inside a runtime's pod template
        # passes here; the API server's strict field validation refuses it (docs/parity.md).
        accepted = ["pod-template-fields"] if errors and all(
            'unknown field "spec.template.spec.replicatedJobs[' in error and ".template.spec.template.spec." in error for error in errors
        ) else []
        return Verdict(case, "only-upstream-rejects", accepted, detail="\n".join(errors), ours=ours, upstream=variants)
    best: tuple[int, str, list[str]] | None = None
    for variant in produced:
        mine, theirs = copy.deepcopy(answer.normalized), copy.deepcopy(variant["objects"])
        used = apply_deliberate(facts, mine, theirs)
        for obj in (*mine, *theirs):  # the snapshot's runtime compared as data, not as text
            data = obj.get("data")
            if obj.get("kind") == "ConfigMap" and isinstance(data, dict) and isinstance(data.get("runtime"), str):
                data["runtime"] = yaml.safe_load(data["runtime"])
        left, right = canonical(mine), canonical(theirs)
        if left == right:
            if len(produced) > 1 or len(variants) > 1:
                used.append("plugin-order")
            if ours.refused:
                used.append("api-server-refuses")
            return Verdict(case, "agree", sorted(set(used)), ours=ours, upstream=variants)
        diff = first_differences(json.loads(left), json.loads(right))
        if best is None or len(diff) < best[0]:
            best = (len(diff), "\n".join(diff[:12]), used)
    assert best is not None
    return Verdict(case, "differ", detail=best[1], ours=ours, upstream=variants)


def first_differences(ours: Any, upstream: Any, path: str = "") -> list[str]:
    """Where two JSON values differ, as `path: ours != upstream` lines."""
    if isinstance(ours, dict) and isinstance(upstream, dict):
        out = []
        for key in sorted(set(ours) | set(upstream)):
            if key not in ours:
                out.append(f"{path}.{key}: missing in ours, upstream {short(upstream[key])}")
            elif key not in upstream:
                out.append(f"{path}.{key}: ours {short(ours[key])}, missing upstream")
            else:
                out += first_differences(ours[key], upstream[key], f"{path}.{key}")
        return out
    if isinstance(ours, list) and isinstance(upstream, list):
        if len(ours) != len(upstream):
            return [f"{path}: {len(ours)} items in ours, {len(upstream)} upstream: ours {short(ours)}, upstream {short(upstream)}"]
        out = []
        for index, (a, b) in enumerate(zip(ours, upstream, strict=True)):  # lengths checked above
            label = (a.get("kind") or a.get("name")) if isinstance(a, dict) else None
            out += first_differences(a, b, f"{path}[{label or index}]")
        return out
    return [] if ours == upstream else [f"{path}: ours {short(ours)}, upstream {short(upstream)}"]


def short(value: Any) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 160 else text[:157] + "..."


# ----------------------------------------------------------------------------------------- a run

@dataclass
class Run:
    verdicts: list[Verdict]

    @property
    def counts(self) -> Counter[str]:
        return Counter(v.outcome for v in self.verdicts)

    @property
    def failures(self) -> list[Verdict]:
        return [v for v in self.verdicts if v.failed]

    @property
    def deliberate_used(self) -> Counter[str]:
        return Counter(rule for v in self.verdicts for rule in v.accepted_by)

    def summary(self) -> str:
        counts = self.counts
        figures = ", ".join(f"{counts.get(name, 0)} {name}" for name in OUTCOMES)
        used = ", ".join(f"{rule} {n}" for rule, n in sorted(self.deliberate_used.items())) or "none"
        return f"{len(self.verdicts)} cases: {figures}; deliberate differences used: {used}"


def run_cases(cases: list[Case], oracle: Oracle, *, runs: int = 2, rerun_runs: int = 24) -> Run:
    ours = {case.id: run_ours(case) for case in cases}
    requests = [Request(case.id, case.yaml, runs=runs, normalize=tuple(ours[case.id].objects or [])) for case in cases]
    answers = oracle.batch(requests)
    verdicts = {case.id: judge(case, ours[case.id], answers[case.id]) for case in cases}
    # Upstream orders its plugins by Go map iteration: a difference may be a variant not yet seen.
    again = [r for r in requests if verdicts[r.id].outcome == "differ"]
    if again:
        more = oracle.batch([Request(r.id, r.yaml, runs=rerun_runs, normalize=r.normalize) for r in again])
        by_id = {case.id: case for case in cases}
        for request in again:
            verdicts[request.id] = judge(by_id[request.id], ours[request.id], more[request.id])
    return Run([verdicts[case.id] for case in cases])


def report(run: Run, limit: int = 25) -> str:
    lines = [run.summary()]
    by_cause: dict[str, list[Verdict]] = {}
    for verdict in run.failures:
        cause = verdict.detail.splitlines()[0] if verdict.detail else verdict.outcome
        cause = re.sub(r"\d+", "N", cause)[:200]
        by_cause.setdefault(f"{verdict.outcome}: {cause}", []).append(verdict)
    for cause, verdicts in sorted(by_cause.items(), key=lambda item: -len(item[1]))[:limit]:
        example = verdicts[0]
        lines.append(f"- {len(verdicts)} x {cause}\n  e.g. case {example.case.id} {list(example.case.features)}\n  "
                     + example.detail.replace("\n", "\n  ")[:1500])
    return "\n".join(lines)
