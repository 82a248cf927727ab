"""The conformance suite for the DeepSeek Harness prompt-assembly contracts.

It judges any implementation, in any language, through one JSON protocol (PROTOCOL.md beside this
file): example cases with hand-worked expectations, hypothesis properties whose expected outcome
is generated with the input, and a report by contract ID. Run it with ``dsh-conformance``, or with
pytest and ``-p conformance.plugin`` (never loaded automatically: no pytest11 entry point).
"""

from .case import CONTRACT_IDS, Case
from .protocol import PROTOCOL_VERSION

__all__ = ["CONTRACT_IDS", "PROTOCOL_VERSION", "Case"]
