"""``dsh-conformance check-log PATH...``: validate recorded session logs offline.

A log is JSON Lines (one event per line; blank lines are skipped) or one JSON array of events; ``-``
reads standard input. Every event is folded by the suite's own `dsh_conformance.judge.logfold`, and
every violation is printed on standard output as

    PATH:LINE: seq N: RULE (CONTRACT-ID): what is wrong

Real logs are taken as they are: event types outside the core vocabulary pass unchecked, numbers
in payloads may be fractional, a header's ``config`` is compared field by field. What JSON parsing
alone would hide is still caught: ``NaN``/``Infinity`` literals and ``-0`` are not lossless
JSON, and a repeated object key is reported (the log's "object keys are unique"). Seqs are judged
as a person would: a missing stretch (``5, 6, 9``) is reported once, and the events after it are
checked at their own seqs; a stretch that goes back (a repeated event) is reported once and
skipped.

JSON lines are read one line at a time, and the fold keeps of each event only what a later rule
reads (`LogFold.keep_events`), so memory grows with the number of visible messages, not with
their text or the whole file; a JSON array is read whole. A line that cannot be read (not JSON,
longer than `MAX_LOG_LINE_BYTES`, nested deeper than the suite reads:
`dsh_conformance.judge.nesting`) is an error on standard error naming its line; it takes its seq, so
the events after it are still checked.

A recorded log is what a later run seeds, so every event's envelope is judged as a seed's: an
integer ``time`` of magnitude at most 2^53 - 1 (`session-event-invalid`). One cause is reported
once: a loop instance without its request/header is one line, however many model outputs follow,
and a line that cannot be read is not also every later event's violation (the rules that read the
loop instance's history are not judged past it).

Exit status: 0 when every log is valid, 1 when any violation was found or a log has no events
(an empty log checks nothing), 2 when a file, or a line of it, cannot be read as a log (missing,
not UTF-8, not JSON, beyond the limits).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Final, TextIO

from ..harness.process import MAX_LINE_BYTES
from ..judge.logfold import RULES, LogFold
from ..judge.nesting import MAX_NESTING, nesting_problem
from .exits import FOUND, OK, UNUSABLE
from .options import see

Json = Any

#: The longest log line read: the answer line limit (8 MiB), far more than one message a model
#: can be sent; a longer line is skipped, and reported, without being held in memory.
MAX_LOG_LINE_BYTES: Final = MAX_LINE_BYTES
#: The longest run of missing seqs filled in to resynchronise (a larger jump is a wrong seq).
_MAX_GAP: Final = 1_000_000
_SKIP_CHUNK: Final = 1024 * 1024
_STDIN: Final = "-"


class LogFileError(Exception):
    """The file is not a session log at all; the message names the file and where."""


@dataclass
class Entry:
    """One event as read: its 1-based line, its value, or why it could not be read."""

    line: int
    value: Json = None
    unreadable: str | None = None
    duplicate_keys: list[str] = field(default_factory=list)
    #: Every number of the event is an integer: it is lossless JSON (`LogFold.add`).
    integers_only: bool = False


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="dsh-conformance check-log",
        description="Validate recorded session logs (JSON lines or a JSON array) against the "
        "session-log rules of the contracts.",
        epilog=f"Documentation: {see('Checking a session log', 'guide/check-log.md')}.",
    )
    parser.add_argument(
        "paths", nargs="+", metavar="PATH", help="a session log file, or - for standard input"
    )
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit:  # a usage error (argparse printed it) or --help
        return int(exit.code or 0)
    status = OK
    for path in args.paths:
        status = max(status, check_file(path, sys.stdout, sys.stderr))
    return status


def check_file(path: str, out: TextIO, err: TextIO) -> int:
    """Check one file (``-``: standard input): violations and a summary line on ``out``, what
    cannot be read on ``err``; return its exit status."""
    label = "<stdin>" if path == _STDIN else path
    try:
        if path == _STDIN:
            return _check(label, _read(label, sys.stdin.buffer), out, err)
        try:
            stream = open(path, "rb")  # noqa: SIM115 -- closed below, errors named
        except OSError as error:
            raise LogFileError(f"{label}: cannot read: {error.strerror or error}") from error
        with stream:
            return _check(label, _read(label, stream), out, err)
    except LogFileError as error:
        err.write(f"{error}\n")
        return UNUSABLE


def _check(label: str, entries: Iterator[Entry], out: TextIO, err: TextIO) -> int:
    fold = LogFold(keep_events=False, seed_envelope=True)
    count = problems = unreadable = 0
    held = _Held(out)
    behind = False  # inside a stretch of seqs going back, skipped after its first event
    for entry in entries:
        count += 1
        seq = len(fold.events)
        if entry.unreadable is not None:
            fold.add_unreadable()
            err.write(f"{_where(label, entry, seq)}: {entry.unreadable}\n")
            unreadable += 1
            continue
        found = _seq_found(entry.value)
        if found is not None and found < seq:
            if not behind:
                message = f"seq {found} goes back; events are skipped until seq {seq} comes"
                out.write(_seq_violation(_where(label, entry, seq), message))
                problems += 1
            behind = True
            continue
        behind = False
        if found is not None and seq < found <= seq + _MAX_GAP:
            missing = f"seq {seq}" if found == seq + 1 else f"seqs {seq}..{found - 1}"
            message = f"{missing} missing: the log goes on at seq {found}"
            out.write(_seq_violation(_where(label, entry, seq), message))
            problems += 1
            for _ in range(found - seq):
                fold.add_unreadable()
            seq = found  # the event is checked at its own seq
        for key in entry.duplicate_keys:
            out.write(
                f"{_where(label, entry, seq)}: session-non-json ({RULES['session-non-json']}): "
                f"the key {key!r} appears twice in one object (object keys are unique)\n"
            )
            problems += 1
        for violation in fold.add(entry.value, lossless=entry.integers_only):
            line = f"{_where(label, entry, seq)}: {violation.rule} ({violation.contract}): "
            held.write(line + violation.message, violation.rule, fold.instance_starts[-1], seq)
            problems += 1
    held.flush()
    if count == 0:
        out.write(f"{label}: no events: an empty log checks nothing\n")
        return FOUND
    verdict = ", ".join(
        part
        for part in (
            unreadable and f"{unreadable} line(s) not read",
            problems and f"{problems} violation(s)",
        )
        if part
    )
    out.write(f"{label}: {count} event(s), {verdict or 'valid'}\n")
    return UNUSABLE if unreadable else FOUND if problems else OK


#: Rules one cause breaks at every later event of a loop instance (a missing request/header
#: at each model output): reported once per instance, with how many more events break it.
_ONCE_PER_INSTANCE: Final = frozenset({"request-header-missing"})


class _Held:
    """Violation lines on their way out; one of a `_ONCE_PER_INSTANCE` rule is held back until
    its loop instance ends, and written once, with how many more of its events broke it."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self._held: tuple[str, str, int] | None = None
        self._more: list[int] = []

    def write(self, line: str, rule: str, instance: int, seq: int) -> None:
        if self._held is not None and self._held[2] != instance:
            self.flush()
        if self._held is not None and self._held[1] == rule:
            self._more.append(seq)
        elif rule in _ONCE_PER_INSTANCE:
            self.flush()
            self._held = (line, rule, instance)
        else:
            self.out.write(f"{line}\n")

    def flush(self) -> None:
        if self._held is None:
            return
        line = self._held[0]
        if self._more:
            line += (
                f" (and at {len(self._more)} more event(s) of this loop instance, up to seq "
                f"{self._more[-1]})"
            )
        self.out.write(f"{line}\n")
        self._held, self._more = None, []


