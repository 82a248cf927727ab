"""A deliberately broken conformance harness: the reference model, misbehaving on purpose.

    python broken_harness.py MODE [EVERY]
    python broken_harness.py at CASE=MODE [CASE=MODE ...]

It answers like the reference harness, except that every EVERY-th ``run`` (default 1: every run)
it misbehaves as MODE says. The count restarts with the process, so after the suite restarts it
the next EVERY-1 runs are answered properly again. With ``at``, it misbehaves at the ``run`` of
each CASE named, as its MODE says (a mode of a ``run``), and at no other.

MODE, at a ``run``: crash (exit 3 after writing to stderr), hang (never answer), garbage (print a
line that is not JSON), wrong-case (answer for another case), endless-line (print without a
newline, forever), huge-garbage (a 6 MB line that is not JSON), huge-stderr (a 20 MB stderr line,
then crash), double (answer twice, both lines in one write), late-double (answer, then a second
line a moment later), flood (answer, then print the same answer again without end),
extra-field, errored-without-case, bad-observation (answers that break ``protocol.schema.json``),
wide (60,000 observations more than the ops), deep (an observation nested 100,000 levels deep),
big-number (a 400-digit number where ``true`` belongs), all-ok (``{"ok": true}`` to every op,
whatever its shape); wide-at-count and huge-string answer one
observation per op, the first (``{"ok": true}`` expected) a well-formed other one of 5 or 6 MB:
200,000 rendered sections, or one 6 MB text.

MODE, at the start: bad-handshake (speak protocol 999), slow-start (sleep before answering the
handshake: it never starts within a timeout), crash-at-start (exit 1 before reading anything,
saying why on stderr, like ``node missing.js``), log-before-started (print a log line on stdout
before ``started``).

With ``BROKEN_HARNESS_PIDS=FILE`` set, it first starts a child process that sleeps (as ``npm`` or
``npx`` leave a process tree behind) and appends its own pid and the child's to FILE.

The tests start it some hundred times, each start an interpreter importing the reference, which
it compiles anew when bytecode is not written (``PYTHONDONTWRITEBYTECODE``): about a third of its
start. With ``BROKEN_HARNESS_PYCACHE=DIR`` set (`conftest.py`: a directory of the test
session's), that bytecode is written to and read from DIR, whatever the environment says.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

_START_MODES = {"crash-at-start", "log-before-started", "bad-handshake", "slow-start"}


def main() -> None:
    mode = sys.argv[1]
    at = dict(pair.split("=", 1) for pair in sys.argv[2:]) if mode == "at" else {}
    every = int(sys.argv[2]) if len(sys.argv) > 2 and not at else 1
    pids = os.environ.get("BROKEN_HARNESS_PIDS")
    if pids:
        sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        with open(pids, "a", encoding="utf-8") as file:
            file.write(f"{os.getpid()}\n{sleeper.pid}\n")
    if mode == "crash-at-start":
        sys.stderr.write("Error: Cannot find module '/srv/missing.js'\n")
        sys.exit(1)
    cache = os.environ.get("BROKEN_HARNESS_PYCACHE")
    if cache:
        sys.pycache_prefix, sys.dont_write_bytecode = cache, False
    from dsh_reference.harness import Driver

    driver = Driver()
    runs = 0
    for line in sys.stdin:
        message = json.loads(line)
        if message["type"] == "stop":
            return
        response = driver.handle(message)
        if message["type"] == "start":
            if mode == "bad-handshake":
                response["protocol"] = 999
            if mode == "slow-start":
                time.sleep(60)
            if mode == "log-before-started":
                write("harness listening, loading 3 plugins\n")
        else:
            runs += 1
            if at:
                misbehaving = at.get(message["case"])
            elif runs % every == 0 and mode not in _START_MODES:
                misbehaving = mode
            else:
                misbehaving = None
            if misbehaving and not misbehave(misbehaving, message, response):
                continue
        write(json.dumps(response) + "\n")


def misbehave(mode: str, message: dict[str, object], response: dict[str, object]) -> bool:
    """Misbehave at a ``run``; whether ``response`` should still be written."""
    if mode == "crash":
        sys.stderr.write(f"broken harness: crashing on case {message['case']}\n")
        sys.stderr.flush()
        sys.exit(3)
    if mode == "hang":
        time.sleep(3600)
    if mode == "garbage":
        write("this is not a protocol message\n")
        return False
    if mode == "wrong-case":
        response["case"] = "some/other-case"
    if mode == "endless-line":
        while True:
            write("x" * 65536)
    if mode == "huge-garbage":
        write("y" * 6_000_000 + "\n")
        return False
    if mode == "huge-stderr":
        for _ in range(20):
            sys.stderr.write("z" * 1_000_000)
        sys.stderr.flush()
        sys.exit(3)
    if mode == "double":
        write(json.dumps(response) + "\n" + json.dumps(response) + "\n")
        return False
    if mode == "flood":  # the answer, then the same answer again without end
        line = json.dumps(response) + "\n"
        write(line)
        while True:
            write(line * 1000)
    if mode == "late-double":
        write(json.dumps(response) + "\n")
        time.sleep(0.3)
    if mode == "extra-field":
        response["extra"] = 1
    if mode == "errored-without-case":
        response.clear()
        response.update(type="errored", context="no case id here")
    if mode == "bad-observation":
        response["observations"][0] = {"assembly": {"sections": 3}}
    if mode == "wide":
        response["observations"] += [{"ok": True}] * 60_000
    if mode == "wide-at-count":
        response["observations"][0] = {
            "sections": [{"name": "s", "text": "t"}] * 200_000,
            "text": "",
        }
    if mode == "huge-string":
        response["observations"][0] = {"text": "x" * 6_000_000}
    if mode == "all-ok" and "observations" in response:
        response["observations"] = [{"ok": True}] * len(response["observations"])
    if mode == "big-number":
        response["observations"][0] = {"ok": 10**399}
    if mode == "deep":
        response["observations"][0] = "DEEP"
        deep = "[" * 100_000 + "]" * 100_000
        write(json.dumps(response).replace('"DEEP"', deep) + "\n")
        return False
    return True


def write(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
