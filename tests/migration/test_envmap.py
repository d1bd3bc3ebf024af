"""The env mapping as data: one row per variable, and the names v2's plugins set, as the plugins set them."""

from __future__ import annotations

from collections import Counter

from pulumi_kubeflow_trainer.migration import ENV_MAPPINGS, V2_ONLY
from pulumi_kubeflow_trainer.migration import mpi as mpi_migration
from pulumi_kubeflow_trainer.migration import pytorch as pytorch_migration
from pulumi_kubeflow_trainer.migration import xgboost as xgboost_migration
from pulumi_kubeflow_trainer.plugins import mpi, torch, xgboost


def test_every_variable_has_one_row_per_framework() -> None:
    counts = Counter((row.framework, row.v1) for row in ENV_MAPPINGS)
    assert [key for key, count in counts.items() if count > 1] == []


def test_the_names_migrate_keeps_out_of_the_trainjob_are_the_ones_v2s_plugins_reserve() -> None:
    assert pytorch_migration.RESERVED_ENV == torch.RESERVED_ENV
    assert xgboost_migration.RESERVED_ENV == set(xgboost.RESERVED_ENV)
    openmpi = {item["name"] for item in mpi._launcher_env("OpenMPI", 1) or []}
    assert mpi_migration.RESERVED_ENV == openmpi


def test_what_v2s_policies_set_is_in_the_mapping_or_listed_as_v2s_own() -> None:
    by_policy = {(row.framework, row.v1) for row in ENV_MAPPINGS if row.by == "policy"}
    own = {(framework, name) for framework, name, _ in V2_ONLY}
    assert {("PyTorch", name) for name in torch.RESERVED_ENV} <= by_policy
    assert {("XGBoost", name) for name in xgboost.RESERVED_ENV} <= own
    openmpi = {("MPI", item["name"]) for item in mpi._launcher_env("OpenMPI", 1) or []}
    assert openmpi <= by_policy | own
    assert not by_policy & own
