"""YAML in and out, with libyaml when PyYAML has it (it is several times faster).

Kubernetes turns YAML into JSON before it decodes it (sigs.k8s.io/yaml), so a document here holds
only what JSON holds: mappings with string keys, lists, strings, 64-bit integers, finite floats,
booleans and null. Documents are built straight from the parser's events, in one pass and without
recursion, and the limits below are checked as the events arrive, before anything big is built: any
text costs bounded time and memory, and every refusal says where it is (`file:line:column`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import yaml
from yaml.events import (
    AliasEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)

from .framework.errors import FieldError, ManifestError, TrainJobInvalidError

MAX_INPUT = 8 * 2**20
"""Characters (bytes of files) of all the YAML one `load()` reads: the API server takes 3 MiB per object."""
MAX_VALUES = 50_000
"""Values (scalars, lists, mappings, documents) of one `load()`, aliases expanded; a runtime has ~150."""
MAX_VALUE_CHARS = 8 * 2**20
"""Characters of the string values of one `load()`, aliases expanded: what an alias may copy."""
MAX_DEPTH = 100
"""Nested lists and mappings; a JobSet template nests about 15 levels."""


@dataclass
class Budget:
    """What is left of the limits for one `load()`: every text, file and dict it is given, together."""

    text: int = MAX_INPUT
    values: int = MAX_VALUES
    chars: int = MAX_VALUE_CHARS

    def spend_text(self, size: int, name: str) -> None:
        self.text -= size
        if self.text < 0:
            raise ManifestError(f"{name or 'YAML'}: the input is larger than the limit of {MAX_INPUT >> 20} MiB for one load")

    def overspent(self) -> str:
        """Why the budget is exhausted, or "" when it is not."""
        if self.values < 0:
            return f"more than {MAX_VALUES} values (aliases expanded) in one load: the limit"
        if self.chars < 0:
            return f"more than {MAX_VALUE_CHARS >> 20} MiB of strings (aliases expanded) in one load: the limit"
        return ""


class ScalarProblem(Exception):
    """A scalar JSON cannot carry; `field_error` when it is a bad value rather than bad YAML."""

    def __init__(self, message: str, *, field_error: bool) -> None:
        super().__init__(message)
        self.field_error = field_error


MERGE = object()
"""A plain `<<`: a merge key where a key may be, else the string "<<"."""
INT64 = (-(2**63), 2**63 - 1)
_OUT_OF_RANGE = "out of range: Kubernetes integers are 64-bit (-9223372036854775808 to 9223372036854775807)"
_RESOLVERS = yaml.resolver.Resolver.yaml_implicit_resolvers
_BOOLS = {"yes": True, "no": False, "true": True, "false": False, "on": True, "off": False}


def plain_scalar(text: str) -> Any:
    """An untagged, unquoted scalar, resolved as PyYAML's SafeLoader does (YAML 1.1); timestamps stay strings."""
    for tag, pattern in _RESOLVERS.get(text[:1], ()):
        if pattern.match(text):
            return _PLAIN[tag](text)
    return text


def explicit_scalar(tag: str, text: str) -> Any:
    """A scalar with a tag: only JSON's types, and the text must be one of the tag's values."""
    convert = _EXPLICIT.get(tag)
    if convert is None:
        raise ScalarProblem(f"the tag {_short(tag)} is not allowed: {_ALLOWED_TAGS}", field_error=False)
    value = convert(text)
    if value is _NOT_OF_TAG:
        raise ScalarProblem(f"{_excerpt(text)!r} is not a valid {_short(tag)}", field_error=False)
    return value


def _int(text: str) -> Any:
    """PyYAML's integers (0b1010, 0x1F, 017, 1:30, 1_000) within int64; digit-less ones are strings."""
    digits = text.replace("_", "")
    sign = -1 if digits[:1] == "-" else 1
    digits = digits.lstrip("+-")
    if ":" in digits:
        return sign * _sexagesimal(digits, text)
    base = 2 if digits[:2] == "0b" else 16 if digits[:2] == "0x" else 8 if digits[:1] == "0" else 10
    digits = (digits[2:] if base in (2, 16) else digits).lstrip("0") or ("0" if digits not in ("0b", "0x") else "")
    if not digits:
        return text  # `0b_`: no digits, so not a number; sigs.k8s.io/yaml reads such text as a string
    if len(digits) > 64:  # beyond int64 in any base; also keeps int() within Python's digit limit
        raise _out_of_range(text)
    return _within_int64(sign * int(digits, base), text)


