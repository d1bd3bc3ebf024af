"""The live differential over a seeded sample of generated TrainJobs (issue 14 part 4): the offline
parity test's generator (tests/parity/generator.py) gives TrainJobs and their runtimes; those that
both render() and the oracle accept alike, and that the live API server accepts (CRD validation and
the Trainer webhooks, by a server-side dry run), are deployed in controller mode in one Pulumi
program against the real Trainer controller v2.3.0. Each JobSet, PodGroup, MPI Secret and ConfigMap
the controller created must equal render()'s, field by field both ways, with the offline test's
deliberate differences (live_compare.py); the components' own drift check must find none either.

KFT_LIVE_SEED (default `live-1`) and KFT_LIVE_CASES (default 16, the number deployed) choose them.
Every case gets a namespace of its own, `sample-<index>` (its TrainJob keeps the generated name);
ClusterTrainingRuntimes, cluster-scoped, get a unique name. Left out before the oracle runs: cases
with kueue.x-k8s.io labels (Kueue, not the controller, would decide when they start) and MultiKueue
ones (the controller creates nothing), then cases render() gives no objects for."""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
import pytest
import yaml

from pulumi_kubeflow_trainer import ClusterTrainingRuntime, TrainingRuntime, TrainJob, render
from tests.parity.compare import AS_THE_CONTROLLER, run_cases
from tests.parity.generator import Case, dump, generate_case
from tests.parity.oracle import Oracle, find_oracle
from tests.parity.test_differential import crd_dirs
from tests.toolchain import inline_stack

from .conftest import Cluster, _missing
from .live_compare import DRY_RUN_NAMESPACE, compare_trainjob, through_the_api_server

pytestmark = pytest.mark.cluster
SEED = os.environ.get("KFT_LIVE_SEED", "live-1")
SAMPLE = int(os.environ.get("KFT_LIVE_CASES", "16"))
POOL_FACTOR = 6  # candidates generated per case deployed: about one in three passes every filter
LEFT_OUT_FEATURES = ("kueue-labels", "managed-by")
RUNTIME_KINDS = ("TrainingRuntime", "ClusterTrainingRuntime")
# A TrainJob past its activeDeadlineSeconds Fails and the controller deletes its JobSet: the
# generator's 60 s would pass before the comparison, so such a TrainJob gets an hour.
SHORT_DEADLINE, LONG_DEADLINE = 60, 3600


def unique_runtime_name(name: str, index: int) -> str:
    """A ClusterTrainingRuntime's name made unique; a TorchTune one keeps its three dash-separated
    parts (upstream reads the model from them), `torchtune-llama3.2-1b` -> `torchtune-llama3.2s7-1b`."""
    parts = name.split("-")
    if len(parts) == 3 and parts[0] == "torchtune":
        return f"{parts[0]}-{parts[1]}s{index}-{parts[2]}"
    return f"{name}-s{index}"


def live_case(case: Case) -> Case | None:
    """The case as deployed: in namespace sample-<index>, without the TrainJob's uid (the API server
    gives one), its ClusterTrainingRuntime renamed, a deadline of an hour; None for a case left out
    (module docstring)."""
    if any(feature in case.features for feature in LEFT_OUT_FEATURES):
        return None
    documents = [doc for doc in yaml.safe_load_all(case.yaml) if isinstance(doc, dict)]
    namespace = f"sample-{case.index}"
    renamed: dict[str, str] = {}
    for doc in documents:
        metadata = doc.setdefault("metadata", {})
        if doc.get("kind") == "ClusterTrainingRuntime":
            renamed[metadata["name"]] = metadata["name"] = unique_runtime_name(metadata["name"], case.index)
        elif doc.get("kind") != "PriorityClass":
            metadata["namespace"] = namespace
    for doc in documents:
        if doc.get("kind") == "TrainJob":
            doc["metadata"].pop("uid", None)
            if (doc.get("spec") or {}).get("activeDeadlineSeconds") == SHORT_DEADLINE:
                doc["spec"]["activeDeadlineSeconds"] = LONG_DEADLINE
            ref = (doc.get("spec") or {}).get("runtimeRef") or {}
            if ref.get("kind", "ClusterTrainingRuntime") == "ClusterTrainingRuntime" and ref.get("name") in renamed:
                ref["name"] = renamed[ref["name"]]
    return Case(case.index, case.family, dump(documents), case.features)


