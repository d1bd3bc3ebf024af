"""YAML in and out, with libyaml when PyYAML has it (it is several times faster).

Kubernetes turns YAML into JSON before it decodes it (sigs.k8s.io/yaml), so a document here holds
only what JSON holds: mappings with string keys, lists, strings, 64-bit integers, finite floats,
booleans and null, and each scalar is what kubectl would send for it (`scalars`: go-yaml v2's rules,
then JSON's). `reader` builds documents from the parser's events within the `limits`; `values`
checks Python documents for the same; `writer` writes YAML that kubectl reads back unchanged.
"""

from .limits import MAX_DEPTH, MAX_INPUT, MAX_VALUE_CHARS, MAX_VALUES, Budget
from .reader import YAMLSyntaxError, decode, load_documents
from .scalars import INT64, MERGE, ScalarProblem, explicit_scalar, plain_key, plain_scalar
from .values import json_problem
from .writer import dump, dump_all

__all__ = [
    "INT64",
    "MAX_DEPTH",
    "MAX_INPUT",
    "MAX_VALUES",
    "MAX_VALUE_CHARS",
    "MERGE",
    "Budget",
    "ScalarProblem",
    "YAMLSyntaxError",
    "decode",
    "dump",
    "dump_all",
    "explicit_scalar",
    "json_problem",
    "load_documents",
    "plain_key",
    "plain_scalar",
]