def _sexagesimal(digits: str, text: str) -> int:
    parts = digits.split(":")
    if len(parts) > 12 or len(parts[0]) > 64:  # the first part is at least 1, and 60**11 > 2**63
        raise _out_of_range(text)
    value = 0
    for part in parts:
        value = value * 60 + int(part)
    return _within_int64(value, text)


def _within_int64(value: int, text: str) -> int:
    if not INT64[0] <= value <= INT64[1]:
        raise _out_of_range(text)
    return value


def _float(text: str) -> Any:
    """PyYAML's floats (1.5, -.5, 1.0e+3, 1:30.5), finite ones only: JSON has no infinity or NaN."""
    value = text.replace("_", "").lower()
    sign = -1.0 if value[:1] == "-" else 1.0
    value = value.lstrip("+-")
    if value in (".inf", ".nan"):
        raise ScalarProblem(f"Invalid value: {text}: JSON has no infinity or NaN; give a finite number", field_error=True)
    if ":" in value:
        parts = value.split(":")
        if len(parts) > 12:
            raise _out_of_range(text)
        number = 0.0
        for part in parts:
            number = number * 60 + float(part)
    else:
        try:
            number = float(value)
        except ValueError:  # matched the YAML pattern but is no Python float: text, as goyaml reads it
            return text
    if not math.isfinite(number):
        raise ScalarProblem(f"Invalid value: {_excerpt(text)}: out of range of a float64", field_error=True)
    return sign * number


def _out_of_range(text: str) -> ScalarProblem:
    return ScalarProblem(f"Invalid value: {_excerpt(text)}: {_OUT_OF_RANGE}", field_error=True)


def _excerpt(text: str) -> str:
    return text if len(text) <= 40 else f"{text[:20]}...({len(text)} characters)"


def _tag_patterns(tag: str) -> tuple[Any, ...]:
    return tuple(dict.fromkeys(pattern for resolvers in _RESOLVERS.values() for found, pattern in resolvers if found == tag))


def _of_tag(tag: str, text: str) -> bool:
    return any(pattern.match(text) for pattern in _PATTERNS[tag])


def _explicit_int(text: str) -> Any:
    value = _int(text) if _of_tag(_Y + "int", text) else None
    return value if type(value) is int else _NOT_OF_TAG


def _explicit_float(text: str) -> Any:
    """`!!float 1.5`, and integers too (`!!float 2` is 2.0), as in the YAML core schema."""
    if _of_tag(_Y + "float", text):
        value = _float(text)
    else:
        value = _explicit_int(text)
    return float(value) if type(value) in (int, float) else _NOT_OF_TAG


def _explicit(tag: str, convert: Callable[[str], Any]) -> Callable[[str], Any]:
    return lambda text: convert(text) if _of_tag(tag, text) else _NOT_OF_TAG


_NOT_OF_TAG = object()
_Y = "tag:yaml.org,2002:"
_PATTERNS = {tag: _tag_patterns(tag) for tag in (_Y + "null", _Y + "bool", _Y + "int", _Y + "float")}
_PLAIN: dict[str, Callable[[str], Any]] = {
    _Y + "null": lambda text: None,
    _Y + "bool": lambda text: _BOOLS[text.lower()],
    _Y + "int": _int,
    _Y + "float": _float,
    _Y + "merge": lambda text: MERGE,
    _Y + "timestamp": str,  # as in Kubernetes, where YAML becomes JSON before it is decoded
    _Y + "value": str,
    _Y + "yaml": str,
}
_EXPLICIT: dict[str, Callable[[str], Any]] = {
    _Y + "str": str,
    _Y + "null": _explicit(_Y + "null", lambda text: None),
    _Y + "bool": _explicit(_Y + "bool", lambda text: _BOOLS[text.lower()]),
    _Y + "int": _explicit_int,
    _Y + "float": _explicit_float,
}


