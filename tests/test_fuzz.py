"""Hostile input: seeded mutations of real inputs through load -> render -> dump, and the CLI.

Every case must end in output or in a documented error (a TrainerError) that says where the problem
is, within a time bound, and the run's peak memory must stay bounded; every tenth case also goes
through the CLI, and another tenth through `trainjob run-local`'s reading up to its plan. The mutations start from the
bundled runtimes and TrainJobs for them: bytes flipped, inserted, cut; YAML tags, alias and merge-key
bombs, deep nesting, huge numbers and strings, many documents, odd Unicode; wrong types at random
field paths of the dicts and models. KFT_FUZZ_CASES (default 2000) and KFT_FUZZ_SEED (default 0)
choose the run; the same seed gives the same cases.
"""

from __future__ import annotations

import contextlib
import io
import os
import random
import re
import resource
import time
import warnings
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from pulumi_kubeflow_trainer.api.trainjob import TrainJob
from pulumi_kubeflow_trainer.blueprints import runtimes_dir
from pulumi_kubeflow_trainer.cli import main
from pulumi_kubeflow_trainer.framework.errors import TrainerError, TrainJobInvalidError
from pulumi_kubeflow_trainer.local.inputs import prepare_manifests
from pulumi_kubeflow_trainer.local.plan import LocalRunError, plan_jobset
from pulumi_kubeflow_trainer.rendering import render
from pulumi_kubeflow_trainer.ssh import seeded_key_generator
from pulumi_kubeflow_trainer.status import compute_status
from pulumi_kubeflow_trainer.yamlio import MAX_INPUT, MAX_VALUES, dump_all, load_documents, plain_key, plain_scalar
from tests.builders import make_trainjob

CASES = int(os.environ.get("KFT_FUZZ_CASES", "2000"))
SEED = int(os.environ.get("KFT_FUZZ_SEED", "0"))
# The bound a case must keep, in CPU seconds of this process (the library runs in it): what an input
# costs, not how busy the machine is (wall time on a loaded 2-core CI machine is 3-4x that).
SECONDS_PER_CASE = 1.0
NOISE = 3.0  # on top, for the timer and the interpreter's own pauses (GC)
PEAK_MEMORY = 256 * 2**20
CLI_EVERY = 10  # every tenth case also goes through `trainjob render|validate|status`
KEYS = seeded_key_generator("fuzz")
# numNodes, replicas and parallelism make one endpoint string per pod (plugins/jobset.py), up to
# Kubernetes' 100,000 pods per Indexed Job; the fuzzer tries both sides of that limit.
COUNTS = {"numNodes", "replicas", "parallelism", "completions"}

RUNTIMES = {path.stem: path.read_text() for path in sorted(runtimes_dir().glob("*.yaml"))}


def _trainjobs() -> list[tuple[dict[str, Any], str]]:
    """A TrainJob for every bundled runtime, each with a few of the fields users set."""
    jobs = []
    for index, name in enumerate(RUNTIMES):
        job = make_trainjob("team", f"job-{index}").runtime_ref(name).num_nodes(1 + index % 3)
        if index % 2:
            job.env(EPOCHS="3", LR="0.01").resources(limits={"cpu": "2", "memory": "4Gi", "nvidia.com/gpu": 1})
        if index % 3 == 0:
            job.dataset("hf://datasets/org/data").model("hf://org/model", secret="hf-token")
        if index % 4 == 1:
            job.runtime_patch("example.com/manager", labels={"team": "a"}).suspend(index % 8 == 1)
        jobs.append((job.obj(), name))
    return jobs


TRAINJOBS = _trainjobs()
JOBSET = {
    "apiVersion": "jobset.x-k8s.io/v1alpha2",
    "kind": "JobSet",
    "metadata": {"name": "job-0", "namespace": "team"},
    "status": {
        "conditions": [{"type": "Completed", "status": "True", "reason": "AllJobsCompleted", "message": "done", "lastTransitionTime": "2026-01-01T01:00:00Z"}],
        "replicatedJobsStatus": [{"name": "node", "ready": 1, "succeeded": 1, "failed": 0, "active": 0, "suspended": 0}],
    },
}


