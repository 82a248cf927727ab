"""What generation avoids (`dsh_conformance.fuzz.generate.AVOIDED`) says why, truthfully.

A reason that calls an outcome open must not stand once PROTOCOL.md settles it: the ABORTED
failure's finish kind is settled (PROTOCOL.md's REPLY: kind `aborted`), so its entry says so and
names the example case that compares it.
"""

from __future__ import annotations

import re

from dsh_conformance.cases import all_cases
from dsh_conformance.fuzz.generate import AVOIDED

CASE_ID = re.compile(r"`([a-z]+(?:-[a-z]+)*/[a-z0-9-]+)`")


def test_the_aborted_failure_is_no_open_choice_any_more() -> None:
    (why,) = [why for what, why in AVOIDED if "code ABORTED" in what]
    assert "PROTOCOL.md's REPLY" in why
    assert "nothing says" not in why
    (named,) = CASE_ID.findall(why)
    assert named == "loop/an-adapter-failure-with-code-aborted-is-logged-as-an-aborted-finish"
    assert named in {case.id for case in all_cases()}