_Parser = getattr(getattr(yaml, "cyaml", None), "CParser", None) or yaml.SafeLoader
_NO_KEY = object()
_PLAIN_SEEN: dict[str, Any] = {}  # plain scalar text -> its value (immutable: str, int, float, bool, None)
_TAGS = {MappingStartEvent: "tag:yaml.org,2002:map", SequenceStartEvent: "tag:yaml.org,2002:seq"}


def load_documents(text: str, name: str = "", budget: Budget | None = None) -> list[Any]:
    """The documents of `text` as JSON values (None for an empty document).

    Raises ManifestError when the text is not YAML, holds what JSON cannot (tags such as `!!binary`,
    an alias to an enclosing node, non-string keys) or exceeds a limit; TrainJobInvalidError for a
    number JSON cannot carry (an integer beyond int64, `.inf`, `.nan`), naming its field path.
    `budget` is shared by the texts of one load; without it the text has the limits to itself.
    """
    budget = budget or Budget()
    budget.spend_text(len(text), name)
    builder = _Builder(name, budget)
    try:
        return builder.run(_Parser(text))
    except UnicodeEncodeError as error:  # libyaml takes UTF-8: a lone surrogate has none
        mark = _mark(text, error.start)
        raise YAMLSyntaxError(builder.where(mark), f"{_character(text[error.start])} is not a character", mark) from None
    except yaml.reader.ReaderError as error:
        mark = _mark(text, _reader_offset(text, error))
        raise YAMLSyntaxError(builder.where(mark), f"{_character(chr(error.character))}: {error.reason}", mark) from None
    except yaml.MarkedYAMLError as error:
        raise YAMLSyntaxError(builder.where(error.problem_mark), _problem(error), error.problem_mark) from None


class YAMLSyntaxError(ManifestError, yaml.MarkedYAMLError):
    """Text that is not YAML. Also a yaml.MarkedYAMLError with PyYAML's `problem` and `problem_mark`,
    as `load_documents` raised before, for callers that catch those."""

    def __init__(self, where: str, problem: str, mark: Any) -> None:
        ManifestError.__init__(self, f"{where}: invalid YAML: {problem}")
        self.context = self.context_mark = self.note = None
        self.problem, self.problem_mark = problem, mark

    def __str__(self) -> str:
        return str(self.args[0])


class _Frame:
    """A list or mapping being built, with what it weighs once its aliases are expanded."""

    __slots__ = ("value", "key", "nodes", "chars", "anchor", "merges", "mark")

    def __init__(self, value: Any, anchor: str | None, mark: Any) -> None:
        self.value, self.anchor, self.mark = value, anchor, mark
        self.key: Any = _NO_KEY
        self.nodes, self.chars = 1, 0
        self.merges: list[dict[str, Any]] | None = None


