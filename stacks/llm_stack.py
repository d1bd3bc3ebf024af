"""llm: LoRA fine-tuning of Llama 3.2 1B with TorchTune; the initializers fetch the dataset and the
model (the Hugging Face token comes from a Secret, never from plain env).

On a cluster, the model initializer needs a Secret `hf-token` in the TrainJob's namespace with the key
`ACCESS_TOKEN` (the initializers' env contract; Llama 3.2 is gated on Hugging Face), made beforehand, e.g.
`kubectl create secret generic hf-token --from-literal=ACCESS_TOKEN=hf_...`; without it the initializer's
Pod does not start (CreateContainerConfigError). Rendering needs nothing."""

from __future__ import annotations

from typing import Any


def build(namespace: str = "default", hf_token_secret: str = "hf-token") -> dict[str, Any]:
    trainjob = {
        "apiVersion": "trainer.kubeflow.org/v1alpha1",
        "kind": "TrainJob",
        "metadata": {"name": "llama-lora", "namespace": namespace},
        "spec": {
            "runtimeRef": {"name": "torchtune-llama3.2-1b"},
            "initializer": {
                "dataset": {"storageUri": "hf://tatsu-lab/alpaca/data"},
                "model": {"storageUri": "hf://meta-llama/Llama-3.2-1B-Instruct", "secretRef": {"name": hf_token_secret}},
            },
            "trainer": {
                "command": ["tune", "run"],
                "args": ["batch_size=4", "epochs=1", "model.lora_attn_modules=[q_proj,v_proj,output_proj]"],
                "resourcesPerNode": {"limits": {"nvidia.com/gpu": 2}},
            },
        },
    }
    return {"runtimes": ["torchtune-llama3.2-1b"], "trainjobs": [trainjob]}
