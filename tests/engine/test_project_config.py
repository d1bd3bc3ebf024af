"""Pulumi.yaml's `config:` declares the keys the example program (stacks/__main__.py) reads, each with a
type, a description and a default (the CLI makes a declared key without a default required). No
engine needed: this reads the files."""

from __future__ import annotations

import re

import yaml

from tests.toolchain import REPO

PROJECT = yaml.safe_load((REPO / "Pulumi.yaml").read_text())
PROGRAM = (REPO / "stacks" / "__main__.py").read_text()
READS = re.compile(r'\bconfig\.get(?:_bool|_int|_float|_object|_secret)?\(\s*"([A-Za-z0-9_]+)"')
# Left undeclared on purpose, and described in a comment of Pulumi.yaml instead: any default would change
# what the program does when they are unset (the TrainJobs' numNodes and suspend as written, the
# example's own deployRuntimes choice, the runtimes as bundled, no re-run or move).
OPTIONAL = {"numNodes", "suspend", "deployRuntimes", "runtimeImage", "run", "runtimePin"}
TYPES = {"string": str, "integer": int, "boolean": bool}


def test_every_key_the_program_reads_is_declared_or_documented_as_optional():
    read = set(READS.findall(PROGRAM))
    assert {"example", "namespace", "renderDir"} <= read, "the pattern still finds the program's reads"
    assert read - set(PROJECT["config"]) - OPTIONAL == set()
    text = (REPO / "Pulumi.yaml").read_text()
    for key in OPTIONAL & read:
        assert re.search(rf"^#\s+{key}\s", text, re.M), f"Pulumi.yaml's comment describes {key}"


def test_every_declared_key_has_a_type_a_description_and_a_default_of_that_type():
    for key, declaration in PROJECT["config"].items():
        assert declaration.get("description"), f"{key} has a description"
        assert "default" in declaration, f"{key} has a default (else every stack must set it)"
        assert isinstance(declaration["default"], TYPES[declaration["type"]]), f"{key}'s default is a {declaration['type']}"


def test_the_example_stacks_set_only_keys_the_project_knows():
    project = PROJECT["name"]
    for path in sorted((REPO / "stacks").glob("Pulumi.*.yaml")):
        for key in (yaml.safe_load(path.read_text()) or {}).get("config", {}):
            namespace, _, name = key.partition(":")
            if namespace == project:
                assert name in PROJECT["config"] or name in OPTIONAL, f"{path.name} sets {key}, which Pulumi.yaml does not describe"