class _Builder:
    """Turns parser events into documents, counting every value against the limits of the text."""

    def __init__(self, name: str, budget: Budget) -> None:
        self.name = name
        self.budget = budget
        self.document = 0
        self.stack: list[_Frame] = []
        self.anchors: dict[str, Any] = {}
        self.documents: list[Any] = []

    def run(self, parser: Any) -> list[Any]:
        get_event = parser.get_event
        while True:
            event = get_event()
            kind = type(event)
            if kind is ScalarEvent:
                self.scalar(event)
            elif kind is MappingStartEvent:
                self.start(event, {})
            elif kind is SequenceStartEvent:
                self.start(event, [])
            elif kind is MappingEndEvent or kind is SequenceEndEvent:
                self.end()
            elif kind is AliasEvent:
                self.alias(event)
            elif kind is DocumentStartEvent:
                self.begin_document(event)
            elif kind is StreamEndEvent:
                return self.documents

    def begin_document(self, event: Any) -> None:
        self.document += 1
        self.anchors = {}  # anchors are local to their document
        self.spend(1, 0, event.start_mark)

    def spend(self, values: int, chars: int, mark: Any) -> None:
        budget = self.budget
        budget.values -= values
        budget.chars -= chars
        if budget.values < 0 or budget.chars < 0:
            raise self.problem(budget.overspent(), mark)

    def scalar(self, event: Any) -> None:
        text = event.value
        self.spend(1, len(text), event.start_mark)
        tag = event.tag
        if tag is None or tag == "!":  # `! 12` resolves as plain text does, in PyYAML and goyaml alike
            value = _PLAIN_SEEN.get(text, _NO_KEY) if event.implicit[0] else text
            if value is _NO_KEY:
                value = self.resolve(plain_scalar, text, event.start_mark)
        else:
            value = self.resolve(lambda text: explicit_scalar(tag, text), text, event.start_mark)
        if event.anchor is not None:
            self.anchors[event.anchor] = (value, 1, len(text))
        self.add(value, 1, len(text), event.start_mark)

    def resolve(self, resolver: Callable[[str], Any], text: str, mark: Any) -> Any:
        try:
            value = resolver(text)
        except ScalarProblem as problem:
            raise self.scalar_problem(problem, mark) from None
        if resolver is plain_scalar and len(text) <= 32 and len(_PLAIN_SEEN) < 8192:
            _PLAIN_SEEN[text] = value  # keys and small values repeat: resolve each once
        return value

    def start(self, event: Any, value: dict[str, Any] | list[Any]) -> None:
        self.spend(1, 0, event.start_mark)
        if event.tag not in (None, "!", _TAGS[type(event)]):
            raise self.problem(f"the tag {_short(event.tag)} is not allowed: {_ALLOWED_TAGS}", event.start_mark)
        if len(self.stack) >= MAX_DEPTH:
            raise self.problem(_DEEP, event.start_mark, with_path=False)
        if self.stack and self.stack[-1].key is _NO_KEY and type(self.stack[-1].value) is dict:
            raise self.problem(f"a mapping key must be a string, not a {'mapping' if type(value) is dict else 'list'}", event.start_mark)
        frame = _Frame(value, event.anchor, event.start_mark)
        if event.anchor is not None:
            self.anchors[event.anchor] = frame  # open: an alias to it from inside has no JSON form
        self.stack.append(frame)

    def end(self) -> None:
        frame = self.stack.pop()
        value = frame.value
        if frame.merges is not None:
            value = _merged(frame.merges, value)
        if frame.anchor is not None and self.anchors.get(frame.anchor) is frame:
            self.anchors[frame.anchor] = (value, frame.nodes, frame.chars)
        self.add(value, frame.nodes, frame.chars, frame.mark)

    def alias(self, event: Any) -> None:
        anchored = self.anchors.get(event.anchor)
        if anchored is None:
            raise self.problem(f"the alias *{event.anchor} refers to no anchor &{event.anchor} before it", event.start_mark)
        if type(anchored) is _Frame:
            raise self.problem(f"the alias *{event.anchor} refers to an enclosing node; such a document has no JSON form", event.start_mark)
        value, nodes, chars = anchored
        self.spend(nodes, chars, event.start_mark)
        self.add(value, nodes, chars, event.start_mark)

    def add(self, value: Any, nodes: int, chars: int, mark: Any) -> None:
        if not self.stack:
            self.documents.append(None if value is MERGE else value)
            return
        frame = self.stack[-1]
        frame.nodes += nodes
        frame.chars += chars
        container = frame.value
        if type(container) is list:
            container.append("<<" if value is MERGE else value)
        elif frame.key is _NO_KEY:
            frame.key = self.key(value, mark)
        else:
            self.set(frame, value, mark)

    def set(self, frame: _Frame, value: Any, mark: Any) -> None:
        if frame.key is MERGE:
            if frame.merges is None:
                frame.merges = []
            frame.merges.extend(self.merge_sources(value, mark))
        else:
            frame.value[frame.key] = "<<" if value is MERGE else value
        frame.key = _NO_KEY

    def key(self, value: Any, mark: Any) -> Any:
        """Keys as sigs.k8s.io/yaml writes them into JSON: integers and booleans become strings."""
        if type(value) is str or value is MERGE:
            return value
        if type(value) is bool:
            return "true" if value else "false"
        if type(value) is int:
            return str(value)
        raise self.problem(f"a mapping key must be a string, not {_kind(value)}; quote it", mark)

    def merge_sources(self, value: Any, mark: Any) -> list[dict[str, Any]]:
        """`<<: *base` or `<<: [*a, *b]`: the mappings to merge, the one that wins last (YAML merge keys)."""
        if type(value) is dict:
            return [value]
        if type(value) is list and all(type(item) is dict for item in value):
            return value[::-1]
        raise self.problem("a merge key (<<) takes a mapping or a list of mappings", mark)

    def path(self) -> str:
        path = ""
        for frame in self.stack:
            if type(frame.value) is list:
                path += f"[{len(frame.value)}]"
            elif frame.key is not _NO_KEY:
                key = "<<" if frame.key is MERGE else frame.key
                path = f"{path}.{key}" if path else key
        return path

    def where(self, mark: Any) -> str:
        place = f"{self.name or 'YAML'}:{mark.line + 1}:{mark.column + 1}" if mark is not None else self.name or "YAML"
        return f"{place} (document {self.document})" if self.document > 1 else place

    def problem(self, message: str, mark: Any, *, with_path: bool = True) -> ManifestError:
        path = self.path() if with_path else ""
        return ManifestError(f"{self.where(mark)}: {path + ': ' if path else ''}{message}")

    def scalar_problem(self, problem: ScalarProblem, mark: Any) -> Exception:
        if not problem.field_error:
            return self.problem(str(problem), mark)
        return TrainJobInvalidError([FieldError(self.path(), str(problem))], source=self.where(mark))