def _seq_found(event: Json) -> int | None:
    """The event's seq when it is a JSON integer (anything else is the fold's to judge)."""
    seq = event.get("seq") if isinstance(event, dict) else None
    return seq if type(seq) is int and seq >= 0 else None


def _where(label: str, entry: Entry, seq: int) -> str:
    """Where a problem is: the file, the entry's line and the seq it is checked at (built only
    for a line that has a problem)."""
    return f"{label}:{entry.line}: seq {seq}"


def _seq_violation(where: str, message: str) -> str:
    return f"{where}: seq-not-contiguous ({RULES['seq-not-contiguous']}): {message}\n"


def _read(label: str, stream: BinaryIO) -> Iterator[Entry]:
    """The entries of a JSON-lines stream, read line by line, or of a JSON array, read whole."""
    lines = _lines(label, stream)
    decoder = _Decoder()
    head: list[tuple[int, str, bool]] = []
    for line in lines:
        head.append(line)
        if line[1].strip():
            break
    start = "".join(text for _, text, _ in head).removeprefix("\ufeff").lstrip()
    if start.startswith("["):
        # Whole: a file whose array turns out broken is no log, and gets no violations first.
        text = "".join(text for _, text, _ in (*head, *lines))
        yield from list(_array_entries(label, text, decoder))
        return
    if start.startswith("{") and _parse(start, 1, decoder).unreadable is not None:
        # Perhaps a pretty-printed single object, which is no log: held whole to find out.
        rest = list(lines)
        _refuse_one_spread_object(label, start + "".join(text for _, text, _ in rest))
        lines = iter(rest)
    for number, text, ended in itertools.chain(head, lines):
        if text.strip():
            entry = _parse(text.removeprefix("\ufeff"), number, decoder)
            if not ended and entry.unreadable is not None:
                entry.unreadable += "; it is the last line and has no newline: truncated?"
            yield entry


