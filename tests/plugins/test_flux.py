"""Flux plugin (SEMANTICS §3.8, §4.2, §7.7): command wrapping, volumes, installer, scripts, CURVE cert
(random or seeded, never derived from the UID as upstream does)."""

from __future__ import annotations

import base64
import hashlib
import re
from dataclasses import dataclass
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from pulumi_kubeflow_trainer.plugins.flux import DEFAULT_SETTINGS, INSTALLER, curve_name, entrypoint_name
from pulumi_kubeflow_trainer.plugins.flux.scripts import _Z85, hostlist, z85
from pulumi_kubeflow_trainer.ssh import generate_key_pair, seeded_key_generator
from tests.builders import (
    Invalid,
    RuntimeBuilder,
    TrainJobBuilder,
    assert_rejected,
    by_kind,
    container,
    env_of,
    job_counts,
    jobset_container,
    make_runtime,
    make_trainjob,
    pod_spec,
    render_one,
    validate_one,
)

ENTRYPOINT = ["/bin/bash", "/etc/flux-config/entrypoint.sh"]


def job() -> TrainJobBuilder:
    return make_trainjob("team", "job").runtime_ref("rt")


def flux(*containers: dict[str, Any], **policy: Any) -> RuntimeBuilder:
    return make_runtime("rt").flux(**policy).trainer(*(containers or (container(command=["python", "train.py"], args=["--lr", "1"]),)))


def scripts(manifests: list[dict[str, Any]]) -> dict[str, str]:
    return by_kind(manifests, "ConfigMap")["data"]


@dataclass(frozen=True)
class Command:
    name: str
    trainjob: TrainJobBuilder
    want_command: list[str]
    want_args: list[str]


COMMAND_CASES = [
    Command("the runtime command is wrapped by the entrypoint", job().num_nodes(2), [*ENTRYPOINT, "python train.py"], ["--lr", "1"]),
    Command(
        "trainjob args join the runtime command and the container keeps the runtime args",
        job().num_nodes(2).args("--epochs", "3"),
        [*ENTRYPOINT, "python train.py --epochs 3"],
        ["--lr", "1"],
    ),
    Command(
        "a trainjob command replaces the runtime's inside the wrapper",
        job().num_nodes(2).command("torchrun", "main.py").args("--x"),
        [*ENTRYPOINT, "torchrun main.py --x"],
        ["--lr", "1"],
    ),
]


@pytest.mark.parametrize("case", COMMAND_CASES, ids=lambda case: case.name)
def test_command(case: Command) -> None:
    node = jobset_container(render_one(case.trainjob, flux()), "node")
    assert (node["command"], node["args"]) == (case.want_command, case.want_args)


def test_volumes_installer_and_mounts() -> None:
    manifests = render_one(job().num_nodes(2), flux())
    spec = pod_spec(manifests, "node")
    assert spec["volumes"] == [
        {"name": "spack-install", "emptyDir": {}},
        {"name": "flux-install", "emptyDir": {}},
        {"name": "job-flux-entrypoint", "configMap": {"name": "job-flux-entrypoint", "defaultMode": 0o755}},
        {"name": "shared-memory", "emptyDir": {"medium": "Memory"}},
        {"name": "flux-curve", "secret": {"secretName": "job-flux-curve", "defaultMode": 0o400}},
    ]
    assert spec["initContainers"] == [
        {
            "name": INSTALLER,
            "image": DEFAULT_SETTINGS["FLUX_VIEW_IMAGE"],
            "command": ["/bin/bash", "/etc/flux-config/init.sh"],
            "volumeMounts": [
                {"name": "flux-install", "mountPath": "/mnt/flux"},
                {"name": "job-flux-entrypoint", "mountPath": "/etc/flux-config", "readOnly": True},
            ],
        }
    ]
    assert jobset_container(manifests, "node")["volumeMounts"] == [
        {"name": "flux-install", "mountPath": "/mnt/flux"},
        {"name": "spack-install", "mountPath": "/opt/software"},
        {"name": "job-flux-entrypoint", "mountPath": "/etc/flux-config", "readOnly": True},
        {"name": "flux-curve", "mountPath": "/curve", "readOnly": True},
        {"name": "shared-memory", "mountPath": "/dev/shm", "readOnly": True},
    ]


def test_the_installer_is_appended_after_runtime_init_containers() -> None:
    rt = make_runtime("rt").flux().trainer(initContainers=[container("setup", "setup:1")])
    names = [item["name"] for item in pod_spec(render_one(job().num_nodes(1), rt), "node")["initContainers"]]
    assert names == ["setup", INSTALLER]


@dataclass(frozen=True)
class Settings:
    name: str
    trainjob: TrainJobBuilder
    runtime: RuntimeBuilder
    image: str
    queue_policy: str
    device: str


