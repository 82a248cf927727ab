"""An in-process driver (``module:attr``) served in a Python process of its own.

When a run compares several in-process implementations, each would otherwise share the suite's
modules with the others: one that patches a module (a gallery entry does) would change what the
next one runs, and could make the reference fail. `load_implementation` (in
`dsh_conformance.harness.transport`) then starts each in its own process running `main`, which
speaks PROTOCOL.md over stdin/stdout like any harness, so the subprocess transport's containment
applies too.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from .transport import DriverRaised, DriverUnusable, driver_of

Json = Any


def main(spec: str) -> None:
    """Answer JSON-lines messages with the driver ``spec`` names, until ``stop`` or end of input;
    what its ``handle`` raises, or a ``sys.exit``, is answered ``errored``, naming it."""
    try:
        driver = driver_of(spec)
    except DriverUnusable as error:  # one line for the suite to show, not a traceback
        sys.stderr.write(f"{spec}: {error}\n")
        sys.exit(1)
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        try:
            answer = driver.handle(message)
        except (Exception, SystemExit) as error:
            answer = {
                "type": "errored",
                "case": message.get("case"),
                "context": str(DriverRaised(error)),
            }
        if answer is None:
            return
        sys.stdout.write(json.dumps(answer, allow_nan=False) + "\n")
        sys.stdout.flush()
