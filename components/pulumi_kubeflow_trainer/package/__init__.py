"""The Pulumi package `kubeflow-trainer`: TrainJob, ClusterTrainingRuntime and TrainingRuntime for programs
in any Pulumi language (docs/yaml.md).

The components are the Python ones (`pulumi_kubeflow_trainer.TrainJob`, ...), each made as the child of a
package component whose argument types the host turns into the package schema (schema.json here). This
directory is also the plugin directory a program names in `packages:`: the engine starts
`pulumi-resource-kubeflow-trainer`, which runs `python -m pulumi_kubeflow_trainer.package`.
Nothing else in the library imports this subpackage.
"""

from pathlib import Path

PLUGIN_DIR = Path(__file__).resolve().parent
"""The directory to name in a program's `packages:` (it holds the plugin's executable)."""
