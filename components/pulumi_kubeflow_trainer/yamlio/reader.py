"""YAML in: documents built straight from libyaml's events, in one pass and without recursion, with the
limits checked as the events arrive, before anything big is built; every refusal says where it is
(`file:line:column`)."""

from __future__ import annotations

from collections.abc import Callable
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

from ..framework.errors import FieldError, ManifestError, TrainJobInvalidError
from .limits import DEEP, MAX_DEPTH, Budget
from .scalars import ALLOWED_TAGS, MERGE, ScalarProblem, explicit_scalar, plain_key, plain_scalar, short_tag

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
            if type(value) is not str and event.implicit[0] and self.expects_key():
                value = self.resolve(plain_key, text, event.start_mark)  # `1e7:` is the key "1e+07", not "10000000"
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
            raise self.problem(f"the tag {short_tag(event.tag)} is not allowed: {ALLOWED_TAGS}", event.start_mark)
        if len(self.stack) >= MAX_DEPTH:
            raise self.problem(DEEP, event.start_mark, with_path=False)
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

    def expects_key(self) -> bool:
        stack = self.stack
        return bool(stack) and stack[-1].key is _NO_KEY and type(stack[-1].value) is dict

    def key(self, value: Any, mark: Any) -> Any:
        """Keys as sigs.k8s.io/yaml writes them into JSON: integers and booleans become strings (plain
        keys are text already: `scalar` resolved them with `plain_key`)."""
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


def _merged(sources: list[dict[str, Any]], explicit: dict[str, Any]) -> dict[str, Any]:
    """PyYAML's merge order: later merge keys over earlier ones, keys written here over all of them."""
    merged: dict[str, Any] = {}
    for source in sources:
        merged.update(source)
    merged.update(explicit)
    return merged


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
