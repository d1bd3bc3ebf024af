"""Strings made true on one host: DNS names, mount paths and busy ports; payloads left alone."""

from __future__ import annotations

import socket
from dataclasses import dataclass

import pytest

from pulumi_kubeflow_trainer.functions import FunctionPayload
from pulumi_kubeflow_trainer.local.rewrite import PortMap, Rewriter, host_pattern, merge_hostfile
from tests.functions import sample_functions

HOSTS = host_pattern(["demo-node-0-0", "demo-node-0-1", "demo-launcher-0-0"], "demo", "team")
MOUNTS = {"/etc/mpi": "/tmp/w/demo-launcher-0-0/etc/mpi", "/workspace": "/tmp/w/p/workspace", "/workspace/model": "/tmp/w/p/workspace/model"}
REWRITER = Rewriter(HOSTS, MOUNTS, PortMap({29500: 29500, 2222: 40222}))


@dataclass(frozen=True)
class Text:
    name: str
    given: str
    expected: str


TEXTS = [
    Text("a pod's short DNS name becomes the loopback address", "demo-node-0-0.demo", "127.0.0.1"),
    Text("a name with the namespace suffix too", "demo-node-0-1.demo.team", "127.0.0.1"),
    Text("a name with the svc suffix too", "demo-node-0-1.demo.team.svc", "127.0.0.1"),
    Text("a fully qualified name too", "demo-launcher-0-0.demo.team.svc.cluster.local", "127.0.0.1"),
    Text("a name with a port keeps an unmoved port", "--rdzv-endpoint=demo-node-0-0.demo:29500", "--rdzv-endpoint=127.0.0.1:29500"),
    Text("a moved port follows the name", "tcp://demo-node-0-0.demo:2222", "tcp://127.0.0.1:40222"),
    Text("hostfile lines are rewritten one by one", "demo-node-0-0.demo slots=2\ndemo-node-0-1.demo slots=2\n", "127.0.0.1 slots=2\n127.0.0.1 slots=2\n"),
    Text("a longer host that only starts like a pod is left alone", "demo-node-0-10.demo", "demo-node-0-10.demo"),
    Text("a name in another subdomain is left alone", "demo-node-0-0.other", "demo-node-0-0.other"),
    Text("a name in another namespace is left alone", "demo-node-0-0.demo.prod.svc", "demo-node-0-0.demo.prod.svc"),
    Text("a bare hostname is left alone", "demo-node-0-0", "demo-node-0-0"),
    Text("a mount path becomes its local directory", "/etc/mpi/hostfile", "/tmp/w/demo-launcher-0-0/etc/mpi/hostfile"),
    Text("a mount path after an option's equals sign too", "--hostfile=/etc/mpi/hostfile", "--hostfile=/tmp/w/demo-launcher-0-0/etc/mpi/hostfile"),
    Text("the longest mount wins", "/workspace/model/config.json", "/tmp/w/p/workspace/model/config.json"),
    Text("the mount itself is rewritten", "/workspace", "/tmp/w/p/workspace"),
    Text("a path in a PATH-like list is rewritten", "/usr/bin:/workspace/bin", "/usr/bin:/tmp/w/p/workspace/bin"),
    Text("a path that only starts like a mount is left alone", "/workspace2/x", "/workspace2/x"),
    Text("a mount path inside another path is left alone", "/home/etc/mpi/x", "/home/etc/mpi/x"),
]


@pytest.mark.parametrize("case", TEXTS, ids=lambda case: case.name)
def test_text_is_rewritten_for_this_host(case: Text) -> None:
    assert REWRITER.text(case.given) == case.expected


def test_a_function_payload_is_never_rewritten() -> None:
    payload = FunctionPayload.of(sample_functions.echo_what_arrived, {"out_dir": "/etc/mpi", "text": "demo-node-0-0.demo:2222 /workspace"})
    assert REWRITER.text(payload.encoded()) == payload.encoded()


@dataclass(frozen=True)
class EnvCase:
    name: str
    given: dict[str, str]
    expected: dict[str, str]


ENVS = [
    EnvCase("a port variable holding a moved port gets the new one", {"SSH_PORT": "2222"}, {"SSH_PORT": "40222"}),
    EnvCase("a port variable holding an unmoved port stays", {"PET_MASTER_PORT": "29500"}, {"PET_MASTER_PORT": "29500"}),
    EnvCase("another variable holding the number stays", {"WORKERS": "2222"}, {"WORKERS": "2222"}),
    EnvCase("an address variable is rewritten", {"PET_MASTER_ADDR": "demo-node-0-0.demo"}, {"PET_MASTER_ADDR": "127.0.0.1"}),
    EnvCase("a path variable is rewritten", {"HOSTFILE": "/etc/mpi/hostfile"}, {"HOSTFILE": "/tmp/w/demo-launcher-0-0/etc/mpi/hostfile"}),
]


@pytest.mark.parametrize("case", ENVS, ids=lambda case: case.name)
def test_env_values_are_rewritten_for_this_host(case: EnvCase) -> None:
    assert REWRITER.env(case.given) == case.expected


def test_a_busy_port_is_moved_and_a_free_one_kept() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        taken = busy.getsockname()[1]
        ports = PortMap.for_ports([taken])
    assert ports[taken] != taken
    assert ports.moved == {taken: ports[taken]}
    assert ports[12345] == 12345  # a port nobody declared is not mapped


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("127.0.0.1 slots=2\n127.0.0.1 slots=2\n", "127.0.0.1 slots=4\n"),
        ("127.0.0.1 slots=1\nother slots=1\n127.0.0.1 slots=1\n", "127.0.0.1 slots=2\nother slots=1\n"),
        ("a slots=1\nb slots=1\n", "a slots=1\nb slots=1\n"),
        ("#!/bin/bash\necho 127.0.0.1 slots=1\n", "#!/bin/bash\necho 127.0.0.1 slots=1\n"),
    ],
    ids=["one host listed twice gets its slots added up", "other hosts keep their lines", "distinct hosts are left as they are",
         "a file that is not a hostfile is left alone"],
)
def test_a_hostfile_collapsed_onto_one_host_lists_it_once(given: str, expected: str) -> None:
    assert merge_hostfile(given) == expected
