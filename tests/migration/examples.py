"""Every manifest under training-operator v1.8.1's examples/, with what `migrate()` must make of it.

The list is fixed here, not read from the directory, so the parametrised test can never be empty and
a change of the examples shows (test_the_table_lists_every_example_of_the_module). docs/migration.md's
table is made from the same list and migrate()'s results (`table.py`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Outcome = Literal["migrated", "migrated with losses", "refused"]


@dataclass(frozen=True)
class Example:
    path: str  # under examples/
    outcome: Outcome


EXAMPLES: tuple[Example, ...] = (
    Example("mpi/tensorflow-mnist-elastic.yaml", "migrated with losses"),
    Example("mpi/tensorflow-mnist.yaml", "migrated with losses"),
    Example("mxnet/byteps/dist_gpu_v1.yaml", "refused"),
    Example("mxnet/mxjob_dist_v1.yaml", "refused"),
    Example("mxnet/tune/mx_job_tune_gpu_v1.yaml", "refused"),
    Example("paddlepaddle/simple-cpu.yaml", "migrated"),
    Example("paddlepaddle/simple-gpu.yaml", "migrated"),
    Example("pytorch/cpu-demo/demo.yaml", "migrated"),
    Example("pytorch/elastic/echo/echo.yaml", "migrated with losses"),
    Example("pytorch/elastic/etcd.yaml", "refused"),
    Example("pytorch/elastic/imagenet/imagenet.yaml", "migrated with losses"),
    Example("pytorch/mnist/v1/pytorch_job_mnist_gloo.yaml", "migrated"),
    Example("pytorch/mnist/v1/pytorch_job_mnist_mpi.yaml", "migrated"),
    Example("pytorch/mnist/v1/pytorch_job_mnist_nccl.yaml", "migrated"),
    Example("pytorch/simple.yaml", "migrated"),
    Example("pytorch/smoke-dist/pytorch_job_sendrecv.yaml", "migrated"),
    Example("tensorflow/dist-mnist/tf_job_mnist.yaml", "refused"),
    Example("tensorflow/distribution_strategy/estimator-API/distributed_tfjob.yaml", "refused"),
    Example("tensorflow/distribution_strategy/keras-API/multi_worker_tfjob.yaml", "refused"),
    Example("tensorflow/distribution_strategy/keras-API/pvc.yaml", "refused"),
    Example("tensorflow/mnist_with_summaries/tf_job_mnist.yaml", "refused"),
    Example("tensorflow/mnist_with_summaries/tfevent-volume/tfevent-pv.yaml", "refused"),
    Example("tensorflow/mnist_with_summaries/tfevent-volume/tfevent-pvc.yaml", "refused"),
    Example("tensorflow/simple.yaml", "refused"),
    Example("xgboost/lightgbm-dist/xgboostjob_v1_lightgbm_dist_training.yaml", "migrated with losses"),
    Example("xgboost/smoke-dist/xgboostjob_v1_rabit_test.yaml", "migrated with losses"),
    Example("xgboost/smoke-dist/xgboostjob_v1alpha1_rabit_test.yaml", "migrated with losses"),
    Example("xgboost/xgboost-dist/xgboostjob_v1_iris_predict.yaml", "migrated with losses"),
    Example("xgboost/xgboost-dist/xgboostjob_v1_iris_predict_local.yaml", "migrated with losses"),
    Example("xgboost/xgboost-dist/xgboostjob_v1_iris_train.yaml", "migrated with losses"),
    Example("xgboost/xgboost-dist/xgboostjob_v1_iris_train_local.yaml", "migrated with losses"),
    Example("xgboost/xgboostjob.yaml", "migrated with losses"),
)

MIGRATED = tuple(example for example in EXAMPLES if example.outcome != "refused")
REFUSED = tuple(example for example in EXAMPLES if example.outcome == "refused")
