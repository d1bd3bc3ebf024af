"""A new ML policy is one plugin (issue 12, part 3): a PaddlePaddle-style plugin, installed as a
distribution of its own that declares it in the entry-point group, renders a runtime with its policy
without any file of the package changing; keys no plugin claims are still refused as the CRD does.
What a registry knows is its own (issue 24, part 2): two registries with different plugins for one key
validate and render each their own way, and the API models answer alike whatever was imported."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
import yaml

from pulumi_kubeflow_trainer.api.base import KubeModel
from pulumi_kubeflow_trainer.framework.errors import PluginRegistrationError, TrainJobInvalidError
from pulumi_kubeflow_trainer.framework.ml_policy import FunctionLauncher
from pulumi_kubeflow_trainer.framework.registry import ENTRY_POINT_GROUP, entry_point_plugins
from pulumi_kubeflow_trainer.functions import FunctionPackagingError, launcher_command, launcher_for
from pulumi_kubeflow_trainer.loading import load
from pulumi_kubeflow_trainer.plugins import JAXPlugin, default_framework, default_registry
from pulumi_kubeflow_trainer.rendering import render
from tests.builders import by_kind, env_of, jobset_container, make_runtime, make_trainjob

MODULE = "paddle_trainer_plugin"
PLUGIN_SOURCE = '''
"""PaddlePaddle for pulumi-kubeflow-trainer: spec.mlPolicy.paddle, the PADDLE_* env on the trainer node."""

from typing import ClassVar

from pulumi_kubeflow_trainer.api import constants as c
from pulumi_kubeflow_trainer.api.base import KubeModel
from pulumi_kubeflow_trainer.framework.kube import field_ref_env, upsert_env, upsert_ports
from pulumi_kubeflow_trainer.framework.ml_policy import FunctionLauncher


class PaddleMLPolicySource(KubeModel):
    num_proc_per_node: int = 1


class PaddlePlugin:
    name: ClassVar[str] = "Paddle"
    ml_policy: ClassVar[str] = "paddle"
    ml_policy_source: ClassVar[type[KubeModel]] = PaddleMLPolicySource
    function_launcher: ClassVar[FunctionLauncher] = FunctionLauncher("paddle", ("python", "-m", "paddle.distributed.launch"))

    @staticmethod
    def applies_to(runtime):
        policy = runtime.spec.ml_policy
        return policy is not None and policy.source("paddle") is not None

    def enforce_ml_policy(self, info, trainjob):
        pod_set, trainer = info.trainer_pod_set, trainjob.spec.trainer
        container = pod_set.find_container(c.NODE) if pod_set else None
        if trainer is None or container is None:
            return
        if trainer.num_nodes is not None:
            pod_set.count = trainer.num_nodes
        # As JAX's: the user's env follows, from the JobSet builder.
        upsert_env(container, [
            {"name": "PADDLE_NNODES", "value": str(pod_set.count)},
            {"name": "PADDLE_NPROC_PER_NODE", "value": str(info.ml_policy.source("paddle").num_proc_per_node)},
            field_ref_env("PADDLE_TRAINER_ID", c.COMPLETION_INDEX_FIELD),
            {"name": "PADDLE_MASTER", "value": f"{info.rank0_host}:{c.CONTAINER_TRAINER_PORT}"},
        ])
        upsert_ports(container, [{"containerPort": c.CONTAINER_TRAINER_PORT}])
'''


def install_distribution(site: Path) -> Path:
    """A wheel's installed form, as pip leaves it in site-packages: the module and its dist-info."""
    site.mkdir()
    (site / f"{MODULE}.py").write_text(PLUGIN_SOURCE)
    info = site / f"{MODULE}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {MODULE}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\nPaddle = {MODULE}:PaddlePlugin\n")
    return site


def reread_plugins() -> None:
    entry_point_plugins.cache_clear()
    default_framework.cache_clear()


@pytest.fixture
def paddle_site(tmp_path: Path) -> Iterator[Path]:
    """The distribution on sys.path for this test only; the default registry has its plugin while it is
    installed, and not after (the default framework is rebuilt from what is installed)."""
    site = install_distribution(tmp_path / "site")
    sys.path.insert(0, str(site))
    reread_plugins()
    try:
        yield site
    finally:
        sys.path.remove(str(site))
        sys.modules.pop(MODULE, None)
        reread_plugins()


def paddle_runtime(**source: Any) -> dict[str, Any]:
    runtime = make_runtime("paddle").trainer().obj()
    runtime["spec"]["mlPolicy"] = {"numNodes": 2, "paddle": source}
    return runtime


def paddle_job() -> dict[str, Any]:
    return make_trainjob("team", "ernie").runtime_ref("paddle").num_nodes(3).env(LOG_LEVEL="debug").obj()


@pytest.mark.usefixtures("paddle_site")
def test_a_policy_plugin_from_an_entry_point_renders_its_runtime() -> None:
    manifests = render([paddle_runtime(numProcPerNode=4), paddle_job()], runtime_snapshot=True)
    node = jobset_container(manifests, "node")
    assert [var["name"] for var in node["env"]] == [
        "PADDLE_NNODES", "PADDLE_NPROC_PER_NODE", "PADDLE_TRAINER_ID", "PADDLE_MASTER", "LOG_LEVEL",
    ], "the user's env after the plugin's: PlainML (which would put it first) stood aside for a plugin that sets the trainer"
    assert env_of(node)["PADDLE_NNODES"] == "3" and env_of(node)["PADDLE_NPROC_PER_NODE"] == "4"
    assert env_of(node)["PADDLE_MASTER"] == "ernie-node-0-0.ernie:29500"
    assert node["ports"] == [{"containerPort": 29500}]
    assert by_kind(manifests, "JobSet")["spec"]["replicatedJobs"][0]["template"]["spec"]["parallelism"] == 3
    snapshot = yaml.safe_load(by_kind(manifests, "ConfigMap")["data"]["runtime"])
    assert snapshot["spec"]["mlPolicy"] == {"numNodes": 2, "paddle": {"numProcPerNode": 4}}


