"""load(): YAML text, files, directories, dicts and models to API models; bad input is a TrainerError."""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from pulumi_kubeflow_trainer.api.core import KubeObject
from pulumi_kubeflow_trainer.api.jobset import JobSet
from pulumi_kubeflow_trainer.api.trainjob import TrainJob
from pulumi_kubeflow_trainer.framework.errors import ManifestError, TrainJobInvalidError
from pulumi_kubeflow_trainer.loading import MAX_DEPTH, load
from pulumi_kubeflow_trainer.yamlio import MAX_INPUT, MAX_VALUE_CHARS, MAX_VALUES, dump, load_documents
from tests.builders import make_runtime, make_trainjob

SECRET = "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\n"


def _nested_list(depth: int) -> list[object]:
    sources: list[object] = [SECRET]
    for _ in range(depth):
        sources = [sources]
    return sources



@dataclass(frozen=True)
class Bad:
    name: str
    source: object
    says: str


BAD = [
    Bad("a single long line is YAML text, not a file name", "x" * 5000, "expected a Kubernetes object (a mapping), got str"),
    Bad("a name that is no file is YAML text", "no-such-file.yaml", "document 1: expected a Kubernetes object (a mapping), got str"),
    Bad("invalid YAML names the line and column", "a: [\n", "YAML:2:1: invalid YAML"),
    Bad("a node containing itself through an alias has no JSON form", SECRET + "data: &d {x: *d}\n", "YAML:4:14: data.x: the alias *d refers to an enclosing node"),
    Bad("a list containing itself has no JSON form", SECRET + "data: &l [1, *l]\n", "data[1]: the alias *l refers to an enclosing node"),
    Bad(f"nesting deeper than {MAX_DEPTH} levels is rejected", SECRET + "data: " + "[" * 300 + "]" * 300 + "\n", f"nests deeper than {MAX_DEPTH} levels"),
    Bad("a number is not a source", 42, "cannot load int"),
    Bad("bytes are not a source: files are", b"kind: Secret", "cannot load bytes: decode them to text (YAML is UTF-8)"),
    Bad("a NUL is no YAML character", SECRET + "data: {x: \x00}\n", "YAML:4:11: invalid YAML: the character U+0000: control characters are not allowed"),
    Bad("a lone surrogate is no character", SECRET + "data: {x: \ud800}\n", "YAML:4:11: invalid YAML: the character U+D800 is not a character"),
    Bad("binary is no JSON type", SECRET + "data: {x: !!binary aGk=}\n", "YAML:4:11: data.x: the tag !!binary is not allowed: Kubernetes objects are JSON"),
    Bad("python tags are refused", SECRET + "data: {x: !!python/object/apply:os.system [ls]}\n", "data.x: the tag !!python/object/apply:os.system is not allowed"),
    Bad("local tags are refused", SECRET + "data: !thing {x: y}\n", "YAML:4:7: data: the tag !thing is not allowed"),
    Bad("sets are no JSON type", SECRET + "data: !!set {x}\n", "the tag !!set is not allowed"),
    Bad("a float tag on text names the place", SECRET + "data: {x: !!float abc}\n", "YAML:4:11: data.x: 'abc' is not a valid !!float"),
    Bad("an int tag on a fraction names the place", SECRET + "data: {x: !!int 1.5}\n", "data.x: '1.5' is not a valid !!int"),
    Bad("a null key is no JSON key", SECRET + "data: {~: x}\n", "a mapping key must be a string, not null"),
    Bad("an alias needs its anchor before it", SECRET + "data: {x: *nowhere}\n", "data.x: the alias *nowhere refers to no anchor &nowhere before it"),
    Bad("a merge key takes mappings only", SECRET + "data: {<<: [1]}\n", "data.<<: a merge key (<<) takes a mapping or a list of mappings"),
    Bad("an alias bomb stops at the value limit", SECRET + "".join(f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 10)}]\n" for i in range(1, 9)).replace("*l0", "x"),
        f"more than {MAX_VALUES} values (aliases expanded) in one load: the limit"),
    Bad("a string bomb stops at the string limit", SECRET + "a: &a '" + "x" * 2**20 + "'\nb: [" + ", ".join(["*a"] * 9) + "]\n",
        f"YAML:5:29: b[6]: more than {MAX_VALUE_CHARS >> 20} MiB of strings (aliases expanded) in one load: the limit"),
    Bad("too many documents stop at the value limit", "---\n" * MAX_VALUES, f"YAML:{MAX_VALUES // 2 + 1}:1 (document {MAX_VALUES // 2 + 1}): more than {MAX_VALUES} values"),
    Bad("too much text stops at the input limit", "#" * MAX_INPUT + "\n" + SECRET, f"the input is larger than the limit of {MAX_INPUT >> 20} MiB for one load"),
    Bad("sources nest in lists at most 100 deep", _nested_list(200), f"the sources nest deeper than {MAX_DEPTH} lists"),
    Bad("a dict without kind is named by its name", {"apiVersion": "v1", "metadata": {"name": "x"}}, "?/x: not a Kubernetes object"),
    Bad("a document without apiVersion is not an object", {"kind": "TrainJob"}, "apiVersion and kind are required"),
]


