"""Function trainers: a Python function becomes `spec.trainer` for the runtime's launcher.

    trainer = FunctionTrainer.from_function(train, func_args={"lr": 0.1}, num_nodes=2)
    spec_trainer = trainer.to_manifest(bundled_runtime("torch-distributed"))
"""

from .launcher import MPI_HOSTFILE, FunctionLauncher, Launcher, bootstrap_program, launcher_command, launcher_for
from .payload import MAX_ENCODED_BYTES, FunctionPayload, json_arguments
from .resources import resource_name, resources_per_node
from .source import FunctionPackagingError, FunctionSource, ShippedModule, function_source, module_source
from .trainer import FunctionTrainer, env_list, trainer_for_runtime

__all__ = [
    "MAX_ENCODED_BYTES",
    "MPI_HOSTFILE",
    "FunctionPackagingError",
    "FunctionPayload",
    "FunctionSource",
    "FunctionLauncher",
    "FunctionTrainer",
    "Launcher",
    "ShippedModule",
    "bootstrap_program",
    "env_list",
    "function_source",
    "json_arguments",
    "launcher_command",
    "launcher_for",
    "module_source",
    "resource_name",
    "resources_per_node",
    "trainer_for_runtime",
]