def _lines(label: str, stream: BinaryIO) -> Iterator[tuple[int, str, bool]]:
    """``(line number, text, ended by a newline)`` for each line; an overlong line's text says so
    (it is no JSON), and is skipped without being held."""
    number = offset = 0
    while True:
        raw = stream.readline(MAX_LOG_LINE_BYTES + 1)
        if not raw:
            return
        number += 1
        if len(raw) > MAX_LOG_LINE_BYTES and not raw.endswith(b"\n"):
            size = len(raw)
            while raw and not raw.endswith(b"\n"):
                raw = stream.readline(_SKIP_CHUNK)
                size += len(raw)
            offset += size
            yield number, _OVERLONG, True
            continue
        yield number, _decoded(label, raw, number, offset), raw.endswith(b"\n")
        offset += len(raw)


#: Stands for a line longer than `MAX_LOG_LINE_BYTES` (a NUL byte cannot start a JSON text).
_OVERLONG: Final = "\0overlong"


def _decoded(label: str, raw: bytes, line: int, offset: int = 0) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line += raw.count(b"\n", 0, error.start)
        raise LogFileError(
            f"{label}:{line}: not UTF-8 text (byte {offset + error.start})"
        ) from error


def _array_entries(label: str, text: str, decoder: _Decoder) -> Iterator[Entry]:
    """Elements of a top-level JSON array, decoded one by one so each keeps its line."""
    problem = nesting_problem(text, MAX_NESTING + 1)  # the events, inside the array
    if problem is not None:
        raise LogFileError(f"{label}:1: the JSON array is {problem} (the array counts as one)")
    position = text.index("[") + 1
    first = True
    while True:
        position = _skip_space(text, position)
        if position >= len(text):
            raise LogFileError(f"{label}:{_line_of(text, position)}: the JSON array is not closed")
        if text[position] == "]":
            if _skip_space(text, position + 1) != len(text):
                line = _line_of(text, position + 1)
                raise LogFileError(f"{label}:{line}: text after the end of the JSON array")
            return
        if not first:
            if text[position] != ",":
                raise LogFileError(
                    f"{label}:{_line_of(text, position)}: expected ',' or ']' between events"
                )
            position = _skip_space(text, position + 1)
        first = False
        try:
            entry, end = decoder.raw_decode(text, position, _line_of(text, position))
        except json.JSONDecodeError as error:
            raise LogFileError(
                f"{label}:{error.lineno}: not JSON: {error.msg} (column {error.colno})"
            ) from error
        except ValueError as error:  # an integer too long to convert
            raise LogFileError(f"{label}:{_line_of(text, position)}: {error}") from error
        yield entry
        position = end