@pytest.mark.parametrize("case", BAD, ids=lambda case: case.name)
def test_bad_sources_are_manifest_errors(case: Bad) -> None:
    with pytest.raises(ManifestError, match=re.escape(case.says)):
        load(case.source)


def test_shared_aliases_that_do_not_nest_are_fine() -> None:
    (secret,) = load(SECRET + "data: {a: &x {k: v}, b: *x}\n")
    assert secret.to_manifest()["data"] == {"a": {"k": "v"}, "b": {"k": "v"}}


def test_empty_documents_are_skipped() -> None:
    assert len(load("---\n---\n" + SECRET + "---\n")) == 1


def test_kinds_pick_their_models_and_others_pass_through() -> None:
    jobset = {"apiVersion": "jobset.x-k8s.io/v1alpha2", "kind": "JobSet", "metadata": {"name": "j"}}
    other_jobset = {"apiVersion": "example.com/v1", "kind": "JobSet", "metadata": {"name": "j"}}
    models = load([make_trainjob().runtime_ref("rt").obj(), jobset, SECRET])
    assert [type(model) for model in models] == [TrainJob, JobSet, KubeObject]
    with pytest.raises(TrainJobInvalidError, match="Unsupported value: JobSet .apiVersion example.com/v1. in JobSet/j: .* JobSet is read only with its own apiVersion"):
        load(other_jobset)


def test_errors_of_every_document_are_reported_with_their_source(tmp_path: Path) -> None:
    path = tmp_path / "two.yaml"
    path.write_text(yaml.safe_dump_all([make_trainjob("team", "a").runtime_ref("rt").num_nodes(2**31).obj(), make_runtime("r").mpi(numProcPerNode=2**31).obj()]))
    with pytest.raises(TrainJobInvalidError) as raised:
        load(path)
    assert [error.describe().split(": ")[0] for error in raised.value.errors] == [f"{path}#1 (TrainJob/a)", f"{path}#2 (ClusterTrainingRuntime/r)"]


def test_directories_are_read_recursively_in_name_order(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "x.yml").write_text(yaml.safe_dump(make_trainjob("team", "second").runtime_ref("rt").obj()))
    (tmp_path / "a.yaml").write_text(yaml.safe_dump(make_trainjob("team", "first").runtime_ref("rt").obj()))
    (tmp_path / "notes.txt").write_text("not yaml: [")
    assert [model.name for model in load(tmp_path)] == ["first", "second"]


def test_models_pass_through_unchanged() -> None:
    model = make_trainjob().runtime_ref("rt").build()
    assert load([model])[0] is model


@dataclass(frozen=True)
class Invalid:
    name: str
    source: object
    says: str  # the first error, described: source, field path and message


def _self_containing() -> dict[str, object]:
    loop: dict[str, object] = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}}
    loop["data"] = loop
    return loop


