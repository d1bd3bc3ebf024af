"""Kubeflow Trainer v2 as Pulumi components, rendered client side."""
