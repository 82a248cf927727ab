"""An ``errored`` answer has the shape PROTOCOL.md fixes: ``{type, case, context?}``, no other key.

PROTOCOL.md, ``run`` → ``errored``: "`errored` is for a scenario the implementation could not
execute (an unknown op, a handle that does not exist, an exception its harness did not expect). It
is reported as an error of the implementation, never as a pass." No example case makes a conforming
harness answer ``errored``, so without this test a harness whose ``errored`` answer breaks the
schema (a misspelt ``context`` key, which the mutation run of the reference harness found
surviving, issue 15) passes every case. The scenario is the smoke file's line that sends an op
outside the schema, of which PROTOCOL.md says "the harness must answer `errored`, not crash".
Both transports check every answer against ``protocol.schema.json``: an answer that does not fit
makes the outcome a protocol violation instead of the harness's own ``errored``, and fails here.
The rule is PROTOCOL.md's, not a contract's; it is filed under PROMPT-REGISTRY-CONTRACT, the
contract of the ``registry`` capability every harness declares (PROMPT-REGISTRY-CONTRACT.17).
"""

from __future__ import annotations

from typing import Final

import pytest

from .harness.protocol import ANSWERED_ERRORED
from .harness.transport import Implementation
from .run.execute import ConformanceFailure, require_capabilities
from .run.smoke import smoke_lines

CONTRACT: Final = "PROMPT-REGISTRY-CONTRACT"


@pytest.mark.contract(CONTRACT)
def test_a_case_it_cannot_run_is_answered_errored_in_the_protocol_shape(
    impl: Implementation,
) -> None:
    """The smoke file's op outside the schema is answered ``errored``, and the answer fits the
    schema."""
    __tracebackhide__ = True
    require_capabilities(impl, ("registry",))
    (line,) = [line for line in smoke_lines() if line.get("outsideSchema")]
    sent = line["send"]
    outcome = impl.run(sent["case"], sent["scenario"])
    if outcome.kind == "errored" and outcome.reason == ANSWERED_ERRORED:
        return
    got = outcome.reason if outcome.kind == "errored" else f"{outcome.kind} {outcome.observations}"
    raise ConformanceFailure(
        f"{sent['case']}: a scenario the implementation cannot run (an op outside the schema) "
        "must be answered with PROTOCOL.md's errored shape, {type: 'errored', case, context?} "
        f"and no other key; got: {got}",
        sent["scenario"]["ops"],
    )