SECRET_DICT = {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}}
INVALID = [
    Invalid("an integer beyond int64 names its field and place", SECRET + "data: {x: 9223372036854775808}\n",
            "YAML:4:11: data.x: Invalid value: 9223372036854775808: out of range: Kubernetes integers are 64-bit"),
    Invalid("a huge integer is shown short", SECRET + "data: [" + "9" * 100_000 + "]\n", "YAML:4:8: data[0]: Invalid value: 99999999999999999999...(100000 characters): out of range"),
    Invalid("a hex integer beyond int64", SECRET + "data: {x: 0x" + "f" * 17 + "}\n", "data.x: Invalid value: 0xfffffffffffffffff: out of range"),
    Invalid("infinity is no JSON number", SECRET + "data: {x: .inf}\n", "YAML:4:11: data.x: Invalid value: .inf: JSON has no infinity or NaN"),
    Invalid("NaN is no JSON number", SECRET + "data: {x: .NaN}\n", "data.x: Invalid value: .NaN: JSON has no infinity or NaN"),
    Invalid("a decimal integer just beyond int64", SECRET + "data: {x: 1" + "0" * 19 + "}\n", "data.x: Invalid value: 1" + "0" * 19 + ": out of range"),
    Invalid("a dict's integer beyond int64", {**SECRET_DICT, "data": {"x": 2**64}}, "Secret/s: data.x: Invalid value: 65-bit integer: out of range"),
    Invalid("a dict's NaN", {**SECRET_DICT, "data": [float("nan")]}, "Secret/s: data[0]: Invalid value: nan: JSON has no infinity or NaN"),
    Invalid("a dict's tuple", {**SECRET_DICT, "data": (1, 2)}, "Secret/s: data: Invalid value: a tuple: not a JSON value; use a str, int, float, bool, None, list or dict"),
    Invalid("a dict's bytes", {**SECRET_DICT, "data": {"x": b"1"}}, "Secret/s: data.x: Invalid value: a bytes: not a JSON value"),
    Invalid("a dict's integer key", {**SECRET_DICT, "data": {1: "x"}}, "Secret/s: data: Invalid value: 1: a key must be a string"),
    Invalid("a dict's lone surrogate", {**SECRET_DICT, "data": {"x": "\udfff"}}, "Secret/s: data.x: Invalid value: a string with a lone surrogate is not Unicode text"),
    Invalid("a dict that contains itself", _self_containing(), "Secret/s: data" + ".data" * 99 + ": the document nests deeper than 100 levels: the limit"),
    Invalid("a model's integer beyond int64", make_trainjob().runtime_ref("rt").build().model_copy(update={"kind": 10**30}), "?/job: kind: Invalid value: 100-bit integer: out of range"),
]


@pytest.mark.parametrize("case", INVALID, ids=lambda case: case.name)
def test_values_json_cannot_carry_are_field_errors(case: Invalid) -> None:
    with pytest.raises(TrainJobInvalidError) as raised:
        load(case.source)
    assert case.says in raised.value.errors[0].describe()


def test_a_file_that_is_not_utf8_says_which_byte(tmp_path: Path) -> None:
    path = tmp_path / "latin1.yaml"
    path.write_bytes(SECRET.encode() + b"data: {x: caf\xe9}\n")
    with pytest.raises(ManifestError, match=re.escape(f"{path}:4:14: not UTF-8 text: byte 61 (0xe9) invalid continuation byte")):
        load(path)


@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16"])
def test_utf8_with_a_bom_and_utf16_files_load(tmp_path: Path, encoding: str) -> None:
    path = tmp_path / "bom.yaml"
    path.write_bytes((SECRET + "data: {x: café}\n").encode(encoding))
    assert load(path)[0].to_manifest()["data"] == {"x": "café"}


def test_reading_stops_at_the_input_limit_whatever_the_file() -> None:
    with pytest.raises(ManifestError, match=f"^/dev/zero: the input is larger than the limit of {MAX_INPUT >> 20} MiB"):
        load(Path("/dev/zero"))