_ALLOWED_TAGS = "Kubernetes objects are JSON; only !!str, !!int, !!float, !!bool, !!null, !!map and !!seq are"


def _merged(sources: list[dict[str, Any]], explicit: dict[str, Any]) -> dict[str, Any]:
    """PyYAML's merge order: later merge keys over earlier ones, keys written here over all of them."""
    merged: dict[str, Any] = {}
    for source in sources:
        merged.update(source)
    merged.update(explicit)
    return merged


def _short(tag: str) -> str:
    return "!!" + tag[len("tag:yaml.org,2002:") :] if tag.startswith("tag:yaml.org,2002:") else tag


def _kind(value: Any) -> str:
    return "null" if value is None else f"a {type(value).__name__} ({value!r})"


def _problem(error: yaml.MarkedYAMLError) -> str:
    return f"{error.context}: {error.problem}" if error.context else str(error.problem)


def _character(char: str) -> str:
    return f"the character U+{ord(char):04X}"


def _place(name: str, text: str, offset: int) -> str:
    """`name:line:column` of a character offset (for errors that come without a mark)."""
    mark = _mark(text, offset)
    return f"{name or 'YAML'}:{mark.line + 1}:{mark.column + 1}"


def _mark(text: str, offset: int) -> yaml.Mark:
    line = text.count("\n", 0, offset)
    return yaml.Mark("", offset, line, offset - (text.rfind("\n", 0, offset) + 1), None, None)  # type: ignore[arg-type]  # no buffer: the stubs say int


def _reader_offset(text: str, error: yaml.reader.ReaderError) -> int:
    if _Parser is yaml.SafeLoader:
        return int(error.position)
    # libyaml counts bytes of the UTF-8 encoding
    return len(text.encode("utf-8", "surrogatepass")[: error.position].decode("utf-8", "ignore"))


def decode(data: bytes, name: str) -> str:
    """A file's text: UTF-8 (a BOM allowed), or UTF-16 with a BOM, the encodings YAML allows."""
    encoding = "utf-16" if data[:2] in (b"\xff\xfe", b"\xfe\xff") else "utf-8"
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as error:
        prefix = data[: error.start].decode(encoding, "replace")
        place = _place(name, prefix, len(prefix))
        raise ManifestError(
            f"{place}: not {encoding.upper()} text: byte {error.start} (0x{data[error.start]:02x}) {error.reason}; "
            "YAML files must be UTF-8"
        ) from None


