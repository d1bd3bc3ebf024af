"""tools/localcluster's opt-in Trainer controller component without any binary: what it writes (its
config, its webhook configurations, the serving-certs link), its command line, and that it runs only
when asked for, after the CRDs."""

from __future__ import annotations

import base64
import sys
from pathlib import Path

import pytest
import yaml

TOOLS = Path(__file__).resolve().parents[2] / "tools"
sys.path.insert(0, str(TOOLS))
try:
    import localcluster.components
    from localcluster import kubeconfig
    from localcluster.components import kueue, trainer_controller
    from localcluster.context import Cluster
    from localcluster.layout import Layout
    from localcluster.pki import webhook_cert_dir
finally:
    sys.path.remove(str(TOOLS))

PORTS = {"apiserver": 30001, "trainer_webhook": 30101, "trainer_metrics": 30102, "trainer_health": 30103}
CA = "-----BEGIN CERTIFICATE-----\nfake\n-----END CERTIFICATE-----\n"


@pytest.fixture
def cluster(tmp_path: Path) -> Cluster:
    layout = Layout(tmp_path / "c")
    layout.make()
    (layout.pki / "webhook-ca.crt").write_text(CA)
    (layout.pki / "ca.crt").write_text(CA)
    kubeconfig.write_kubeconfig(layout, PORTS, "token")
    cluster = Cluster(layout, tmp_path / "bin", dict(PORTS), "token", 1.0)
    trainer_controller.COMPONENT.configure(cluster)
    return cluster


def test_it_runs_only_when_asked_for_and_after_the_crds():
    default = localcluster.components.names(localcluster.components.load())
    asked = localcluster.components.load(["trainer_controller"])
    assert "trainer-controller" not in default
    assert localcluster.components.names(asked) == [*default, "trainer-controller"]
    assert asked[-1].after_crds and asked[-1].optional
    with pytest.raises(ValueError, match="unknown optional components"):
        localcluster.components.load(["kueue-viz"])


def test_its_config_is_upstreams_on_loopback_without_leader_election_or_cert_management(cluster: Cluster):
    config = yaml.safe_load((cluster.layout.config / "trainer-controller.yaml").read_text())
    assert config["apiVersion"] == "config.trainer.kubeflow.org/v1alpha1" and config["kind"] == "Configuration"
    assert config["webhook"] == {"host": "127.0.0.1", "port": 30101}
    assert config["metrics"] == {"bindAddress": "127.0.0.1:30102", "secureServing": False}
    assert config["health"]["healthProbeBindAddress"] == "127.0.0.1:30103"
    assert config["leaderElection"]["leaderElect"] is False
    assert config["certManagement"] == {"enable": False}


def test_its_webhooks_are_upstreams_with_loopback_urls_and_the_webhook_ca(cluster: Cluster):
    items = yaml.safe_load((cluster.layout.config / "trainer-controller-webhooks.yaml").read_text())["items"]
    assert [item["metadata"]["name"] for item in items] == ["defaulter.trainer.kubeflow.org", "validator.trainer.kubeflow.org"]
    hooks = [hook for item in items for hook in item["webhooks"]]
    assert [hook["name"] for hook in hooks] == [
        "defaulter.trainjob.trainer.kubeflow.org", "validator.clustertrainingruntime.trainer.kubeflow.org",
        "validator.trainingruntime.trainer.kubeflow.org", "validator.trainjob.trainer.kubeflow.org"]
    for hook in hooks:
        assert hook["clientConfig"]["url"].startswith("https://127.0.0.1:30101/")
        assert base64.b64decode(hook["clientConfig"]["caBundle"]).decode() == CA
        assert hook["failurePolicy"] == "Fail"


def test_the_serving_certs_are_where_controller_runtime_looks_under_its_tmpdir(cluster: Cluster):
    component = trainer_controller.COMPONENT
    tmpdir = Path(component.env(cluster)["TMPDIR"])
    link = tmpdir / "k8s-webhook-server" / "serving-certs"
    assert link.is_symlink() and link.resolve() == webhook_cert_dir(cluster.layout, component.name).resolve()
    component.configure(cluster)  # a restart configures again
    assert link.is_symlink()


def test_its_command_line_and_binary(cluster: Cluster, monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    component = trainer_controller.TrainerController()
    monkeypatch.setenv(trainer_controller.BINARY_ENV, str(tmp_path / "tcm"))
    assert component.binary == str((tmp_path / "tcm").resolve())
    assert cluster.binary(component.binary) == component.binary  # an absolute path stays itself
    assert component.args(cluster) == [
        f"--config={cluster.layout.config / 'trainer-controller.yaml'}", f"--kubeconfig={cluster.layout.kubeconfig}",
        "--zap-devel=false", "--zap-log-level=info"]


KUEUE_PORTS = {**PORTS, "kueue_webhook": 30201, "kueue_metrics": 30202, "kueue_health": 30203}


@pytest.mark.parametrize(("optional", "frameworks", "trainjob_webhooks"), [
    ((), ["jobset.x-k8s.io/jobset"], False),
    (("trainer_controller",), ["jobset.x-k8s.io/jobset", "trainer.kubeflow.org/trainjob"], True),
], ids=["without the Trainer controller Kueue manages JobSets only",
        "with the Trainer controller Kueue manages TrainJobs too, with their webhooks"])
def test_kueues_trainjob_integration_is_on_when_the_trainer_controller_runs(optional, frameworks, trainjob_webhooks, tmp_path: Path):
    layout = Layout(tmp_path / "c")
    layout.make()
    (layout.pki / "webhook-ca.crt").write_text(CA)
    cluster = Cluster(layout, tmp_path / "bin", dict(KUEUE_PORTS), "token", 1.0, optional)
    kueue.COMPONENT.configure(cluster)
    config = yaml.safe_load((layout.config / "kueue.yaml").read_text())
    assert config["integrations"] == {"frameworks": frameworks}
    assert config["webhook"] == {"host": "127.0.0.1", "port": 30201, "certDir": str(webhook_cert_dir(layout, "kueue"))}
    webhooks = layout.config / kueue.TRAINJOB_WEBHOOKS
    assert webhooks.exists() == trainjob_webhooks
    if trainjob_webhooks:
        hooks = [hook for item in yaml.safe_load(webhooks.read_text())["items"] for hook in item["webhooks"]]
        assert [(hook["name"], hook["clientConfig"]["url"]) for hook in hooks] == [
            ("mtrainjob.kb.io", "https://127.0.0.1:30201/mutate-trainer-kubeflow-org-v1alpha1-trainjob"),
            ("vtrainjob.kb.io", "https://127.0.0.1:30201/validate-trainer-kubeflow-org-v1alpha1-trainjob")]
