"""The time zone the suite runs every implementation in (PROTOCOL.md, "The harness's environment").

On a machine whose zone is UTC, as CI machines and most servers are, an implementation that reads
a GMT date in local time (an HTTP-date ``Retry-After``, PROMPT-DEEPSEEK-WIRE: "IMF-fixdate, RFC
850 or asctime, all GMT") reads it right and passes every case. So the suite does not leave the
zone to the machine: a harness process is started with ``TZ`` set to `HARNESS_TZ`, a zone that is
not UTC and not a whole number of hours from it (a date read in local time is then off by
5 h 30 min, whatever else it gets wrong), and an in-process driver is built and called with this
process's zone switched to it (`harness_zone`), then switched back, so that the suite's own code
and any other tests in the session keep the machine's zone.

The zone goes to a harness process as a zone name: the C library (with the machine's zone data),
Node (its own ICU data), Java, Go and .NET all read it; Node ignores a POSIX rule such as
``IST-5:30`` and falls back to UTC. In this process the C library applies it: when the machine has
no zone data, the rule is used instead, and where Python cannot switch zones at all (no
`time.tzset`: Windows), in-process drivers run in the machine's zone. `problems` says so.
"""

from __future__ import annotations

import contextlib
import functools
import os
import time
from collections.abc import Iterator
from typing import Final

#: India Standard Time: UTC+5:30, no daylight saving time since 1945.
HARNESS_TZ: Final = "Asia/Kolkata"
#: Its offset east of UTC, in seconds.
HARNESS_OFFSET: Final = 19800
#: The same zone as a POSIX rule, which the C library reads without any zone data.
_POSIX_RULE: Final = "IST-5:30"


def harness_environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment a harness process is started with: the suite's own with ``extra`` (a
    command spec's ``NAME=VALUE`` words) over it, ``TZ`` set."""
    return {**os.environ, **(extra or {}), "TZ": HARNESS_TZ}


@contextlib.contextmanager
def harness_zone() -> Iterator[None]:
    """This process in the harness's zone while the block runs (unchanged where it cannot be)."""
    value = _in_process_value()
    if value is None:
        yield
        return
    with _zone(value):
        yield


def problems(in_process: bool) -> list[str]:
    """Why this machine cannot give the implementations (some of them ``in_process``) the
    harness's zone as PROTOCOL.md says."""
    if not hasattr(time, "tzset"):
        if not in_process:
            return []
        return [
            "in-process implementations run in this machine's time zone: this platform has no "
            "time.tzset, so the suite cannot switch it (a date read in local time is caught "
            f"only where the zone is not UTC); harness processes still get TZ={HARNESS_TZ}"
        ]
    if _in_process_value() != HARNESS_TZ:
        return [
            f"this machine has no zone data for {HARNESS_TZ}: a harness process that reads TZ "
            f"through the C library runs in UTC (Node uses its own data); in-process "
            f"implementations run under the rule {_POSIX_RULE} instead"
        ]
    return []


@functools.cache
def _in_process_value() -> str | None:
    """The ``TZ`` value that gives this process the harness's zone, seen taking effect; ``None``
    where no value does."""
    if not hasattr(time, "tzset"):
        return None
    for value in (HARNESS_TZ, _POSIX_RULE):
        with _zone(value):
            if time.localtime(0).tm_gmtoff == HARNESS_OFFSET:
                return value
    return None


@contextlib.contextmanager
def _zone(value: str) -> Iterator[None]:
    previous = os.environ.get("TZ")
    os.environ["TZ"] = value
    time.tzset()
    try:
        yield
    finally:
        if previous is None:
            del os.environ["TZ"]
        else:
            os.environ["TZ"] = previous
        time.tzset()
