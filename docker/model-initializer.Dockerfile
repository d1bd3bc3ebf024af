# syntax=docker/dockerfile:1
# Model initializer: `python -m pulumi_kubeflow_trainer.initializers model` (s3:// and hf://).
#
# UNTESTED: the machine this was written on has no Docker engine. Build from the repository root
# (BuildKit reads docker/model-initializer.Dockerfile.dockerignore next to this file):
#   docker build -f docker/model-initializer.Dockerfile -t trainjob-model-initializer .
#
# Only the initializer code and its two client libraries go into the image. The distribution's
# main dependencies (pulumi, pulumi-kubernetes, pydantic, cryptography) are for the Pulumi
# components and are not needed here, so the source is copied instead of pip-installing the
# distribution (see docs/initializers.md, "Container images").
FROM python:3.12-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONPATH=/opt/initializers \
    HF_HOME=/tmp/huggingface \
    HF_HUB_DISABLE_TELEMETRY=1

# Same pins as the `initializers` extra in pyproject.toml.
RUN pip install "boto3==1.44.8" "huggingface-hub==2.4.0"

# The package root (__init__.py only imports the standard library) and the initializers.
COPY components/pulumi_kubeflow_trainer/__init__.py /opt/initializers/pulumi_kubeflow_trainer/__init__.py
COPY components/pulumi_kubeflow_trainer/initializers /opt/initializers/pulumi_kubeflow_trainer/initializers

# Fail the build if the slim image cannot import the entry point.
RUN python -c "import pulumi_kubeflow_trainer.initializers.cli"

# Runs as root like upstream's image, so it can write to a PVC without fsGroup. To run as
# non-root, set runAsUser and fsGroup in the TrainingRuntime's pod securityContext.
WORKDIR /workspace
ENTRYPOINT ["python", "-m", "pulumi_kubeflow_trainer.initializers", "model"]
