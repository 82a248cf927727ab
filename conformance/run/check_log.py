"""``dsh-conformance check-log PATH...``: validate recorded session logs offline.

A log is JSON Lines (one event per line; blank lines are skipped) or one JSON array of events.
Every event is folded by the suite's own `conformance.judge.logfold`, and every violation is printed
as

    PATH:LINE: seq N: RULE (CONTRACT-ID): what is wrong

Real logs are taken as they are: event types outside the core vocabulary pass unchecked, numbers
may be fractional, a header's ``config`` is compared field by field. What JSON parsing alone would
hide is still caught: ``NaN``/``Infinity`` literals and ``-0`` are not lossless JSON, and a
repeated object key is reported (the log's "object keys are unique"). A line that is not JSON, or
a truncated last line, is reported with its line number and takes its seq, so the events after it
are still checked.

Exit status: 0 when every log is valid, 1 when any violation was found, 2 when a file cannot be
read at all (missing, not UTF-8, not a log).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from ..judge.logfold import RULES, LogFold

Json = Any


class LogFileError(Exception):
    """The file is not a session log at all; the message names the file and where."""


@dataclass
class Entry:
    """One event as read: its 1-based line, its value, or why it could not be read."""

    line: int
    value: Json = None
    unreadable: str | None = None
    duplicate_keys: list[str] = field(default_factory=list)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="dsh-conformance check-log",
        description="Validate recorded session logs (JSON lines or a JSON array) against the "
        "session-log rules of the contracts.",
    )
    parser.add_argument("paths", nargs="+", metavar="PATH", help="a session log file")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit:  # a usage error (argparse printed it) or --help
        return int(exit.code or 0)
    status = 0
    for path in args.paths:
        status = max(status, check_file(Path(path), sys.stdout))
    return status


def check_file(path: Path, out: TextIO) -> int:
    """Check one file, printing its violations and a summary line; return its exit status."""
    try:
        entries = read_log(path)
    except LogFileError as error:
        out.write(f"{error}\n")
        return 2
    fold = LogFold()
    problems = 0
    for seq, entry in enumerate(entries):
        where = f"{path}:{entry.line}: seq {seq}"
        if entry.unreadable is not None:
            fold.add_unreadable()
            out.write(f"{where}: not JSON: {entry.unreadable}\n")
            problems += 1
            continue
        for key in entry.duplicate_keys:
            out.write(
                f"{where}: session-non-json ({RULES['session-non-json']}): the key {key!r} "
                "appears twice in one object (object keys are unique)\n"
            )
            problems += 1
        for violation in fold.add(entry.value):
            out.write(f"{where}: {violation.rule} ({violation.contract}): {violation.message}\n")
            problems += 1
    verdict = "valid" if not problems else f"{problems} violation(s)"
    out.write(f"{path}: {len(entries)} event(s), {verdict}\n")
    return 1 if problems else 0


def read_log(path: Path) -> list[Entry]:
    """The events of a JSON-lines file or of a JSON array, each with its line number."""
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise LogFileError(f"{path}: cannot read: {error.strerror or error}") from error
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        raise LogFileError(f"{path}:{line}: not UTF-8 text (byte {error.start})") from error
    text = text.removeprefix("\ufeff")
    if text.lstrip().startswith("["):
        return list(_array_entries(path, text))
    entries = list(_line_entries(text))
    _refuse_one_spread_object(path, text, entries)
    return entries


def _line_entries(text: str) -> Iterator[Entry]:
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        if line.strip():
            entry = _parse(line, number)
            if entry.unreadable is not None and number == len(lines) and text[-1] not in "\r\n":
                entry.unreadable += "; it is the last line and has no newline: truncated?"
            yield entry


def _array_entries(path: Path, text: str) -> Iterator[Entry]:
    """Elements of a top-level JSON array, decoded one by one so each keeps its line."""
    position = text.index("[") + 1
    decoder = _decoder([])
    first = True
    while True:
        position = _skip_space(text, position)
        if position >= len(text):
            raise LogFileError(f"{path}:{_line_of(text, position)}: the JSON array is not closed")
        if text[position] == "]":
            if _skip_space(text, position + 1) != len(text):
                line = _line_of(text, position + 1)
                raise LogFileError(f"{path}:{line}: text after the end of the JSON array")
            return
        if not first:
            if text[position] != ",":
                raise LogFileError(
                    f"{path}:{_line_of(text, position)}: expected ',' or ']' between events"
                )
            position = _skip_space(text, position + 1)
        first = False
        duplicates: list[str] = []
        decoder = _decoder(duplicates)
        try:
            value, end = decoder.raw_decode(text, position)
        except json.JSONDecodeError as error:
            raise LogFileError(
                f"{path}:{error.lineno}: not JSON: {error.msg} (column {error.colno})"
            ) from error
        yield Entry(_line_of(text, position), value, duplicate_keys=duplicates)
        position = end


def _parse(text: str, line: int) -> Entry:
    duplicates: list[str] = []
    try:
        value = _decoder(duplicates).decode(text)
    except json.JSONDecodeError as error:
        return Entry(line, unreadable=f"{error.msg} (column {error.colno})")
    return Entry(line, value, duplicate_keys=duplicates)


def _decoder(duplicates: list[str]) -> json.JSONDecoder:
    """A decoder that keeps ``-0`` (JSON text) as -0.0, so the fold sees it, and records
    repeated keys instead of silently keeping the last one."""

    def pairs(items: list[tuple[str, Json]]) -> dict[str, Json]:
        result: dict[str, Json] = {}
        for key, value in items:
            if key in result:
                duplicates.append(key)
            result[key] = value
        return result

    return json.JSONDecoder(
        object_pairs_hook=pairs, parse_int=lambda digits: -0.0 if digits == "-0" else int(digits)
    )


def _refuse_one_spread_object(path: Path, text: str, entries: list[Entry]) -> None:
    """A pretty-printed single object is not a log: say so instead of one error per line."""
    if len(entries) < 2 or all(entry.unreadable is None for entry in entries):
        return
    try:
        whole = json.loads(text)
    except json.JSONDecodeError:
        return
    kind = "object" if isinstance(whole, dict) else type(whole).__name__
    raise LogFileError(
        f"{path}:1: the file is one JSON {kind} spread over {len(text.splitlines())} lines; a "
        "session log is JSON lines (one event per line) or a JSON array of events"
    )


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t\r\n":
        position += 1
    return position


def _line_of(text: str, position: int) -> int:
    return text.count("\n", 0, position) + 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