def documents_of(case: Case) -> dict[str, list[dict[str, Any]]]:
    """The case's documents by role: trainjob, runtime (one each) and extras (Secrets, PriorityClasses)."""
    documents = [doc for doc in yaml.safe_load_all(case.yaml) if isinstance(doc, dict)]
    return {"trainjob": [d for d in documents if d.get("kind") == "TrainJob"],
            "runtime": [d for d in documents if d.get("kind") in RUNTIME_KINDS],
            "extras": [d for d in documents if d.get("kind") not in ("TrainJob", *RUNTIME_KINDS)]}


def agreed_cases(count: int) -> tuple[list[Case], Counter[str]]:
    """Generated cases (transformed by live_case) that render() and the oracle answer alike with objects."""
    binary = find_oracle()
    if binary is None:
        _missing("no parity oracle: run tools/build-oracle (or set PULUMI_KFT_ORACLE)")
    candidates = [c for c in (live_case(generate_case(SEED, i)) for i in range(count * POOL_FACTOR)) if c is not None]
    run = run_cases(candidates, Oracle(binary, crd_dirs()))  # type: ignore[arg-type]  # _missing never returns
    outcomes = run.counts
    # A case render() refuses (what the API server would refuse in its children: api-server-refuses) is one
    # the components refuse too, and whose Pods the API server refuses: not deployable, so left out.
    agreed = [v.case for v in run.verdicts if v.outcome == "agree" and v.ours is not None and v.ours.objects and not v.ours.refused]
    outcomes["left out before the oracle"] = count * POOL_FACTOR - len(candidates)
    return agreed, outcomes


def apply(cluster: Cluster, items: list[dict[str, Any]], *args: str) -> Any:
    return cluster.kubectl("apply", "--server-side", *args, "-f", "-", check=False,
                           stdin=json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))


def accepted_by_the_api_server(cluster: Cluster, cases: list[Case]) -> tuple[list[Case], dict[str, str]]:
    """The cases whose runtime, TrainJob and rendered children the API server accepts: the runtimes
    created for real (the TrainJob webhook reads them), the TrainJob and render()'s objects created
    with a server dry run (the JobSet CRD and webhook refuse what upstream renders alike: a runtime
    patch of a replicated job the runtime lacks, a first replicated job with dependsOn), the
    runtimes deleted again."""
    accepted, refused = [], {}
    cluster.kubectl("create", "namespace", DRY_RUN_NAMESPACE, check=False)
    for case in cases:
        docs = documents_of(case)
        cluster.kubectl("create", "namespace", f"sample-{case.index}", check=False)
        apply(cluster, docs["extras"])
        result = apply(cluster, docs["runtime"])
        if result.returncode == 0:
            result = cluster.kubectl("create", "--dry-run=server", "-f", "-", check=False,
                                     stdin=json.dumps(docs["trainjob"][0]))
        reason = result.stderr.strip()[:300] if result.returncode != 0 else children_refused(cluster, case)
        if reason:
            refused[case.id] = reason
        else:
            accepted.append(case)
        cluster.kubectl("delete", "--wait=true", "-f", "-", check=False, stdin=json.dumps(
            {"apiVersion": "v1", "kind": "List", "items": docs["runtime"]}))
    return accepted, refused


def children_refused(cluster: Cluster, case: Case) -> str:
    """Why the API server refuses one of render()'s objects for the case (a dry run), or ""."""
    for obj in render(case.yaml, **AS_THE_CONTROLLER):
        try:
            through_the_api_server(cluster, obj)
        except AssertionError as error:
            return f"render()'s {obj['kind']}: {str(error)[-300:]}"
    return ""


def sample_program(cases: list[Case], kubeconfig: Path) -> Any:
    def program() -> None:
        opts = pulumi.ResourceOptions(provider=k8s.Provider("cluster", kubeconfig=str(kubeconfig)))
        for case in cases:
            docs = documents_of(case)
            runtime_doc = docs["runtime"][0]
            component = ClusterTrainingRuntime if runtime_doc["kind"] == "ClusterTrainingRuntime" else TrainingRuntime
            runtime = component(f"rt-{case.index}", runtime_doc, controller="kubeflow", opts=opts)
            job = TrainJob(f"s{case.index}", docs["trainjob"][0], runtime=runtime, controller="kubeflow", opts=opts)
            pulumi.export(case.id, {"drift": job.drift, "expected": job.expected_children})

    return program


