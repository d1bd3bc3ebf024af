"""Controller mode's comparison of a prediction with the live object (resources/controller_check.py)."""

from __future__ import annotations

import pytest

from pulumi_kubeflow_trainer.framework.errors import TrainerError
from pulumi_kubeflow_trainer.resources.controller_check import comparable, differences
from pulumi_kubeflow_trainer.resources.controller_mode import check_controller, prediction


def test_what_the_server_adds_is_no_drift():
    expected = {"spec": {"replicas": 1.0, "args": [], "env": [{"name": "A", "value": "1"}]}}
    live = {"spec": {"replicas": 1, "env": [{"name": "A", "value": "1"}], "completionMode": "Indexed"}, "status": {}}
    assert differences(expected, live) == []


def test_a_different_or_missing_field_is_drift_with_its_path():
    expected = {"spec": {"containers": [{"name": "node", "image": "a", "ports": [{"containerPort": 29500}]}]}}
    live = {"spec": {"containers": [{"name": "node", "image": "b"}]}}
    assert differences(expected, live) == [
        "spec.containers[node].image: expected 'a', live 'b'",
        "spec.containers[node].ports: expected [{'containerPort': 29500}], live None",
    ]


def test_named_items_are_matched_by_name_and_their_order_counts():
    expected = {"env": [{"name": "A"}, {"name": "B"}]}
    assert differences(expected, {"env": [{"name": "B"}, {"name": "A"}]}) == [
        "env: expected the order ['A', 'B'], live ['B', 'A']"]
    assert differences(expected, {"env": [{"name": "A"}]}) == ["env: live has no item named 'B'"]


def test_quantities_and_booleans_compare_as_text():
    assert differences({"cpu": 4, "gpu": "8", "on": True}, {"cpu": "4", "gpu": 8.0, "on": "true"}) == []


def test_secret_data_and_kueue_labels_are_not_compared():
    secret = prediction([{"kind": "Secret", "metadata": {"name": "s"}, "data": {"k": "x"}}])[0]
    assert comparable(secret) == {"kind": "Secret", "metadata": {"name": "s"}}
    jobset = {"kind": "JobSet", "metadata": {"name": "j", "labels": {"kueue.x-k8s.io/queue-name": "q", "a": "b"}}}
    assert comparable(jobset)["metadata"]["labels"] == {"a": "b"}


def test_only_the_kubeflow_controller_is_known():
    check_controller("kubeflow")
    check_controller(None)
    with pytest.raises(TrainerError, match="controller: 'argo' is not one of kubeflow"):
        check_controller("argo")
