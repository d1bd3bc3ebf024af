"""Names shared with the upstream controller: API groups, labels, reserved jobs and env vars."""

GROUP = "trainer.kubeflow.org"
API_VERSION_UPSTREAM = f"{GROUP}/v1alpha1"
API_VERSION_KEP = f"{GROUP}/v2alpha1"
API_VERSIONS = (API_VERSION_UPSTREAM, API_VERSION_KEP)

TRAINJOB_KIND = "TrainJob"
TRAINING_RUNTIME_KIND = "TrainingRuntime"
CLUSTER_TRAINING_RUNTIME_KIND = "ClusterTrainingRuntime"

MANAGED_BY_TRAINER = "trainer.kubeflow.org/trainjob-controller"
MANAGED_BY_MULTIKUEUE = "kueue.x-k8s.io/multikueue"

JOBSET_API_VERSION = "jobset.x-k8s.io/v1alpha2"

LABEL_ANCESTOR = "trainer.kubeflow.org/trainjob-ancestor-step"
LABEL_FRAMEWORK = "trainer.kubeflow.org/framework"
LABEL_SUPPORT = "trainer.kubeflow.org/support"
SUPPORT_DEPRECATED = "deprecated"
LABEL_WEBHOOK_VALIDATION = "trainer.kubeflow.org/webhook-validation"

ANCESTOR_DATASET = "dataset-initializer"
ANCESTOR_MODEL = "model-initializer"
ANCESTOR_TRAINER = "trainer"

NODE = "node"  # the trainer container, and the MPI worker job
LAUNCHER = "launcher"
DATASET_INITIALIZER = "dataset-initializer"
MODEL_INITIALIZER = "model-initializer"
INITIALIZER_VOLUME = "initializer"

CONTAINER_TRAINER_PORT = 29500
COMPLETION_INDEX_FIELD = "metadata.annotations['batch.kubernetes.io/job-completion-index']"

ENV_STORAGE_URI = "STORAGE_URI"

DEPRECATION_POLICY_URL = (
    "https://trainer.kubeflow.org/en/latest/operator-guides/runtime.html#runtime-deprecation-policy"
)
