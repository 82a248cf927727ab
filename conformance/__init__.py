"""The conformance suite for the DeepSeek Harness prompt-assembly contracts.

It judges any implementation, in any language, through one JSON protocol (PROTOCOL.md beside this
file): example cases with hand-worked expectations, hypothesis properties whose expected outcome
is generated with the input, and a report by contract ID. Run it with ``dsh-conformance``, or with
pytest and ``-p conformance.run.plugin`` (never loaded automatically: no pytest11 entry point).

The packages, in import order (each imports only those below it): `run` (the CLI, the pytest
plugin, reports); `cases`, `deepseek` (which builds on `cases`), `harness` and `requirements`
(example cases, the DeepSeek loopback server, talking to an implementation, the requirement
catalog, which names cases by id and imports none of them); `judge` (pure comparisons and oracles);
`scenarios` (op builders). The suite's test modules (``test_*.py``) sit beside them, where pytest
finds them.
"""

from .harness.protocol import PROTOCOL_VERSION
from .judge.case import CONTRACT_IDS, Case

__all__ = ["CONTRACT_IDS", "PROTOCOL_VERSION", "Case"]
