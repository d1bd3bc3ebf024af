"""`python -m pulumi_kubeflow_trainer.package ENGINE_ADDRESS`: the package's plugin, as the engine starts it
through `pulumi-resource-kubeflow-trainer` (next to this file). `--schema` prints the package schema."""

import sys

from .host import schema_text, serve

if sys.argv[1:2] == ["--schema"]:
    sys.stdout.write(schema_text())
else:
    serve(sys.argv[1:])
