"""`python -m pulumi_kubeflow_trainer.initializers dataset|model [--output DIR] [--workers N]`."""

from .cli import main

raise SystemExit(main())
