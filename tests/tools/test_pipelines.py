"""The shell scripts run under `set -o pipefail`, where a pipeline fails when its writer dies of SIGPIPE:
a reader that stops before the end of its input (`head`, `grep -q`, `sed 1q`) makes the outcome depend
on timing (how much the writer had written when the reader left). A fresh machine's cold build died of
exactly that (`"$BIN/etcd" --version | head -n1`, exit 141), while warm machines never ran the line.

Every pipeline of every script is read here: each reader must be one that reads to the end of its
input, and each reader is run behind a writer of 1.9 MB, under pipefail, as the scripts run it."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPTS = sorted(
    [path for path in (REPO / "tools").iterdir() if path.is_file() and path.read_text(errors="replace").startswith("#!/usr/bin/env bash")]
    + [REPO / ".ci" / "run", REPO / "tools" / "pulumi-env.sh"]
)
# Readers that read their input to the end (whatever options these scripts give them).
TO_THE_END = {"cut", "tr", "sort", "tail", "sha256sum", "sed", "python3", "json_get", "cat", "wc"}
# Options and scripts that make an otherwise complete reader stop early.
STOPS_EARLY = re.compile(r"^(head|grep\b.*\s-[a-zA-Z]*[qml]|sed\b.*\d+q|awk\b.*\bexit\b)")
WRITER = "seq 1 250000"  # 1.9 MB: far more than a pipe buffer


def readers_in(code: str) -> list[str]:
    """The commands after the first of each pipeline in a line of shell: `a | b | c` gives [b, c], also
    inside `$(...)` within double quotes. A command ends at an unquoted `|`, `)`, `;`, `&&` or `||`."""
    found: list[str] = []
    stack = ["code"]  # code, `"`, `'`; `$(` inside `"` opens code again
    current, in_reader, index = "", False, 0

    def end_command(pipe: bool) -> None:
        nonlocal current, in_reader
        if in_reader and current.strip():
            found.append(current.strip())
        current, in_reader = "", pipe

    while index < len(code):
        char, top = code[index], stack[-1]
        if top == "'":
            stack.pop() if char == "'" else None
        elif top == '"':
            if code.startswith("$(", index):
                stack.append("code")
                end_command(False)
                index += 2
                continue
            stack.pop() if char == '"' else None
        elif char in "'\"":
            stack.append(char)
        elif code.startswith(("||", "&&"), index):
            end_command(False)
            index += 2
            continue
        elif char in "|;)":
            end_command(char == "|")
            if char == ")" and len(stack) > 1:
                stack.pop()
            index += 1
            continue
        current += char
        index += 1
    end_command(False)
    return found


def pipelines(script: Path) -> list[tuple[int, str]]:
    """(line number, reader) for every pipeline of the script, comments and `case` patterns left out."""
    found = []
    for number, line in enumerate(script.read_text().splitlines(), 1):
        if line.lstrip().startswith("#") or re.match(r"^\s*[-a-z*|]+\)", line.strip() + " ") and "$(" not in line:
            continue
        readers = readers_in(line.split(" # ", 1)[0])
        found += [(number, reader) for reader in readers if not reader.startswith(("'", '"', "*"))]  # case patterns
    return found


READERS = [(script, number, reader) for script in SCRIPTS for number, reader in pipelines(script)]


def test_the_scripts_have_pipelines_to_check() -> None:
    assert len(SCRIPTS) >= 8 and len(READERS) >= 10


@pytest.mark.parametrize(("script", "number", "reader"), READERS, ids=lambda value: str(value).replace(str(REPO) + "/", ""))
def test_a_pipeline_reads_to_the_end_of_its_input(script: Path, number: int, reader: str) -> None:
    where = f"{script.relative_to(REPO)}:{number}: `{reader}`"
    assert not STOPS_EARLY.match(reader), f"{where} stops reading early: under pipefail its writer may die of SIGPIPE (141)"
    command = reader.split()[0]
    assert command in TO_THE_END, f"{where}: is {command!r} a reader that reads to the end? add it to TO_THE_END once checked"


def runnable(reader: str) -> str | None:
    """The reader as a command to run here, or None when it needs the script's own variables or files."""
    if "$" in reader or "<" in reader or ">" in reader or reader.split()[0] in {"json_get", "python3"}:
        return None
    try:
        words = shlex.split(reader)
    except ValueError:  # a quote the line opens before the pipeline
        return None
    return None if any(word.startswith("/") for word in words) else reader


@pytest.mark.parametrize("reader", sorted({runnable(r) for _, _, r in READERS} - {None}))
def test_a_reader_behind_a_large_writer_succeeds_under_pipefail(reader: str) -> None:
    result = subprocess.run(["bash", "-o", "pipefail", "-c", f"{WRITER} | {reader} >/dev/null"], capture_output=True, timeout=60)
    assert result.returncode == 0, f"`{WRITER} | {reader}` exited {result.returncode} under pipefail"


def test_a_reader_that_stops_early_is_caught_by_the_same_run() -> None:
    """The check above can fail: `head -n1` behind the same writer dies of SIGPIPE under pipefail."""
    result = subprocess.run(["bash", "-o", "pipefail", "-c", f"{WRITER} | head -n1 >/dev/null"], capture_output=True, timeout=60)
    assert result.returncode == 141
    assert STOPS_EARLY.match("head -n1") and STOPS_EARLY.match("grep -q x") and STOPS_EARLY.match("sed 1q")
