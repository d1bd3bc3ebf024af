"""Dataset and model initializers for TrainJobs (`python -m pulumi_kubeflow_trainer.initializers`).

They run in the initializer containers before the trainer and follow upstream Kubeflow
Trainer's env contract (STORAGE_URI, ACCESS_TOKEN, IGNORE_PATTERNS, ENDPOINT, ACCESS_KEY_ID,
SECRET_ACCESS_KEY, REGION, ROLE_ARN) plus ALLOW_PATTERNS, REVISION and WORKERS.
See docs/initializers.md.

Only the standard library is imported here and in the CLI; boto3 is imported for `s3://` and
huggingface_hub for `hf://`, so each image needs just one of them and no Pulumi or pydantic.
"""

from .cli import dataset_main, main, model_main, run_initializer

__all__ = ["dataset_main", "main", "model_main", "run_initializer"]