@dataclass
class Case:
    number: int
    sources: list[Any]  # YAML texts, paths of files, dicts and models: what load() and render() take
    mutations: list[str] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)  # the files among the sources, for the CLI


# Text mutations: (text, rng) -> text. Values are replaced on lines `key: value` or `- value`.
VALUE_LINE = re.compile(r"^(?P<lead>[ \t]*(?:- )?(?:(?P<key>[\w.\-/]+): )?)(?P<value>[^\s#].*)$", re.M)
TAGS = ["!!binary", "!!python/object/apply:os.system", "!!python/name:os.getcwd", "!!set", "!!omap", "!!pairs",
        "!!timestamp", "!!merge", "!!value", "!foo", "!", "!!str", "!!int", "!!float", "!!bool", "!!null", "!!map", "!!seq",
        "!<tag:yaml.org,2002:int>", "!<tag:example.com,2026:x>"]
ODD_VALUES = ["'1e99999999'", "1e-99999999", "'9Ei'", "'0.5Ki'", "x" * 300, "[1, 2]", "{a: b}", "true", "null", "~", "3.5", "-1", "0", "''", "0x1F", "017", "1:30", "0b_", "0x_", "+.5",
              "2020-01-01", "=", "<<", "*nowhere", "&a x", "[*a]", "? a", "- a", "|\n  x", ">-", "'unterminated", '"\\x00"',
              '"\\ud800"', "!!float abc", '!!int "12"', "!!int 1.5", "!!bool maybe", "!!null x", "1e400", "-.inf", ".NaN",
              "9223372036854775807", "-9223372036854775808", "9223372036854775808", "-9223372036854775809"]
NOISE_CHARS = ["\x00", "\x01", "\x1b", "\x7f", "\x85", "\x9f", "\ufeff", "\u2028", "\u202e", "\u0301", "é", "😀", "\ud800",
               "\udfff", "\ufffe", "\t", "\r", "\r\n", ":", "- ", "{", "}", "[", "]", "&", "*", "!", "|", ">", "'", '"', "%", "@", "`"]


def _replace_value(text: str, rng: random.Random, value: Callable[[str], str]) -> str:
    lines = list(VALUE_LINE.finditer(text))
    if not lines:
        return text + value("") + "\n"
    line = rng.choice(lines)
    return text[: line.start("value")] + value(line["key"] or "") + text[line.end("value") :]


def _number(key: str, rng: random.Random) -> str:
    if key in COUNTS:
        return str(rng.choice([0, 1, 2, 1000, 100_000, 100_001, 2**31 - 1, -1]))
    return rng.choice(["9223372036854775807", "9223372036854775808", "-9223372036854775809", str(10**30),
                       "1" * rng.choice([20, 400, 4301, 100_000]), "0x" + "f" * 17, "0b" + "1" * 64, "1:" * 12 + "1",
                       "1.0e+400", ".inf", "-.Inf", ".nan", "1_000_000", "0." + "0" * 5000 + "1"])


def tag(text: str, rng: random.Random) -> str:
    return _replace_value(text, rng, lambda key: f"{rng.choice(TAGS)} {rng.choice(['abc', '12', '1.5', 'aGk=', '[1]', '{a: 1}', ''])}")


def odd_value(text: str, rng: random.Random) -> str:
    return _replace_value(text, rng, lambda key: rng.choice(ODD_VALUES))


def huge_number(text: str, rng: random.Random) -> str:
    return _replace_value(text, rng, lambda key: _number(key, rng))


def deep_nesting(text: str, rng: random.Random) -> str:
    depth = rng.choice([50, 99, 100, 101, 500, 999, 1001, 5000])
    shape = rng.choice(["[", "{a: ", "- "])
    closing = {"[": "]", "{a: ": "}", "- ": ""}[shape]
    return _replace_value(text, rng, lambda key: shape * depth + "1" + closing * depth)