@pytest.mark.usefixtures("paddle_site")
def test_the_plugin_policy_is_validated_with_its_model_and_counted_by_the_one_policy_rule() -> None:
    with pytest.raises(TrainJobInvalidError) as raised:
        load(paddle_runtime(numProcPerNode="4", gpus=1))
    assert [str(error) for error in raised.value.errors] == [
        'spec.mlPolicy.paddle.numProcPerNode: Invalid value: "4": input should be a valid integer',
        "spec.mlPolicy.paddle.gpus: Unsupported field: 1: not a field of this object; check the spelling or remove it",
    ]
    both = paddle_runtime()
    both["spec"]["mlPolicy"]["torch"] = {}
    with pytest.raises(TrainJobInvalidError, match="spec.mlPolicy: Only one of the policy can be configured: found torch, paddle"):
        load(both)


@pytest.mark.usefixtures("paddle_site")
def test_the_function_launcher_is_the_one_the_plugin_declares() -> None:
    (runtime,) = load(paddle_runtime())
    launcher = launcher_for(runtime)
    assert launcher.name == "paddle"
    assert launcher_command(launcher)[:4] == ["python", "-m", "paddle.distributed.launch", "python"]
    with pytest.raises(FunctionPackagingError, match="functions run on torch, mpi, jax, xgboost, paddle or plain runtimes"):
        launcher_for(make_runtime("f").flux().trainer().build())


def test_without_the_plugin_the_key_is_refused_as_the_crd_refuses_it() -> None:
    with pytest.raises(TrainJobInvalidError) as raised:
        load(paddle_runtime())
    assert [str(error) for error in raised.value.errors] == [
        "spec.mlPolicy.paddle: Unsupported field: {}: not a field of this object; check the spelling or remove it",
    ]


def run_cli(site: Path | None, *files: Path) -> subprocess.CompletedProcess[str]:
    """`trainjob render` in a new process, with the distribution on its path or without it."""
    environment = dict(os.environ)
    if site is not None:
        environment["PYTHONPATH"] = os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))
    arguments = [arg for path in files for arg in ("-f", str(path))]
    return subprocess.run(
        [sys.executable, "-m", "pulumi_kubeflow_trainer", "render", *arguments, "--seed", "s"],
        capture_output=True, text=True, timeout=120, env=environment, check=False,
    )


def test_a_fresh_process_finds_the_policy_through_the_installed_distribution(tmp_path: Path) -> None:
    site = install_distribution(tmp_path / "site")
    files = [tmp_path / "runtime.yaml", tmp_path / "job.yaml"]
    files[0].write_text(yaml.safe_dump(paddle_runtime()))
    files[1].write_text(yaml.safe_dump(paddle_job()))
    rendered = run_cli(site, *files)
    assert rendered.returncode == 0, rendered.stderr
    assert "PADDLE_NNODES" in rendered.stdout
    refused = run_cli(None, *files)
    assert refused.returncode == 1 and "spec.mlPolicy.paddle: Unsupported field" in refused.stderr


class PolicyWithoutModel:
    name: ClassVar[str] = "Mystery"
    ml_policy: ClassVar[str] = "mystery"

    def enforce_ml_policy(self, info: Any, trainjob: Any) -> None:
        pass


class SecondJAX(PolicyWithoutModel):
    name: ClassVar[str] = "JAX2"
    ml_policy: ClassVar[str] = "jax"


class NodeCountPolicy(PolicyWithoutModel):
    name: ClassVar[str] = "Nodes"
    ml_policy: ClassVar[str] = "numNodes"
    ml_policy_source: ClassVar[type[KubeModel]] = KubeModel


@pytest.mark.parametrize(
    ("plugin", "says"),
    [
        (PolicyWithoutModel, "plugin 'Mystery' handles mlPolicy.mystery, which the CRD lacks: set ml_policy_source"),
        (SecondJAX, "plugin 'JAX2' handles mlPolicy.jax, which plugin 'JAX' handles already"),
        (NodeCountPolicy, "plugin 'Nodes': ml_policy must be the policy's key under spec.mlPolicy, not 'numNodes'"),
    ],
    ids=["a key the CRD lacks needs a model", "one plugin per policy", "numNodes is no policy"],
)
def test_policy_declarations_that_cannot_work_are_refused_at_registration(plugin: Any, says: str) -> None:
    registry = default_registry(include_entry_points=False)
    with pytest.raises(PluginRegistrationError, match=says):
        registry.register(plugin)
    assert plugin.name not in registry.names and isinstance(registry.policies.plugin_for("jax"), JAXPlugin)


def test_the_builtin_policies_declare_their_keys_in_plugin_order() -> None:
    assert [key for key, _ in default_framework().policies.launchers()][:5] == ["torch", "mpi", "jax", "xgboost", "flux"]
    assert launcher_for(make_runtime("x").xgboost().trainer().build()) == FunctionLauncher("python")