def _parse(text: str, line: int, decoder: _Decoder) -> Entry:
    if text == _OVERLONG:
        return Entry(line, unreadable=f"longer than {MAX_LOG_LINE_BYTES} bytes: not read")
    problem = nesting_problem(text)
    if problem is not None:
        return Entry(line, unreadable=f"not read: {problem}")
    try:
        return decoder.decode(text, line)
    except json.JSONDecodeError as error:
        return Entry(line, unreadable=f"not JSON: {error.msg} (column {error.colno})")
    except ValueError as error:  # an integer too long to convert
        return Entry(line, unreadable=f"not read: {error}")


class _Decoder:
    """Reads events from JSON text, noting what parsing alone would hide: a repeated key (the
    parsed object keeps the last one), and whether every number is an integer.

    An event whose numbers are all integers is lossless JSON by construction (no NaN, ±Infinity
    or -0 can hide in it: `Entry.integers_only`), so the fold need not walk it to find out. The
    hooks cost little: a dict is built in C, a non-integer number or a ``NaN`` literal calls
    Python (rare in a log), and integers are parsed in Python only when the text has a ``-0``
    somewhere (kept as -0.0, so the fold sees it). The decoders are built once per file."""

    def __init__(self) -> None:
        self._duplicates: list[str] = []
        self._integers_only = True
        self._plain = self._decoder(parse_int=int)
        self._negative_zero = self._decoder(parse_int=self._int_keeping_negative_zero)

    def decode(self, text: str, line: int) -> Entry:
        """The event of the JSON ``text`` (one line of a log)."""
        self._start()
        return self._entry(line, self._for(text).decode(text))

    def raw_decode(self, text: str, position: int, line: int) -> tuple[Entry, int]:
        """The event starting at ``position`` of ``text`` (an element of an array), and where it
        ends."""
        self._start()
        value, end = self._for(text).raw_decode(text, position)
        return self._entry(line, value), end

    def _start(self) -> None:
        self._duplicates = []
        self._integers_only = True

    def _entry(self, line: int, value: Json) -> Entry:
        return Entry(
            line, value, duplicate_keys=self._duplicates, integers_only=self._integers_only
        )

    def _decoder(self, parse_int: Callable[[str], int | float]) -> json.JSONDecoder:
        return json.JSONDecoder(
            object_pairs_hook=self._pairs,
            parse_float=self._non_integer,
            parse_constant=self._non_integer,
            parse_int=parse_int,
        )

    def _for(self, text: str) -> json.JSONDecoder:
        return self._negative_zero if "-0" in text else self._plain

    def _pairs(self, items: list[tuple[str, Json]]) -> dict[str, Json]:
        result = dict(items)
        if len(result) != len(items):
            seen: set[str] = set()
            for key, _ in items:
                if key in seen:
                    self._duplicates.append(key)
                seen.add(key)
        return result

    def _non_integer(self, text: str) -> float:
        self._integers_only = False
        return float(text)

    def _int_keeping_negative_zero(self, digits: str) -> int | float:
        if digits == "-0":
            self._integers_only = False
            return -0.0
        return int(digits)


def _refuse_one_spread_object(label: str, text: str) -> None:
    """A pretty-printed single object is not a log: say so instead of one error per line."""
    if nesting_problem(text) is not None:
        return
    try:
        whole = json.loads(text)
    except ValueError:
        return
    kind = "object" if isinstance(whole, dict) else type(whole).__name__
    raise LogFileError(
        f"{label}:1: the file is one JSON {kind} spread over {len(text.splitlines())} lines; a "
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