def huge_string(text: str, rng: random.Random) -> str:
    size = rng.choice([1000, 100_000, 2**20, MAX_INPUT // 2, MAX_INPUT + 1])
    return _replace_value(text, rng, lambda key: "'" + rng.choice("ax") * size + "'")


def alias_bomb(text: str, rng: random.Random) -> str:
    width, levels = rng.randint(2, 10), rng.randint(2, 12)
    merge = rng.random() < 0.3
    lines = ["x-lol0: &lol0 {a: b}" if merge else f"x-lol0: &lol0 [{', '.join(['lol'] * width)}]"]
    for level in range(1, levels + 1):
        refs = ", ".join([f"*lol{level - 1}"] * width)
        lines.append(f"x-lol{level}: &lol{level} {{<<: [{refs}], k{level}: v}}" if merge else f"x-lol{level}: &lol{level} [{refs}]")
    return text.rstrip("\n") + "\n" + "\n".join(lines) + "\n"


def merge_keys(text: str, rng: random.Random) -> str:
    base = "x-base: &base {image: 'merged:1', numNodes: 2}\n"
    return base + _replace_value(text, rng, lambda key: rng.choice(["{<<: *base}", "{<<: [*base, *base], z: 1}", "{<<: 1}", "*base"]))


def many_documents(text: str, rng: random.Random) -> str:
    count = rng.choice([10, 1000, MAX_VALUES // 2 - 5, MAX_VALUES])
    return rng.choice(["---\n", "--- {}\n", "--- ~\n", "--- x\n"]) * count + text


def unicode_noise(text: str, rng: random.Random) -> str:
    for _ in range(rng.randint(1, 5)):
        at = rng.randrange(len(text) + 1)
        text = text[:at] + rng.choice(NOISE_CHARS) + text[at:]
    return text


def cut(text: str, rng: random.Random) -> str:
    start = rng.randrange(len(text) + 1)
    return text[:start] + text[start + rng.randint(1, 200) :] if rng.random() < 0.5 else text[:start]


def repeat(text: str, rng: random.Random) -> str:
    start = rng.randrange(len(text) + 1)
    piece = text[start : start + rng.randint(1, 400)]
    return text[:start] + piece * rng.choice([2, 3, 100]) + text[start:]


# Valid variations, so that accepted input reaches render and dump in many shapes.
TRICKY_STRINGS = ['"\\x01\\u2028\\ufeff\\U0001F600 x"', '"tab\\tand\\r\\nbreaks"', "'trailing space '", '"\\\\ # not a comment"',
                  "|\n    two\n    lines\n", ">-\n    folded\n    text\n", "'quote '' inside'", '"NUL \\0 inside"', "'é ü 日本 🚀'"]


def tricky_string(text: str, rng: random.Random) -> str:
    return _replace_value(text, rng, lambda key: rng.choice(TRICKY_STRINGS))


def restyle(text: str, rng: random.Random) -> str:
    """The same documents in another YAML style: flow or block, canonical (explicit !!tags), narrow lines."""
    try:
        documents = list(yaml.safe_load_all(text))
    except Exception:  # noqa: BLE001 - PyYAML fails on some mutated text in its own ways (KeyError on `!!bool ""`)
        return text
    styled = yaml.safe_dump_all(documents, default_flow_style=rng.choice([True, False, None]), canonical=rng.random() < 0.3,
                                width=rng.choice([12, 80, 4096]), indent=rng.choice([2, 4, 7]), allow_unicode=rng.random() < 0.5,
                                explicit_start=rng.random() < 0.5, sort_keys=rng.random() < 0.5)
    return styled.replace("\n", "\r\n") if rng.random() < 0.2 else "\ufeff" + styled if rng.random() < 0.1 else styled


def shared_anchors(text: str, rng: random.Random) -> str:
    """Anchors, aliases and merge keys used as people use them: a block defined once, used twice."""
    return text.replace("metadata:\n", "metadata:\n  labels: &labels {team: a, app: x}\n  annotations: {<<: *labels, note: y}\n", 1)


TEXT_MUTATIONS: list[tuple[Callable[[str, random.Random], str], int]] = [
    (tag, 6), (odd_value, 10), (huge_number, 6), (deep_nesting, 3), (huge_string, 1), (alias_bomb, 3),
    (merge_keys, 3), (many_documents, 1), (unicode_noise, 6), (cut, 5), (repeat, 3),
    (tricky_string, 6), (restyle, 10), (shared_anchors, 4),
]


# Byte mutations: the result is a file, as only files carry bytes (load() takes text, not bytes).
def flip_bytes(data: bytes, rng: random.Random) -> bytes:
    raw = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        if raw:
            raw[rng.randrange(len(raw))] ^= 1 << rng.randrange(8)
    return bytes(raw)


def insert_bytes(data: bytes, rng: random.Random) -> bytes:
    at = rng.randrange(len(data) + 1)
    noise = rng.choice([bytes([rng.randrange(256)]), b"\xff\xfe", b"\xc3", b"\xed\xa0\x80", b"\xef\xbb\xbf", b"\x00" * 3, os.urandom(16)])
    return data[:at] + noise + data[at:]


def re_encode(data: bytes, rng: random.Random) -> bytes:
    text = data.decode("utf-8", "replace")
    return rng.choice([text.encode("utf-16"), text.encode("utf-16-le"), text.encode("utf-32"), b"\xef\xbb\xbf" + data, text.encode("latin-1", "replace")])


BYTE_MUTATIONS: list[tuple[Callable[[bytes, random.Random], bytes], int]] = [(flip_bytes, 4), (insert_bytes, 4), (re_encode, 1)]


# Dict mutations: a wrong value at a random field path, passed as a dict or, when it validates, a model.
def _self_containing() -> dict[str, Any]:
    loop: dict[str, Any] = {"a": 1}
    loop["self"] = loop
    return loop


def _deep(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(depth):
        value = {"a": value}
    return value


WRONG_VALUES: list[Callable[[], Any]] = [
    lambda: None, lambda: True, lambda: 0, lambda: -1, lambda: 2**63 - 1, lambda: 2**63, lambda: -(2**63) - 1, lambda: 10**5000,
    lambda: 1.5, lambda: float("inf"), lambda: float("nan"), lambda: "", lambda: "x" * 10_000, lambda: "\ud800", lambda: "\x00",
    lambda: [], lambda: {}, lambda: [1, "a"], lambda: {"a": 1}, lambda: {1: "a"}, lambda: (1, 2), lambda: {1, 2}, lambda: b"bytes",
    lambda: object(), lambda: _deep(150), _self_containing,
]


def _random_path(document: Any, rng: random.Random) -> tuple[Any, Any]:
    """(container, key) of a random field, descending from the document's top."""
    container, key = document, rng.choice(list(document))
    while isinstance(container[key], (dict, list)) and container[key] and rng.random() < 0.75:
        container = container[key]
        key = rng.choice(list(container)) if isinstance(container, dict) else rng.randrange(len(container))
    return container, key


def wrong_value(document: dict[str, Any], rng: random.Random) -> str:
    container, key = _random_path(document, rng)
    value = rng.choice(WRONG_VALUES)()
    container[key] = value
    return f"wrong_value({key}={type(value).__name__})"


def _pick(rng: random.Random, weighted: list[tuple[Any, int]]) -> Any:
    return rng.choices([item for item, _ in weighted], weights=[weight for _, weight in weighted])[0]


def make_case(number: int, rng: random.Random, directory: Path) -> Case:
    trainjob, runtime_name = rng.choice(TRAINJOBS)
    texts = [yaml.safe_dump(trainjob, sort_keys=False), RUNTIMES[runtime_name]]
    if rng.random() < 0.1:
        texts.append(yaml.safe_dump(JOBSET, sort_keys=False))
    target = rng.randrange(len(texts))
    case = Case(number, list(texts))
    kind = rng.random()
    if kind < 0.65:
        for _ in range(rng.choices([1, 2, 3], weights=[7, 2, 1])[0]):
            mutation = _pick(rng, TEXT_MUTATIONS)
            case.sources[target] = mutation(case.sources[target], rng)
            case.mutations.append(mutation.__name__)
    elif kind < 0.8:
        mutation = _pick(rng, BYTE_MUTATIONS)
        path = directory / f"case-{number}.yaml"
        path.write_bytes(mutation(texts[target].encode("utf-8"), rng))
        case.sources[target], case.mutations = path, [mutation.__name__]
    else:
        document = yaml.safe_load(texts[target])
        case.mutations.append(wrong_value(document, rng))
        case.sources[target] = _as_model(document) if rng.random() < 0.3 else document
    return case


def _as_model(document: dict[str, Any]) -> Any:
    """The document as a model when it validates (models built in Python may hold what YAML cannot)."""
    try:
        return TrainJob.model_validate(document) if document.get("kind") == "TrainJob" else document
    except Exception:  # noqa: BLE001 - not a valid TrainJob: the dict it is
        return document


# Running a case and judging the outcome.
# A file or text position, a document, or the object's kind/name (a dict has no file).
LOCATED = re.compile(r"^(?:YAML|document \d+|[^\s:]+:\d+:\d+|\S+\.ya?ml|[\w.?-]+/[^\s:]*[:\s])")
class _Plain(str):
    """A plain scalar's text, resolved below as sigs.k8s.io/yaml resolves it (tests/test_loading.py pins that rule)."""


# PyYAML's SafeLoader for the structure (documents, anchors, merge keys), with plain scalars left as
# text: what documents are built of, the oracle for valid YAML.
class _PyYAML(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    def resolve(self, kind: Any, value: str, implicit: tuple[bool, bool]) -> str:
        if kind is yaml.ScalarNode and implicit[0] and value != "<<":
            return "!plain"
        return str(super().resolve(kind, value, implicit))


_PyYAML.add_constructor("!plain", lambda loader, node: _Plain(node.value))


@dataclass
class Outcome:
    error: BaseException | None
    seconds: float


def run_library(case: Case) -> Outcome:
    started = time.process_time()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            dump_all(render(case.sources, key_generator=KEYS))
            _status(case.sources)
    except Exception as error:  # noqa: BLE001 - judged below: only documented errors may escape
        return Outcome(error, time.process_time() - started)
    return Outcome(None, time.process_time() - started)


def _rendered_jobsets() -> list[str]:
    """`trainjob render` output of each TrainJob that renders: what `trainjob run-local` also reads."""
    rendered = []
    for job, name in TRAINJOBS:
        with contextlib.suppress(TrainJobInvalidError), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rendered.append(dump_all(render([job, RUNTIMES[name]], key_generator=KEYS)))
    assert len(rendered) >= len(TRAINJOBS) // 2, "most seeds render"
    return rendered


def run_local_inputs(case: Case) -> str:
    """A mutated `trainjob render` output as `trainjob run-local` reads it, up to the plan of its Pods
    (nothing is started). Its own generator, so the other cases stay what the seed makes them."""
    rng = random.Random(f"{SEED}-run-local-{case.number}")
    text = rng.choice(RENDERED_JOBSETS)
    if rng.random() < 0.7:
        mutation = _pick(rng, TEXT_MUTATIONS)
        source: Any = mutation(text, rng)
        described = mutation.__name__
    else:
        source = [doc for doc in yaml.safe_load_all(text) if doc]
        described = wrong_value(rng.choice(source), rng)
    started = time.process_time()
    try:
        plan_jobset(prepare_manifests(source))
    except LocalRunError as error:  # about the whole input (no JobSet, several TrainJobs): it names what it found
        outcome = Outcome(None if "found" in str(error) else error, time.process_time() - started)
    except Exception as error:  # noqa: BLE001 - judged below: only documented errors may escape
        outcome = Outcome(error, time.process_time() - started)
    else:
        outcome = Outcome(None, time.process_time() - started)
    found = problem(case, outcome)
    return f"run-local after {described}: {found}" if found else ""


RENDERED_JOBSETS = _rendered_jobsets()


def _status(sources: list[Any]) -> None:
    """compute_status over the dicts as given (the CLI's own path goes through load first)."""
    documents = [source for source in sources if isinstance(source, dict)]
    if documents:
        compute_status(documents[0], JOBSET, runtime_supported=True, now=_NOW)


_NOW = __import__("datetime").datetime(2026, 1, 2, tzinfo=__import__("datetime").timezone.utc)


def problem(case: Case, outcome: Outcome) -> str:
    """What is wrong with this outcome, or "" when it is fine."""
    if outcome.seconds > SECONDS_PER_CASE * NOISE:
        return f"took {outcome.seconds:.2f} CPU s"
    error = outcome.error
    if error is None:
        return ""
    if not isinstance(error, TrainerError):
        return f"undocumented {type(error).__name__}: {str(error)[:300]}"
    if isinstance(error, TrainJobInvalidError):
        unlocated = [line for line in (field.describe() for field in error.errors) if not (LOCATED.match(line) or ":" in line.split(" ")[0])]
        return f"field error without a location: {unlocated[0][:300]}" if unlocated else ""
    return "" if LOCATED.match(str(error)) else f"error without a location: {str(error)[:300]}"


def same_as_pyyaml(case: Case) -> str:
    """Documents of valid YAML are what PyYAML's SafeLoader made of them (keys as sigs.k8s.io/yaml writes them)."""
    for source in case.sources:
        if not isinstance(source, str) or len(source) > 200_000:
            continue
        try:
            ours = load_documents(source)
        except TrainerError:
            continue
        try:
            theirs = list(yaml.load_all(source, Loader=_PyYAML))
        except Exception:  # noqa: BLE001 - PyYAML refuses some text we read (`=`, `0b_`, duplicate anchors)
            continue
        if ours != _json_keys(theirs):
            return f"differs from PyYAML: {str(ours)[:200]} != {str(theirs)[:200]}"
    return ""


def _json_keys(value: Any) -> Any:
    if isinstance(value, dict):
        return {_json_key(key): _json_keys(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_json_keys(item) for item in value]
    return plain_scalar(str(value)) if type(value) is _Plain else value


def _json_key(key: Any) -> Any:
    if type(key) is _Plain:
        return plain_key(str(key))
    return ("true" if key else "false") if type(key) is bool else str(key) if type(key) is int else key


def run_cli(case: Case, directory: Path) -> str:
    """The case through `trainjob render|validate|status`: exit 0 or 1, `error:` lines, never an internal error."""
    paths = [_as_file(source, directory / f"cli-{case.number}-{index}.yaml") for index, source in enumerate(case.sources)]
    if None in paths:
        return ""
    command = ["render", "validate", "status"][case.number // CLI_EVERY % 3]
    argv = [command, *[part for path in paths for part in ("-f", str(path))]] + (["--seed", "fuzz"] if command == "render" else [])
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = main(argv)
    errors = [line for line in err.getvalue().splitlines() if not line.startswith("warning: ")]
    if code not in (0, 1) or any(not line.startswith("error: ") for line in errors):
        return f"`trainjob {command}` exited {code}: {err.getvalue()[:300]}"
    if code == 1 and not errors and not out.getvalue().strip():
        return f"`trainjob {command}` failed without saying why"
    return ""


def _as_file(source: Any, path: Path) -> Path | None:
    if isinstance(source, Path):
        return source
    try:
        text = source if isinstance(source, str) else yaml.safe_dump(source if isinstance(source, dict) else source.to_manifest())
        path.write_text(text, encoding="utf-8")
    except Exception:  # noqa: BLE001 - no YAML form (a set, bytes, a surrogate): the library path covered it
        return None
    return path


def _peak_rss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux


@dataclass
class Tally:
    errors: Counter[str] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)
    slowest: float = 0.0

    def add(self, case: Case, outcome: Outcome, *found: str) -> None:
        self.errors[type(outcome.error).__name__ if outcome.error else "ok"] += 1
        self.slowest = max(self.slowest, outcome.seconds)
        self.problems += [f"case {case.number} {case.mutations}: {text}" for text in found if text]


def test_hostile_input_ends_in_documented_errors_with_locations(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    baseline, tally = _peak_rss(), Tally()
    for number in range(CASES):
        case = make_case(number, rng, tmp_path)
        outcome = run_library(case)
        tally.add(case, outcome, problem(case, outcome), same_as_pyyaml(case), run_cli(case, tmp_path) if number % CLI_EVERY == 0 else "",
                  run_local_inputs(case) if number % CLI_EVERY == CLI_EVERY // 2 else "")
    growth = _peak_rss() - baseline
    print(f"\n{CASES} cases (seed {SEED}): {dict(tally.errors.most_common())}; slowest {tally.slowest:.3f} CPU s; peak RSS growth {growth >> 20} MiB")
    assert not tally.problems, f"{len(tally.problems)} of {CASES} cases:\n" + "\n".join(tally.problems[:20])
    assert growth < PEAK_MEMORY, f"peak memory grew by {growth >> 20} MiB (limit {PEAK_MEMORY >> 20} MiB)"