SETTINGS_CASES = [
    Settings("defaults apply without overrides", job().num_nodes(1), flux(), DEFAULT_SETTINGS["FLUX_VIEW_IMAGE"], "fcfs", "eth0"),
    Settings(
        "runtime node env overrides the defaults",
        job().num_nodes(1),
        flux(container(env=[{"name": "FLUX_VIEW_IMAGE", "value": "view:rt"}, {"name": "FLUX_NETWORK_DEVICE", "value": "ib0"}])),
        "view:rt",
        "fcfs",
        "ib0",
    ),
    Settings(
        "trainjob env overrides the runtime's",
        job().num_nodes(1).env(FLUX_VIEW_IMAGE="view:job", FLUX_QUEUE_POLICY="easy"),
        flux(container(env=[{"name": "FLUX_VIEW_IMAGE", "value": "view:rt"}])),
        "view:job",
        "easy",
        "eth0",
    ),
]


@pytest.mark.parametrize("case", SETTINGS_CASES, ids=lambda case: case.name)
def test_settings(case: Settings) -> None:
    manifests = render_one(case.trainjob, case.runtime)
    assert pod_spec(manifests, "node")["initContainers"][-1]["image"] == case.image
    init = scripts(manifests)["init.sh"]
    assert f'queue-policy = "{case.queue_policy}"' in init
    assert f'default_bind = "tcp://{case.device}:%p"' in init


@dataclass(frozen=True)
class Script:
    name: str
    trainjob: TrainJobBuilder
    runtime: RuntimeBuilder
    hosts: str
    encode: str
    submit: str


SCRIPT_CASES = [
    Script("one node is a one-host list", job().num_nodes(1), flux(), "job-node-0-[0]", "--cores=0-0 > /tmp/R", "-N 1 -n 1 "),
    Script("three nodes make a host range", job().num_nodes(3), flux(), "job-node-0-[0-2]", "--cores=0-0 > /tmp/R", "-N 3 -n 3 "),
    Script("the policy's numProcPerNode sets the cores", job().num_nodes(2), flux(numProcPerNode=4), "job-node-0-[0-1]", "--cores=0-3 > /tmp/R", "-N 2 -n 8 "),
    Script(
        "the trainjob's numProcPerNode wins over the policy's",
        job().num_nodes(2).num_proc_per_node(2),
        flux(numProcPerNode=4),
        "job-node-0-[0-1]",
        "--cores=0-1 > /tmp/R",
        "-N 2 -n 4 ",
    ),
    Script(
        "gpus add a gpu range and flag",
        job().num_nodes(2).resources(limits={"nvidia.com/gpu": 2}),
        flux(),
        "job-node-0-[0-1]",
        "--cores=0-0 --gpu=0-1 > /tmp/R",
        "-N 2 -n 2 -g 2 ",
    ),
]


@pytest.mark.parametrize("case", SCRIPT_CASES, ids=lambda case: case.name)
def test_scripts(case: Script) -> None:
    data = scripts(render_one(case.trainjob, case.runtime))
    assert f'hosts = [{{ host = "{case.hosts}" }}]' in data["init.sh"]
    assert 'default_connect = "tcp://%h.job.team.svc.cluster.local:%p"' in data["init.sh"]
    assert f"flux R encode --hosts={case.hosts} {case.encode}" in data["entrypoint.sh"]
    assert '"$(hostname)" == "job-node-0-0"' in data["entrypoint.sh"]
    assert f"flux submit --wait {case.submit}" in data["entrypoint.sh"]


def test_numnodes_sets_the_node_count() -> None:
    assert job_counts(render_one(job().num_nodes(4), flux()))["node"] == (4, 4)


def test_user_env_reaches_the_node_container() -> None:
    env = env_of(jobset_container(render_one(job().num_nodes(1).env(FLUX_QUEUE_POLICY="easy", A="1"), flux()), "node"))
    assert env == {"FLUX_QUEUE_POLICY": "easy", "A": "1"}


def z85_decode(text: str) -> bytes:
    data = b""
    for offset in range(0, len(text), 5):
        value = 0
        for char in text[offset : offset + 5]:
            value = value * 85 + _Z85.index(char)
        data += value.to_bytes(4, "big")
    return data


def test_z85_matches_the_spec_test_vector() -> None:
    assert z85(bytes([0x86, 0x4F, 0xD2, 0x6F, 0xB5, 0x59, 0xF7, 0x5B])) == "HelloWorld"


def curve_keys(manifests: list[dict[str, Any]]) -> dict[str, str]:
    cert = base64.b64decode(by_kind(manifests, "Secret")["data"]["curve.cert"]).decode()
    return dict(re.findall(r'(public-key|secret-key) = "([^"]+)"', cert))


def test_the_curve_secret_is_a_certificate_of_a_matching_key_pair() -> None:
    manifests = render_one(job().num_nodes(1), flux())
    secret = by_kind(manifests, "Secret")
    assert secret["metadata"]["name"] == curve_name(job().build())
    assert 'metadata\n    name = "job"\n' in base64.b64decode(secret["data"]["curve.cert"]).decode()
    keys = curve_keys(manifests)
    public = X25519PrivateKey.from_private_bytes(z85_decode(keys["secret-key"])).public_key().public_bytes(
        serialization.Encoding.Raw, serialization.PublicFormat.Raw
    )
    assert z85_decode(keys["public-key"]) == public


