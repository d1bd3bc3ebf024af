"""Controller mode's comparison of a prediction with the live object (resources/controller_check.py)."""

from __future__ import annotations

import pytest

from pulumi_kubeflow_trainer.framework.errors import TrainerError
from pulumi_kubeflow_trainer.resources.controller_check import ControllerPredictionProvider, comparable, differences
from pulumi_kubeflow_trainer.resources.controller_mode import check_controller, prediction


def test_what_the_server_adds_is_no_drift():
    expected = {"spec": {"replicas": 1.0, "args": [], "env": [{"name": "A", "value": "1"}]}}
    live = {"spec": {"replicas": 1, "env": [{"name": "A", "value": "1"}], "completionMode": "Indexed"}, "status": {}}
    assert differences(expected, live) == []


@pytest.mark.parametrize(("expected", "live", "drift"), [
    ({"failurePolicy": {"maxRestarts": 0.0}}, {"failurePolicy": {}}, []),  # omitempty dropped it (go-encoding)
    ({"network": {"publishNotReadyAddresses": False}}, {"network": {}}, []),
    ({"failurePolicy": {"maxRestarts": 2.0}}, {"failurePolicy": {}}, ["failurePolicy.maxRestarts: expected 2.0, live None"]),
    ({"network": {"publishNotReadyAddresses": True}}, {"network": {}},
     ["network.publishNotReadyAddresses: expected True, live None"]),
    ({"failurePolicy": {"maxRestarts": 0}}, {"failurePolicy": {"maxRestarts": 1}}, ["failurePolicy.maxRestarts: expected 0, live 1"]),
], ids=["a zero the controller dropped is no drift", "a false the controller dropped is no drift",
        "a missing non-zero number is drift", "a missing true is drift", "a zero the controller changed is drift"])
def test_zeros_and_false_equal_absent_fields_as_go_writes_them(expected, live, drift):
    assert differences(expected, live) == drift


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


def test_fluxs_script_text_is_not_compared_but_its_keys_and_other_data_are():
    configmap = {"kind": "ConfigMap", "metadata": {"name": "j-flux-entrypoint"},
                 "data": {"init.sh": "ours", "entrypoint.sh": "ours", "broker.toml": "x"}}
    assert comparable(configmap)["data"] == {"broker.toml": "x"}
    live = {"kind": "ConfigMap", "metadata": {"name": "j-flux-entrypoint"},
            "data": {"init.sh": "upstream's", "entrypoint.sh": "upstream's", "broker.toml": "y"}}
    assert differences(comparable(configmap), live) == ["data.broker.toml: expected 'x', live 'y'"]
    hostfile = {"kind": "ConfigMap", "metadata": {"name": "j-mpi-hostfile"}, "data": {"init.sh": "x"}}
    assert comparable(hostfile)["data"] == {"init.sh": "x"}, "only Flux's ConfigMap"


def test_only_the_kubeflow_controller_is_known():
    check_controller("kubeflow")
    check_controller(None)
    with pytest.raises(TrainerError, match="controller: 'argo' is not one of kubeflow"):
        check_controller("argo")


KUBECONFIG = """apiVersion: v1
kind: Config
current-context: a
contexts: [{name: a, context: {cluster: a, user: a}}]
clusters: [{name: a, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: a, user: {token: t}}]
"""


@pytest.mark.parametrize(("settings", "reason"), [
    ({"kubeconfig": "{path}", "context": "b"}, "kubeconfig: no context 'b'"),
    ({"kubeconfig": "{path}", "cluster": "b"}, "kubeconfig: no cluster 'b'"),
    ({"kubeconfig": "not a kubeconfig"}, "the kubeconfig given is neither a kubeconfig file nor kubeconfig contents"),
    ({"kubeconfig": KUBECONFIG.replace("127.0.0.1:1", "").replace('"https://"', '""')}, "kubeconfig: cluster 'a' has no server"),
], ids=["the provider's context is the one used", "the provider's cluster is the one used",
        "the provider's kubeconfig contents are the ones read", "the provider's kubeconfig contents name the server"])
def test_the_check_reads_the_cluster_of_the_trainjobs_provider(settings, reason, tmp_path, monkeypatch):
    (tmp_path / "kubeconfig").write_text(KUBECONFIG)
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "absent"))  # never read when the provider says which
    props = {"expected": [{"kind": "JobSet", "apiVersion": "jobset.x-k8s.io/v1alpha2", "metadata": {"name": "j"}}],
             "namespace": None, "wait_seconds": 0,
             "cluster": {key: value.replace("{path}", str(tmp_path / "kubeconfig")) for key, value in settings.items()}}
    out = ControllerPredictionProvider()._check(props)
    assert out["checked"] is False and out["reason"] == reason, out


def test_without_provider_settings_the_check_reads_kubeconfig(tmp_path, monkeypatch):
    monkeypatch.setenv("KUBECONFIG", str(tmp_path / "absent"))
    out = ControllerPredictionProvider()._check({"expected": [], "namespace": None, "wait_seconds": 0})
    assert out["checked"] is False and str(tmp_path / "absent") in out["reason"], out