def test_a_directory_skips_what_is_not_a_regular_file(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.yaml")  # reading it would block until someone writes
    (tmp_path / "secret.yaml").write_text(SECRET)
    assert [model.kind for model in load(tmp_path)] == ["Secret"]


def test_merge_keys_merge_as_in_kubernetes_yaml() -> None:
    text = SECRET + "base: &b {a: base, b: base}\nmore: &m {b: more, c: more}\ndata: {<<: [*m, *b], c: own}\n"
    assert load_documents(text)[0]["data"] == {"b": "more", "a": "base", "c": "own"}


def test_integer_and_boolean_keys_become_strings_as_sigs_k8s_io_yaml_writes_them() -> None:
    assert load_documents("data: {1: a, true: b, 0x10: c}\n") == [{"data": {"1": "a", "true": "b", "16": "c"}}]


def test_documents_are_what_pyyaml_makes_of_every_yaml_file_of_the_repository() -> None:
    class PyYAML(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
        pass

    PyYAML.add_constructor("tag:yaml.org,2002:timestamp", PyYAML.construct_yaml_str)
    repository = Path(__file__).resolve().parents[1]
    paths = sorted(path for folder in ("runtimes", "tests", "stacks", "docs") for path in (repository / folder).rglob("*.y*ml"))
    assert paths
    for path in paths:
        text = path.read_text()
        assert load_documents(text, str(path)) == list(yaml.load_all(text, Loader=PyYAML)), path


def test_quantities_stay_within_int64_and_cost_no_time() -> None:
    started = time.perf_counter()
    for cpu, says in [("1e99999999", "out of range"), ("1e3000000000", "beyond int32"), ("1" * 65, "more than 64 characters")]:
        with pytest.raises(TrainJobInvalidError, match=f"spec.trainer.resourcesPerNode.limits.cpu: .*{says}"):
            load(make_trainjob().runtime_ref("rt").resources(limits={"cpu": cpu}).obj())
    tiny, huge = "1e-99999999", "16Ei"  # a nano at least, as the API server rounds; BinarySI capped at 2^63-1 as it caps it
    (trainjob,) = load(make_trainjob().runtime_ref("rt").resources(limits={"cpu": tiny, "memory": huge}).obj())
    assert trainjob.to_manifest()["spec"]["trainer"]["resourcesPerNode"]["limits"] == {"cpu": "1e-9", "memory": "9223372036854775807"}
    assert time.perf_counter() - started < 1


def test_an_object_named_with_a_newline_is_named_on_one_line() -> None:
    with pytest.raises(TrainJobInvalidError) as raised:
        load(make_trainjob("team", "two\nlines").runtime_ref("rt").obj())
    assert raised.value.errors[0].describe().startswith('TrainJob/"two\\nlines": metadata.name: ')


def test_an_unquoted_exponent_is_a_number_as_sigs_k8s_io_yaml_reads_it() -> None:
    trainjob = make_trainjob().runtime_ref("rt").obj()
    text = yaml.safe_dump(trainjob) + "  trainer:\n    resourcesPerNode:\n      limits:\n        memory: 1e3\n"
    [model] = load(text)
    assert model.spec.trainer.resources_per_node.limits == {"memory": "1k"}


@dataclass(frozen=True)
class Scalar:
    name: str
    text: str
    value: object


# What kubectl sends for each plain scalar: go-yaml v2 (sigs.k8s.io/yaml) resolves it, JSON carries it.
GO_YAML_SCALARS = [
    Scalar("an exponent without a dot is a number", "1e3", 1000),
    Scalar("an unsigned exponent after a fraction is a number", "1.5e9", 1500000000),
    Scalar("an integral float arrives as an integer, as JSON writes it", "2.0", 2),
    Scalar("a fraction stays a float", "1.5", 1.5),
    Scalar("a float beyond int64 stays a float", "1e20", 1e20),
    Scalar("a leading zero with a digit beyond 7 is a decimal float", "09", 9),
    Scalar("a leading zero is octal", "017", 15),
    Scalar("0o is octal", "0o17", 15),
    Scalar("an upper-case hex prefix is hex", "0X1F", 31),
    Scalar("an upper-case binary prefix is binary", "0B11", 3),
    Scalar("underscores between digits are dropped", "1_000", 1000),
    Scalar("a plus sign is allowed", "+5", 5),
    Scalar("a negative zero is zero", "-0.0", 0),
    Scalar("y is true", "y", True),
    Scalar("N is false", "N", False),
    Scalar("off is false", "off", False),
    Scalar("a tilde is null", "~", None),
    Scalar("base 60 is gone: text", "1:30", "1:30"),
    Scalar("a float beyond float64 is text, as ParseFloat fails", "1e400", "1e400"),
    Scalar("a date stays text", "2001-12-14", "2001-12-14"),
    Scalar("a prefix without digits is text", "0b", "0b"),
]


@pytest.mark.parametrize("case", GO_YAML_SCALARS, ids=lambda case: case.name)
def test_plain_scalars_are_what_sigs_k8s_io_yaml_sends(case: Scalar) -> None:
    [document] = load_documents(f"value: {case.text}\n")
    assert document == {"value": case.value} and type(document["value"]) is type(case.value)
    assert load_documents(dump({"text": case.text})) == [{"text": case.text}], "written quoted where it must be"


@pytest.mark.parametrize(
    ("text", "key"),
    [("1.5", "1.5"), ("1e7", "1e+07"), ("2.0", "2"), ("1e-5", "1e-05"), ("0x10", "16"), ("y", "true"), ("1e39", "+Inf")],
)
def test_keys_that_go_yaml_reads_as_numbers_are_written_as_sigs_k8s_io_yaml_writes_them(text: str, key: str) -> None:
    assert load_documents(f"data: {{{text}: x}}\n") == [{"data": {key: "x"}}]