def test_the_curve_key_is_random_without_a_seed() -> None:
    trainjob = job().num_nodes(1).uid("uid-1")
    first, second = (curve_keys(render_one(trainjob, flux(), key_generator=generate_key_pair)) for _ in range(2))
    assert first["secret-key"] != second["secret-key"], "two renders give two keys"


def test_the_curve_key_is_never_derived_from_public_names() -> None:
    """Upstream derives it from sha256(uid); a key anyone can compute from the TrainJob's names is no secret."""
    for options in ({"key_generator": generate_key_pair}, {}):  # random, and the tests' seeded generator
        secret = z85_decode(curve_keys(render_one(job().num_nodes(1).uid("uid-1"), flux(), **options))["secret-key"])
        assert secret not in {hashlib.sha256(seed).digest() for seed in (b"uid-1", b"team/job", b"job")}


def test_a_seed_reproduces_the_curve_key_per_trainjob_and_seed() -> None:
    def key(name: str, seed: str) -> str:
        trainjob = make_trainjob("team", name).runtime_ref("rt").num_nodes(1)
        return curve_keys(render_one(trainjob, flux(), key_generator=seeded_key_generator(seed)))["secret-key"]

    assert key("a", "s") == key("a", "s")
    assert key("a", "s") != key("b", "s")
    assert key("a", "s") != key("a", "t")


def test_an_explicit_curve_key_generator_wins() -> None:
    keys = curve_keys(render_one(job().num_nodes(1), flux(), curve_key_generator=lambda _trainjob: bytes(range(32))))
    assert z85_decode(keys["secret-key"]) == bytes(range(32))


def test_children_are_the_entrypoint_configmap_and_curve_secret() -> None:
    manifests = render_one(job().num_nodes(1), flux())
    trainjob = job().build()
    assert [(m["kind"], m["metadata"]["name"]) for m in manifests] == [
        ("Secret", curve_name(trainjob)),
        ("ConfigMap", entrypoint_name(trainjob)),
        ("JobSet", "job"),
    ]


@pytest.mark.parametrize(("nodes", "want"), [(1, "j-node-0-[0]"), (2, "j-node-0-[0-1]"), (10, "j-node-0-[0-9]")])
def test_hostlist(nodes: int, want: str) -> None:
    assert hostlist("j", nodes) == want


INVALID = [
    Invalid(
        "a runtime node job with its own flux-installer is rejected",
        job().num_nodes(1),
        make_runtime("rt").flux().trainer(initContainers=[container(INSTALLER, "x:1")]),
        "spec.trainer.initContainers",
        "InitContainer 'flux-installer' is reserved",
    ),
    # Upstream dereferences spec.trainer.numNodes unchecked (§7.7); rejecting it is our choice.
    Invalid("flux needs spec.trainer.numNodes", job().image("img"), flux(), "spec.trainer.numNodes", "Required value"),
    Invalid("flux needs spec.trainer", job(), flux(), "spec.trainer.numNodes", "Required value"),
]


@pytest.mark.parametrize("case", INVALID, ids=lambda case: case.name)
def test_validation(case: Invalid) -> None:
    assert_rejected(case)


def test_the_cli_renders_a_random_curve_key_unless_seeded(tmp_path, capsys) -> None:
    import yaml

    from pulumi_kubeflow_trainer.cli import main

    (tmp_path / "flux.yaml").write_text(yaml.safe_dump_all([flux().obj(), job().num_nodes(2).obj()]))

    def render(*extra: str) -> str:
        assert main(["render", "-f", str(tmp_path / "flux.yaml"), *extra]) == 0
        return capsys.readouterr().out

    assert render() != render(), "without --seed every render has its own key"
    assert render("--seed", "s") == render("--seed", "s")


@pytest.mark.parametrize(("trainjob", "policy"), [(job().num_nodes(1).num_proc_per_node(0), {}), (job().num_nodes(1), {"numProcPerNode": 0})])
def test_fewer_than_one_process_per_node_is_refused_as_upstreams_flux_webhook_does(trainjob: TrainJobBuilder, policy: dict[str, Any]) -> None:
    verdict = validate_one(trainjob, flux(**policy))
    assert [error.path for error in verdict.errors] == ["spec.trainer.numProcPerNode"]
    assert "must be greater than or equal to 1 for Flux TrainJob" in verdict.errors[0].message


def test_the_wrapped_command_has_no_trailing_space_for_empty_args() -> None:
    """Upstream trims the joined command (`strings.TrimSpace`)."""
    node = jobset_container(render_one(job().num_nodes(2).args(""), flux()), "node")
    assert node["command"][-1] == "python train.py"
