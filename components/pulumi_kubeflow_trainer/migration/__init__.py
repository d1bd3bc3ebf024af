"""Migration from Kubeflow Training Operator v1: PyTorchJob, MPIJob, XGBoostJob and PaddleJob to TrainJobs.

`migrate(sources)` returns a `MigrationResult`: the TrainJobs (and the TrainingRuntimes generated for
jobs no bundled runtime fits) as manifests, and the `Loss`es, the fields of the v1 jobs v2 has no place
for, each with its path and why. `trainjob migrate` is the same on the command line. The field and
env mappings are in docs/migration.md; `ENV_MAPPINGS` is the env mapping as data.
"""

from .envmap import ENV_MAPPINGS, V2_ONLY, EnvMapping
from .migrate import migrate
from .report import Loss, MigratedJob, MigrationResult

__all__ = ["ENV_MAPPINGS", "V2_ONLY", "EnvMapping", "Loss", "MigratedJob", "MigrationResult", "migrate"]