@pytest.fixture
def sample(controller_cluster: Cluster) -> Iterator[tuple[list[Case], dict[str, Any]]]:
    """The cases to deploy (SAMPLE of them) and the figures of how they were chosen; their namespaces
    are deleted afterwards."""
    started = time.monotonic()
    agreed, outcomes = agreed_cases(SAMPLE)
    accepted, refused = accepted_by_the_api_server(controller_cluster, agreed[: SAMPLE + SAMPLE // 2])
    figures = {"generated": SAMPLE * POOL_FACTOR, "oracle": dict(outcomes), "agreed": len(agreed),
               "refused by the API server": refused, "seconds": round(time.monotonic() - started)}
    try:
        yield accepted[:SAMPLE], figures
    finally:
        for case in agreed[: SAMPLE + SAMPLE // 2]:
            controller_cluster.kubectl("delete", "namespace", f"sample-{case.index}", "--wait=false", check=False)


def test_the_controller_creates_what_render_predicts_for_a_seeded_sample(
        sample: tuple[list[Case], dict[str, Any]], stack_env: dict[str, str],
        engine_bin: Path, controller_cluster: Cluster, tmp_path: Path):
    cases, figures = sample
    cluster, log = controller_cluster, (tmp_path / "pulumi.log").open("w")
    print(f"\nlive sample, seed {SEED!r}: {json.dumps(figures)}")
    assert len(cases) == SAMPLE, f"only {len(cases)} of {SAMPLE} cases to deploy: {figures}"
    cluster.kubectl("create", "namespace", DRY_RUN_NAMESPACE, check=False)
    stack = inline_stack("sample", "controller-sample", sample_program(cases, cluster.kubeconfig), stack_env, engine_bin)
    started = time.monotonic()
    try:
        stack.up(on_output=log.write, color="never")
        deployed = time.monotonic() - started
        out = {key: value.value for key, value in stack.outputs().items()}
        found: dict[str, list[str]] = {}
        used: Counter[str] = Counter()
        for case in cases:
            lines, rows = compare_trainjob(cluster, case, render_with_live_uid(cluster, case), 30.0)
            used.update(rows)
            drift = unexplained_drift(out[case.id]["drift"], rows)
            if drift:
                found[f"{case.id} drift"] = drift
            found.update({f"{case.id} {key}": value for key, value in lines.items()})
        print(f"deployed {len(cases)} TrainJobs in {deployed:.0f} s, compared in {time.monotonic() - started - deployed:.0f} s; "
              f"deliberate rows used: {dict(used)}; families: {dict(Counter(c.family for c in cases))}")
        assert found == {}, "\n".join(f"{where}: {line}" for where, lines in found.items() for line in lines)
    finally:
        stack.destroy(on_output=log.write, color="never")
        stack.workspace.remove_stack(stack.name)
    left = cluster.kubectl("get", "clustertrainingruntimes.trainer.kubeflow.org", "-o", "name").stdout.split()
    assert left == [], f"destroy left ClusterTrainingRuntimes: {left}"


def unexplained_drift(drift: list[str], rows: list[str]) -> list[str]:
    """The drift check reports what upstream's `port-upsert` bug drops (a user's port) and the env
    order of upstream's `plugin-order` bug: deliberate differences when the comparison used that row
    for the case; any other drift is not."""
    return [line for line in drift if not ("port-upsert" in rows and ".ports: expected" in line)
            and not ("plugin-order" in rows and ".env: expected the order" in line)]


def render_with_live_uid(cluster: Cluster, case: Case) -> list[dict[str, Any]]:
    """render() of the case with the live TrainJob's uid, as the controller had it."""
    docs = documents_of(case)
    trainjob = docs["trainjob"][0]
    live = cluster.get("trainjobs.trainer.kubeflow.org", trainjob["metadata"]["name"], trainjob["metadata"]["namespace"])
    assert live is not None, f"{case.id}: the TrainJob Pulumi registered"
    with_uid = {**trainjob, "metadata": {**trainjob["metadata"], "uid": live["metadata"]["uid"]}}
    return render(dump([with_uid, *docs["runtime"], *docs["extras"]]), **AS_THE_CONTROLLER)
