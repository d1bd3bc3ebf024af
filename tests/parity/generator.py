"""Seeded inputs for the differential test: a TrainJob, its runtime and the objects rules look up, as
the multi-document YAML both `trainjob render` and the oracle read.

Every plugin is covered (torch with and without numProcPerNode, envInjection, TorchTune; MPI with and
without runLauncherAsNode; JAX, XGBoost, Flux, plain), with coscheduling, Volcano, initializers,
runtime patches on every patchable field, suspend, managedBy, owner uids, Kueue labels and quantities
in every form YAML can spell them; about one case in five is mutated into something upstream may
refuse. The same (seed, index) always gives the same case.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Any

import yaml

V1 = "trainer.kubeflow.org/v1alpha1"
ANCESTOR = "trainer.kubeflow.org/trainjob-ancestor-step"
FAMILIES = ("torch", "torch-auto", "torchtune", "mpi", "jax", "xgboost", "flux", "plain")
TORCHTUNE_RUNTIMES = ("torchtune-llama3.2-1b", "torchtune-llama3.2-3b", "torchtune-qwen2.5-1.5b",
                      "torchtune-llama3.3-70b", "torchtune-gemma-7b")


@dataclass(frozen=True)
class Case:
    index: int
    family: str
    yaml: str
    features: tuple[str, ...]

    @property
    def id(self) -> str:
        return f"{self.index}-{self.family}"


class Raw(str):
    """A scalar written as is, unquoted (`cpu: 1e3`), whatever YAML resolves it to."""


# ----------------------------------------------------------------------------------------- values

# Raw forms are what go-yaml reads differently from PyYAML: `2e0` and `0x2` are numbers, `09` a decimal.
CPU_FORMS: tuple[Any, ...] = (1, 2, 4, "1", "2", "500m", "1500m", "0.5", "1.5", "2.0", "+2", ".5", "1e3m",
                              "2000m", "0", 2.0, Raw("2.0"), "3", 8, "1e0", "+1e3m", Raw("2e0"), Raw("0x2"), Raw("04"))
FRACTION_FORMS: tuple[Any, ...] = (1.5, 0.5, Raw("1.5"))  # numbers the CRD refuses (int-or-string): now and then
MEMORY_FORMS: tuple[Any, ...] = ("1Gi", "512Mi", "2G", "1e9", "1.5Gi", "1024Ki", "1E3", 1073741824, "0.5Gi",
                                 "100M", "1Ti", "3Gi", 1.5e9, "123456789", "0100Mi", "1.5E9", Raw("1e9"), Raw("1.5E9"), Raw("09"))
GPU_FORMS: tuple[Any, ...] = (1, 2, 4, 8, "1", "2", 0, "0", "1.5", "500m", 1.0, Raw("2"), 3)
GPU_NAMES = ("nvidia.com/gpu", "nvidia.com/gpu", "amd.com/gpu", "example.com/GPU")


def resources(rng: random.Random, *, gpu: bool | None = None, empty: bool = True) -> dict[str, Any]:
    """A ResourceRequirements in any of its forms (requests, limits, both, empty maps)."""
    out: dict[str, Any] = {}
    for side in ("requests", "limits"):
        if rng.random() < 0.45:
            continue
        values: dict[str, Any] = {}
        if rng.random() < 0.7:
            values["cpu"] = rng.choice(FRACTION_FORMS) if rng.random() < 0.03 else rng.choice(CPU_FORMS)
        if rng.random() < 0.5:
            values["memory"] = rng.choice(MEMORY_FORMS)
        if gpu or (gpu is None and rng.random() < 0.4):
            values[rng.choice(GPU_NAMES)] = rng.choice(GPU_FORMS)
        if values or (empty and rng.random() < 0.3):
            out[side] = values
    if gpu and "limits" not in out and "requests" not in out:
        out["limits"] = {"nvidia.com/gpu": rng.choice(GPU_FORMS)}
    return out


def env_list(rng: random.Random, prefix: str = "USER", reserved: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    names = [f"{prefix}_{i}" for i in range(rng.randint(1, 3))]
    if reserved and rng.random() < 0.3:
        names.append(rng.choice(reserved))
    out: list[dict[str, Any]] = []
    for name in names:
        if rng.random() < 0.2:
            out.append({"name": name, "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}})
        else:
            out.append({"name": name, "value": rng.choice(["1", "x", "a b", "$(HOME)", "", "true"])})
    return out


# ----------------------------------------------------------------------------------------- runtimes

def container(name: str, rng: random.Random, *, image: bool = True, gpu: bool | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"name": name}
    if image:
        out["image"] = rng.choice(["registry.example/train:1", "pytorch/pytorch:2.13", "ghcr.io/x/y@sha256:" + "a" * 64])
    if rng.random() < 0.4:
        out["command"] = rng.choice([["python", "train.py"], ["bash", "-c", "echo hi"], ["torchrun", "t.py"]])
    if rng.random() < 0.3:
        out["args"] = rng.choice([["--epochs", "2"], ["-x"], []])
    if rng.random() < 0.3:
        out["env"] = env_list(rng, "RT")
    if rng.random() < 0.6 or gpu:
        res = resources(rng, gpu=gpu)
        if res or rng.random() < 0.2:
            out["resources"] = res
    if rng.random() < 0.15:
        out["ports"] = [{"containerPort": rng.choice([8080, 2222, 29500])}]
    if rng.random() < 0.15:
        out["volumeMounts"] = [{"name": "data", "mountPath": "/data"}]
    return out


def replicated_job(name: str, containers: list[dict[str, Any]], *, ancestor: str | None = None,
                   rng: random.Random, init_containers: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    pod_spec: dict[str, Any] = {"containers": containers}
    if init_containers:
        pod_spec["initContainers"] = init_containers
    if any(mount.get("name") == "data" for c in containers for mount in c.get("volumeMounts", [])):
        pod_spec["volumes"] = [{"name": "data", "emptyDir": {}}]
    if rng.random() < 0.15:
        pod_spec["restartPolicy"] = rng.choice(["OnFailure", "Never"])
    if rng.random() < 0.1:
        pod_spec["nodeSelector"] = {"pool": "gpu"}
    template: dict[str, Any] = {"spec": {"template": {"spec": pod_spec}}}
    if ancestor:
        template["metadata"] = {"labels": {ANCESTOR: ancestor}}
    elif rng.random() < 0.1:
        template["metadata"] = {"labels": {"team": "a"}}
    if rng.random() < 0.1:
        template["spec"]["template"]["metadata"] = {"annotations": {"note": "x"}}
    if rng.random() < 0.1:
        template["spec"]["backoffLimit"] = rng.choice([0, 3])
    job: dict[str, Any] = {"name": name, "template": template}
    if rng.random() < 0.1:
        job["replicas"] = 1
    return job


def initializer_jobs(rng: random.Random, which: tuple[str, ...]) -> list[dict[str, Any]]:
    jobs = []
    for kind in which:
        c = {"name": kind, "image": f"ghcr.io/kubeflow/trainer/{kind}"}
        if rng.random() < 0.85:
            c["volumeMounts"] = [{"name": "initializer", "mountPath": "/workspace"}]
        if rng.random() < 0.4:
            c["env"] = [{"name": "STORAGE_URI", "value": f"hf://org/{kind}"}]
        jobs.append(replicated_job(kind, [c], ancestor=kind, rng=rng))
        if rng.random() < 0.05:
            jobs[-1]["template"]["metadata"]["labels"][ANCESTOR] = kind  # unchanged; keeps rng stream stable
    return jobs


def runtime_doc(rng: random.Random, name: str, ml_policy: dict[str, Any] | None, jobs: list[dict[str, Any]],
                *, namespaced: bool, namespace: str) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if ml_policy is not None:
        spec["mlPolicy"] = ml_policy
    jobset_spec: dict[str, Any] = {"replicatedJobs": jobs}
    if rng.random() < 0.15:
        jobset_spec["network"] = rng.choice([{"publishNotReadyAddresses": True}, {"subdomain": "sub"},
                                             {"enableDNSHostnames": True}])
    if rng.random() < 0.1:
        jobset_spec["successPolicy"] = {"operator": "All", "targetReplicatedJobs": [jobs[-1]["name"]]}
    if rng.random() < 0.1:
        jobset_spec["failurePolicy"] = {"maxRestarts": rng.choice([0, 2])}
    if rng.random() < 0.08:
        jobset_spec["ttlSecondsAfterFinished"] = 600
    template: dict[str, Any] = {"spec": jobset_spec}
    if rng.random() < 0.2:
        template["metadata"] = {"labels": {"rt-label": "1"}, "annotations": {"rt-note": "a"}}
    spec["template"] = template
    metadata: dict[str, Any] = {"name": name}
    if namespaced:
        metadata["namespace"] = namespace
    if rng.random() < 0.3:
        metadata["labels"] = {"trainer.kubeflow.org/framework": "x"}
    if rng.random() < 0.05:
        metadata.setdefault("labels", {})["trainer.kubeflow.org/support"] = "deprecated"
    return {"apiVersion": V1, "kind": "TrainingRuntime" if namespaced else "ClusterTrainingRuntime",
            "metadata": metadata, "spec": spec}


def maybe(rng: random.Random, p: float, value: Any) -> Any:
    return value if rng.random() < p else None


def num_nodes(rng: random.Random) -> int | None:
    return rng.choice([None, None, 1, 1, 2, 3, 4])


# ----------------------------------------------------------------------------------------- families

def family_runtime(family: str, rng: random.Random, features: list[str]) -> tuple[str, dict[str, Any] | None, list[dict[str, Any]]]:
    """(runtime name, mlPolicy, replicated jobs) of one family."""
    with_init = rng.random() < 0.25
    init = initializer_jobs(rng, tuple(k for k in ("dataset-initializer", "model-initializer") if rng.random() < 0.7)) if with_init else []
    if init:
        features.append("initializer-jobs")
    image = rng.random() > 0.08
    if not image:
        features.append("no-image")
    nodes = maybe(rng, 0.8, num_nodes(rng))
    if family in ("torch", "torch-auto"):
        policy: dict[str, Any] = {"torch": {}}
        containers = [container("node", rng, image=image, gpu=(family == "torch-auto" and rng.random() < 0.5) or None)]
        if rng.random() < 0.2:
            containers.append(container("sidecar", rng))
            policy["torch"] = {"envInjection": {"targets": [{"jobName": "node", "containerNames": ["sidecar"]}]}}
            features.append("env-injection")
        jobs = [*init, replicated_job("node", containers, ancestor="trainer", rng=rng)]
        if rng.random() < 0.1:
            jobs.append(replicated_job("aux", [container("aux", rng)], rng=rng))
        if nodes is not None:
            policy["numNodes"] = nodes
        return rng.choice(["torch-distributed", "torch-rt"]), policy, jobs
    if family == "torchtune":
        name = rng.choice(TORCHTUNE_RUNTIMES)
        policy = {"torch": {}, "numNodes": rng.choice([1, 1, 1, 2])} if rng.random() < 0.9 else {"torch": {}}
        node = container("node", rng, image=image, gpu=True)
        node["command"] = ["tune", "run", "--rdzv_endpoint=localhost:29500", "full_finetune_distributed", "--config",
                           "llama3_2/1B_full", "output_dir=/workspace/output", "tokenizer.path=/workspace/model/tok",
                           "checkpointer.checkpoint_dir=/workspace/model"][: rng.choice([2, 6, 7, 9])]
        init = initializer_jobs(rng, ("dataset-initializer", "model-initializer")) if rng.random() < 0.8 else init
        return name, policy, [*init, replicated_job("node", [node], ancestor="trainer", rng=rng)]
    if family == "mpi":
        mpi: dict[str, Any] = {}
        if rng.random() < 0.7:
            mpi["numProcPerNode"] = rng.choice([1, 2, 4])
        if rng.random() < 0.5:
            mpi["mpiImplementation"] = "OpenMPI"
        if rng.random() < 0.4:
            mpi["sshAuthMountPath"] = rng.choice(["/root/.ssh", "/home/mpiuser/.ssh"])
        as_node = rng.random() < 0.5
        if as_node or rng.random() < 0.3:
            mpi["runLauncherAsNode"] = as_node
        if as_node:
            features.append("launcher-as-node")
        gpu_on = rng.choice(["node", "launcher", "both", "none"])
        features.append(f"mpi-gpu-{gpu_on}")
        launcher_c = container("node", rng, image=image, gpu=gpu_on in ("launcher", "both") or None)
        worker_c = container("node", rng, image=image, gpu=gpu_on in ("node", "both") or None)
        if gpu_on == "launcher":
            worker_c.pop("resources", None)
        if gpu_on == "node":
            launcher_c.pop("resources", None)
        label_node = rng.random() < 0.2  # the worker job labelled trainer instead of the launcher
        launcher = replicated_job("launcher", [launcher_c], ancestor=None if label_node else "trainer", rng=rng)
        worker = replicated_job("node", [worker_c], ancestor="trainer" if label_node else None, rng=rng)
        if rng.random() < 0.5:
            launcher["dependsOn"] = [{"name": "node", "status": "Ready"}]
        jobs = [*init, launcher, worker] if rng.random() < 0.7 else [*init, worker, launcher]
        policy = {"mpi": mpi}
        if nodes is not None:
            policy["numNodes"] = nodes
        return rng.choice(["mpi-distributed", "deepspeed-rt"]), policy, jobs
    if family in ("jax", "xgboost", "flux"):
        policy = {family: {}}
        if family == "flux" and rng.random() < 0.5:
            policy["flux"] = {"numProcPerNode": rng.choice([1, 2])}
        if nodes is not None:
            policy["numNodes"] = nodes
        jobs = [*init, replicated_job("node", [container("node", rng, image=image)], ancestor="trainer", rng=rng)]
        return f"{family}-distributed", policy, jobs
    policy = {"numNodes": nodes} if nodes is not None and rng.random() < 0.5 else None
    return "plain", policy, [*init, replicated_job("node", [container("node", rng, image=image)], ancestor="trainer", rng=rng)]


RESERVED_ENV = {
    "torch": ("PET_NNODES", "PET_MASTER_ADDR"), "torch-auto": ("PET_NPROC_PER_NODE",), "torchtune": ("PET_NODE_RANK",),
    "mpi": ("OMPI_MCA_orte_keep_fqdn_hostnames", "OMPI_MCA_orte_default_hostfile"), "xgboost": ("DMLC_TRACKER_URI", "DMLC_NUM_WORKER"),
    "jax": ("JAX_NUM_PROCESSES",), "flux": (), "plain": (),
}

TORCHTUNE_ARGS = ("model.lora_attn_modules=[q_proj,v_proj]", "model.quantize_base=True", "model.quantize_base=true",
                  "model.use_dora=True", "dtype=bf16", "epochs=2", "output_dir=/tmp/x", "batch_size=4")


def trainer_spec(family: str, rng: random.Random, features: list[str]) -> dict[str, Any] | None:
    if family != "torchtune" and rng.random() < 0.12:
        return None
    trainer: dict[str, Any] = {}
    if family == "torchtune":
        trainer["command"] = ["tune", "run"] if rng.random() < 0.9 else ["tune", "run", "x"]
        if rng.random() < 0.8:
            trainer["args"] = rng.sample(TORCHTUNE_ARGS, rng.randint(0, 3))
        if rng.random() < 0.6:
            trainer["numNodes"] = rng.choice([1, 1, 2])
        if rng.random() < 0.4:
            trainer["numProcPerNode"] = rng.choice([1, 2])
        if rng.random() < 0.7:
            trainer["resourcesPerNode"] = {"limits": {"nvidia.com/gpu": rng.choice([1, 1, 2, 4, "1"])}}
        return trainer
    if rng.random() < 0.6:
        trainer["numNodes"] = rng.choice([1, 2, 3, 4, 8])
    if rng.random() < 0.5:
        trainer["image"] = "registry.example/job:2"
    if rng.random() < 0.3:
        trainer["command"] = rng.choice([["python", "-m", "train"], ["mpirun", "python", "t.py"]])
    if rng.random() < 0.3:
        trainer["args"] = rng.choice([[], ["--lr", "0.1"], [""]])
        if trainer["args"] == []:
            features.append("args-empty")
    if rng.random() < 0.35:
        trainer["env"] = env_list(rng, "JOB", RESERVED_ENV[family])
    if rng.random() < (0.8 if family == "torch-auto" else 0.4):
        trainer["resourcesPerNode"] = resources(rng)
    if family != "torch-auto" and rng.random() < 0.3:
        trainer["numProcPerNode"] = rng.choice([1, 2, 4])
    if family == "flux" and "numNodes" not in trainer:
        features.append("flux-no-numnodes")
    return trainer


# ----------------------------------------------------------------------------------------- patches

def pod_spec_patch(rng: random.Random, job: dict[str, Any]) -> dict[str, Any]:
    pod = job["template"]["spec"]["template"]["spec"]
    names = [c["name"] for c in pod["containers"]]
    patch: dict[str, Any] = {}
    fields = rng.sample(["nodeSelector", "tolerations", "affinity", "volumes", "serviceAccountName", "imagePullSecrets",
                         "securityContext", "schedulingGates", "containers", "initContainers"], rng.randint(1, 4))
    for field in fields:
        if field == "nodeSelector":
            patch[field] = {"zone": rng.choice(["a", "b"])}
        elif field == "tolerations":
            patch[field] = [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}]
        elif field == "affinity":
            patch[field] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["gpu"]}]}]}}}
        elif field == "volumes":
            patch[field] = [{"name": "cache", "emptyDir": {}}]
        elif field == "serviceAccountName":
            patch[field] = "trainer-sa"
        elif field == "imagePullSecrets":
            patch[field] = [{"name": "regcred"}]
        elif field == "securityContext":
            patch[field] = {"runAsNonRoot": True}
        elif field == "schedulingGates":
            patch[field] = [{"name": "kueue.x-k8s.io/admission"}]
        elif field == "containers":
            name = rng.choice(names) if rng.random() < 0.9 else "ghost"
            cpatch: dict[str, Any] = {"name": name}
            choice = rng.random()
            if choice < 0.5:
                cpatch["volumeMounts"] = [{"name": "cache", "mountPath": "/cache"}]
                patch.setdefault("volumes", [{"name": "cache", "emptyDir": {}}])
            elif choice < 0.8:
                cpatch["securityContext"] = {"allowPrivilegeEscalation": False}
            else:
                cpatch["env"] = [{"name": "PATCHED", "value": "1"}]  # forbidden on node/initializer containers
            patch[field] = [cpatch]
        elif field == "initContainers":
            patch[field] = [{"name": rng.choice(["init", *names]), "securityContext": {"runAsUser": 1000}}]
    return patch


def runtime_patches(rng: random.Random, jobs: list[dict[str, Any]], features: list[str]) -> list[dict[str, Any]]:
    patches = []
    for index in range(rng.randint(1, 2)):
        template: dict[str, Any] = {}
        if rng.random() < 0.4:
            template["metadata"] = {"labels": {f"patched-{index}": "yes"}, "annotations": {"who": "kueue"}}
        rjobs = []
        for job in rng.sample(jobs, rng.randint(1, len(jobs))):
            rjob: dict[str, Any] = {"name": job["name"] if rng.random() < 0.95 else "ghost-job"}
            jt: dict[str, Any] = {}
            if rng.random() < 0.3:
                jt["metadata"] = {"labels": {"job-patched": "1"}, "annotations": {"a": "b"}}
            pt: dict[str, Any] = {}
            if rng.random() < 0.3:
                pt["metadata"] = {"labels": {"pod-patched": "1"}}
            if rng.random() < 0.85:
                pt["spec"] = pod_spec_patch(rng, job)
            if pt:
                jt["spec"] = {"template": pt}
            if jt:
                rjob["template"] = jt
            rjobs.append(rjob)
        if rjobs and rng.random() < 0.9:
            template["spec"] = {"replicatedJobs": rjobs}
        patch: dict[str, Any] = {"manager": rng.choice(["kueue.x-k8s.io/manager", "sdk.kubeflow.org/x", f"example.com/m{index}"])}
        if template:
            patch["trainingRuntimeSpec"] = {"template": template}
        patches.append(patch)
    if len(patches) == 2 and patches[0]["manager"] == patches[1]["manager"]:
        patches[1]["manager"] = "example.com/second"
    features.append("runtime-patches")
    return patches


# ----------------------------------------------------------------------------------------- mutations

def mutate(rng: random.Random, docs: dict[str, Any], features: list[str]) -> None:
    """Something upstream may refuse (or that is easy to get wrong)."""
    tj, rt = docs["trainjob"], docs["runtime"]
    trainer = tj["spec"].setdefault("trainer", {})
    node_job = next((j for j in rt["spec"]["template"]["spec"]["replicatedJobs"] if j["name"] == "node"), None)
    choices = [
        ("neg-nodes", lambda: trainer.__setitem__("numNodes", -1)),
        ("zero-nodes", lambda: trainer.__setitem__("numNodes", 0)),
        ("zero-nproc", lambda: trainer.__setitem__("numProcPerNode", 0)),
        ("string-nproc", lambda: trainer.__setitem__("numProcPerNode", "auto")),
        ("unknown-field", lambda: trainer.__setitem__("gpus", 2)),
        ("unknown-spec-field", lambda: tj["spec"].__setitem__("replicas", 2)),
        ("missing-runtime", lambda: tj["spec"]["runtimeRef"].__setitem__("name", "no-such-runtime")),
        ("wrong-kind", lambda: tj["spec"]["runtimeRef"].__setitem__("kind", "TrainingRuntime" if rt["kind"] == "ClusterTrainingRuntime" else "ClusterTrainingRuntime")),
        ("bad-group", lambda: tj["spec"]["runtimeRef"].__setitem__("apiGroup", "example.com")),
        ("bad-name", lambda: tj["metadata"].__setitem__("name", "Bad_Name")),
        ("long-name", lambda: tj["metadata"].__setitem__("name", "j" * 64)),
        ("bad-quantity", lambda: trainer.__setitem__("resourcesPerNode", {"limits": {"cpu": "two"}})),
        ("float-cpu", lambda: trainer.__setitem__("resourcesPerNode", {"requests": {"cpu": 1.5}})),
        ("float-gpu", lambda: trainer.__setitem__("resourcesPerNode", {"limits": {"nvidia.com/gpu": 2.0}})),
        ("dup-env", lambda: trainer.__setitem__("env", [{"name": "A", "value": "1"}, {"name": "A", "value": "2"}])),
        ("bad-manager", lambda: tj["spec"].__setitem__("managedBy", "example.com/other")),
        ("bad-deadline", lambda: tj["spec"].__setitem__("activeDeadlineSeconds", 0)),
        ("bad-storage-uri", lambda: tj["spec"].setdefault("initializer", {}).__setitem__("dataset", {"storageUri": "not a uri"})),
        ("bad-patch-manager", lambda: tj["spec"].__setitem__("runtimePatches", [{"manager": "no-domain"}])),
        ("image-in-patch", lambda: tj["spec"].__setitem__("runtimePatches", [{"manager": "example.com/m", "trainingRuntimeSpec": {"template": {"spec": {"replicatedJobs": [{"name": "node", "template": {"spec": {"template": {"spec": {"containers": [{"name": "node", "image": "x"}]}}}}}]}}}}])),
    ]
    if node_job is not None:
        choices += [
            ("ancestor-replicas", lambda: node_job.__setitem__("replicas", 2)),
            ("no-node-container", lambda: node_job["template"]["spec"]["template"]["spec"]["containers"][0].__setitem__("name", "main")),
            ("runtime-float-cpu", lambda: node_job["template"]["spec"]["template"]["spec"]["containers"][0].__setitem__("resources", {"limits": {"cpu": 0.5}})),
            ("runtime-unknown-field", lambda: node_job["template"]["spec"]["template"]["spec"]["containers"][0].__setitem__("gpu", 1)),
        ]
    if rt["spec"].get("mlPolicy"):
        choices += [
            ("two-policies", lambda: rt["spec"]["mlPolicy"].update({"torch": {}, "jax": {}})),
            ("neg-policy-nodes", lambda: rt["spec"]["mlPolicy"].__setitem__("numNodes", -2)),
        ]
        if "mpi" in rt["spec"]["mlPolicy"]:
            choices += [
                ("mpi-intel", lambda: rt["spec"]["mlPolicy"]["mpi"].__setitem__("mpiImplementation", "Intel")),
                ("mpi-zero-nproc", lambda: rt["spec"]["mlPolicy"]["mpi"].__setitem__("numProcPerNode", 0)),
            ]
    name, apply = rng.choice(choices)
    apply()
    features.append(f"mutation:{name}")


# ----------------------------------------------------------------------------------------- a case

def generate_case(seed: int | str, index: int) -> Case:
    rng = random.Random(f"{seed}/{index}")
    family = FAMILIES[index % len(FAMILIES)] if index < 4 * len(FAMILIES) else rng.choice(FAMILIES)
    features: list[str] = []
    runtime_name, policy, jobs = family_runtime(family, rng, features)
    namespaced = rng.random() < 0.25
    namespace = rng.choice(["default", "team-a"]) if rng.random() < 0.7 else None
    rt = runtime_doc(rng, runtime_name, policy, jobs, namespaced=namespaced, namespace=namespace or "default")
    pod_group: dict[str, Any] | None = None
    extras: list[dict[str, Any]] = []
    choice = rng.random()
    if choice < 0.15:
        pod_group = {"coscheduling": {"scheduleTimeoutSeconds": rng.choice([30, 120])} if rng.random() < 0.6 else {}}
        features.append("coscheduling")
    elif choice < 0.27:
        volcano: dict[str, Any] = {}
        if rng.random() < 0.4:
            volcano["networkTopology"] = {"mode": rng.choice(["hard", "soft"]), "highestTierAllowed": rng.choice([1, 2])}
        pod_group = {"volcano": volcano}
        features.append("volcano")
        if rng.random() < 0.5:
            pc = rng.choice(["high", "missing"])
            for job in jobs:
                job["template"]["spec"]["template"]["spec"]["priorityClassName"] = pc
            extras.append({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"},
                           "value": 1000})
            features.append(f"priority-class-{pc}")
    if pod_group is not None:
        rt["spec"]["podGroupPolicy"] = pod_group

    metadata: dict[str, Any] = {"name": rng.choice(["job", "train-1", "a"])}
    if namespace is not None:
        metadata["namespace"] = namespace
    elif namespaced:
        metadata["namespace"] = "default"
    if rng.random() < 0.3:
        metadata["uid"] = "0b9a3c56-6a3b-4b4c-9d0f-2f1e0d6c8a11"
        features.append("uid")
    if rng.random() < 0.25:
        labels = {"kueue.x-k8s.io/queue-name": "team-queue"}
        if rng.random() < 0.4:
            labels["kueue.x-k8s.io/priority-class"] = "high"
        if rng.random() < 0.3:
            labels["app"] = "x"
        metadata["labels"] = labels
        features.append("kueue-labels")
    ref: dict[str, Any] = {"name": runtime_name}
    if namespaced:
        ref["kind"] = "TrainingRuntime"
    elif rng.random() < 0.3:
        ref["kind"] = "ClusterTrainingRuntime"
    if rng.random() < 0.2:
        ref["apiGroup"] = "trainer.kubeflow.org"
    spec: dict[str, Any] = {"runtimeRef": ref}
    trainer = trainer_spec(family, rng, features)
    if trainer is not None:
        spec["trainer"] = trainer
    init_jobs = [j["name"] for j in jobs if j["name"] in ("dataset-initializer", "model-initializer")]
    if init_jobs and rng.random() < 0.7 or rng.random() < 0.05:
        initializer: dict[str, Any] = {}
        for kind in ("dataset", "model"):
            if rng.random() < 0.6:
                source: dict[str, Any] = {}
                if rng.random() < 0.7:
                    source["storageUri"] = rng.choice(["hf://org/repo", "s3://bucket/path", "hf://x/y"])
                if rng.random() < 0.3:
                    source["env"] = [{"name": "ACCESS_TOKEN", "value": "t"}]
                if rng.random() < 0.3:
                    source["secretRef"] = {"name": "creds"}
                    extras.append({"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "creds", "namespace": namespace or "default"},
                                   "stringData": {"ACCESS_TOKEN": "t"}})
                initializer[kind] = source
        if initializer:
            spec["initializer"] = initializer
            features.append("initializer")
    if rng.random() < 0.3:
        spec["runtimePatches"] = runtime_patches(rng, jobs, features)
    suspend = rng.random()
    if suspend < 0.2:
        spec["suspend"] = True
        features.append("suspend")
    elif suspend < 0.3:
        spec["suspend"] = False
    if rng.random() < 0.05:
        spec["managedBy"] = rng.choice(["kueue.x-k8s.io/multikueue", "trainer.kubeflow.org/trainjob-controller"])
        features.append("managed-by")
    if rng.random() < 0.1:
        spec["activeDeadlineSeconds"] = rng.choice([60, 3600])
        features.append("active-deadline")
    tj = {"apiVersion": V1, "kind": "TrainJob", "metadata": metadata, "spec": spec}
    docs = {"trainjob": tj, "runtime": rt}
    if rng.random() < 0.2:
        mutate(rng, docs, features)
    if tj["spec"].get("trainer") == {}:
        del tj["spec"]["trainer"]
    # Secrets are named once: several initializers may share one.
    seen: set[tuple[str, str]] = set()
    unique_extras = []
    for extra in extras:
        key = (extra["kind"], extra["metadata"]["name"])
        if key not in seen:
            seen.add(key)
            unique_extras.append(extra)
    order = [rt, *unique_extras, tj] if rng.random() < 0.7 else [tj, rt, *unique_extras]
    return Case(index, family, dump(order), tuple(features))


def generate(seed: int | str, count: int) -> list[Case]:
    return [generate_case(seed, index) for index in range(count)]


# ----------------------------------------------------------------------------------------- YAML

# go-yaml v2's float pattern (resolve.go): it takes `1e3` for a number, PyYAML (YAML 1.1) for text.
_GO_YAML_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")


def dump(documents: list[dict[str, Any]]) -> str:
    """Block YAML; Raw scalars are written unquoted (PyYAML would quote them)."""
    raws: list[str] = []

    def swap(value: Any) -> Any:
        if isinstance(value, Raw):
            raws.append(str(value))
            return f"RAW{len(raws) - 1}RAW"
        if isinstance(value, str) and _GO_YAML_FLOAT.match(value):
            raws.append(f"'{value}'")  # a string to both readers (PyYAML would write it plain: a float to goyaml)
            return f"RAW{len(raws) - 1}RAW"
        if isinstance(value, dict):
            return {key: swap(item) for key, item in value.items()}
        if isinstance(value, list):
            return [swap(item) for item in value]
        return value

    text = yaml.safe_dump_all([swap(doc) for doc in documents], sort_keys=False, default_flow_style=False)
    for number, raw in enumerate(raws):
        text = text.replace(f"RAW{number}RAW", raw, 1)
    return text
