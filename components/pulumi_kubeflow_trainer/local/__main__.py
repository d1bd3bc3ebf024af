"""`python -m pulumi_kubeflow_trainer.local -f trainjob.yaml`: `trainjob run-local` without the console script."""

import sys

from .cli import main

sys.exit(main())
