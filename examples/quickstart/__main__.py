"""Quickstart: a two-node PyTorch DDP TrainJob on the bundled torch-distributed runtime.

With no cluster configured the kubernetes provider writes the manifests to out/ instead of deploying
them; `pulumi config set kubernetes:context <your cluster>` deploys them there (JobSet v0.12+ and, for
gang scheduling, a scheduler that reads PodGroups must run in the cluster; no Trainer controller).
"""

import os

import pulumi
import pulumi_kubernetes as k8s

from pulumi_kubeflow_trainer import ClusterTrainingRuntime, TrainerArgs, TrainJob

cluster = pulumi.Config("kubernetes")
if cluster.get("context") or cluster.get("kubeconfig"):
    provider = k8s.Provider("cluster", context=cluster.get("context"), kubeconfig=cluster.get("kubeconfig"))
else:
    os.environ.pop("KUBECONFIG", None)  # the SDK would hand it to the provider, which refuses it when rendering
    provider = k8s.Provider("render", render_yaml_to_directory="out")
opts = pulumi.ResourceOptions(provider=provider)

torch = ClusterTrainingRuntime.bundled("torch-distributed", opts=opts)
mnist = TrainJob(
    "mnist",
    runtime=torch,
    namespace="default",
    trainer=TrainerArgs(
        image="pytorch/pytorch:2.7.1-cuda12.8-cudnn9-runtime",
        num_nodes=2,
        command=["torchrun", "train.py"],  # train.py: your training script, in the image
        resources_per_node={"limits": {"cpu": "2", "memory": "4Gi"}},
    ),
    opts=opts,
)
pulumi.export("jobset", mnist.jobset_name)
pulumi.export("conditions", mnist.conditions)  # Complete / Failed once the JobSet ran (on a cluster)