def json_problem(document: Any, budget: Budget | None = None) -> FieldError | None:
    """The first value of a Python document that YAML could not have given `load_documents`: a type
    JSON lacks (bytes, tuple, set, object), a non-string key, an integer beyond int64, infinity or NaN,
    a string that is not Unicode text; or a document past the limits. Iterative, and it stops at the
    limits, so a dict that contains itself is reported, not followed forever."""
    budget = budget or Budget()
    problem = _value_problem(document) if not isinstance(document, (list, Mapping)) else ""
    stack: list[tuple[Any, int, Any]] = [(document, 1, None)] if not problem else []
    while stack and not problem:
        container, depth, trail = stack.pop()
        if depth > MAX_DEPTH:
            return FieldError(_trail_path(trail), _DEEP)
        is_list = type(container) is list
        budget.values -= len(container) + 1
        for key, item in enumerate(container) if is_list else container.items():
            kind = type(item)
            if kind is str:
                budget.chars -= len(item)
                if not item.isascii() and not _is_text(item):
                    problem = _value_problem(item)
            elif kind is dict or kind is list:
                stack.append((item, depth + 1, (trail, key)))
            elif kind is int:
                if not INT64[0] <= item <= INT64[1]:
                    problem = _value_problem(item)
            elif kind is not bool and item is not None:
                if isinstance(item, Mapping):
                    stack.append((item, depth + 1, (trail, key)))
                else:
                    problem = _value_problem(item)
            if not is_list and type(key) is not str:
                return FieldError(_trail_path(trail), f"Invalid value: {_excerpt(repr(key))}: a key must be a string")
            if problem:
                return FieldError(_trail_path((trail, key)), problem)
        problem = budget.overspent()
    return FieldError(_trail_path(None), problem) if problem else None


_DEEP = f"the document nests deeper than {MAX_DEPTH} levels: the limit"


def _value_problem(value: Any) -> str:
    """Why a scalar is no JSON value, or "" when it is one."""
    kind = type(value)
    if kind is str:
        return "" if value.isascii() or _is_text(value) else "Invalid value: a string with a lone surrogate is not Unicode text"
    if kind is int:
        return "" if INT64[0] <= value <= INT64[1] else f"Invalid value: {value.bit_length()}-bit integer: {_OUT_OF_RANGE}"
    if kind is float:
        return "" if math.isfinite(value) else f"Invalid value: {value}: JSON has no infinity or NaN; give a finite number"
    if value is None or kind is bool or kind is list or isinstance(value, Mapping):
        return ""
    return f"Invalid value: a {kind.__name__}: not a JSON value; use a str, int, float, bool, None, list or dict"


def _is_text(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _trail_path(trail: Any) -> str:
    parts: list[Any] = []
    while trail is not None:
        trail, key = trail
        parts.append(key)
    path = ""
    for key in reversed(parts):
        path += f"[{key}]" if type(key) is int else f".{key}" if path else key
    return path


_BaseDumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


# Plain scalars that sigs.k8s.io/yaml (kubectl, the controller) reads as numbers while PyYAML's YAML 1.1
# resolver leaves them strings: exponents without a dot or a signed exponent (go-yaml's float style), and
# the prefixes Go's ParseInt takes in any case (0o17, 0X1F, 0B101). They are written quoted.
_GO_NUMBER = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+|[-+]?0[oObBxX][0-9a-fA-F_]+")


def _represent_str(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    # Scripts, hostfiles and snapshots read as blocks, not as one quoted line with \n escapes.
    style = "|" if "\n" in text and not any(ch in text for ch in "\r\t") and text == text.rstrip(" ") else None
    if style is None and _GO_NUMBER.fullmatch(text):
        style = "'"
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


class _Dumper(_BaseDumper):  # type: ignore[misc,valid-type]
    def ignore_aliases(self, data: Any) -> bool:
        return True  # manifests never use YAML anchors, even where two fields hold the same object


_Dumper.add_representer(str, _represent_str)


def dump(document: Any) -> str:
    """Keys sorted, as `kubectl get -o yaml` and the controller's serializer write them."""
    text: str = yaml.dump(document, Dumper=_Dumper, sort_keys=True, default_flow_style=False, allow_unicode=True, width=1 << 16)
    return text


def dump_all(documents: Iterable[Any]) -> str:
    return "".join("---\n" + dump(document) for document in documents)
