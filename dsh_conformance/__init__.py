"""The conformance suite for the DeepSeek Harness prompt-assembly contracts.

It judges any implementation, in any language, through one JSON protocol (PROTOCOL.md beside this
file): example cases with hand-worked expectations, hypothesis properties whose expected outcome
is generated with the input, and a report by contract ID. Run it with ``dsh-conformance``, or with
pytest and ``-p dsh_conformance.run.plugin`` (never loaded automatically: no pytest11 entry point).

The packages, in import order (each imports only those below it; ``tests/test_layout.py`` holds
the map and checks it on every run):

- `run`: the CLI, the pytest plugin, the reports and the summary page;
- `fuzz`: generated scenarios, judged by the suite's own checks and against another
  implementation (imports `deepseek`, `harness`, `judge`, `scenarios`);
- `deepseek`: the DeepSeek loopback server and its cases (imports `cases`, `harness`, `judge`,
  `scenarios`);
- `cases`, `harness`, `requirements`: the example cases, talking to an implementation, the
  requirement catalog (which names cases by id and imports none of them);
- `judge`: pure comparisons and oracles;
- `scenarios`: op builders, importing nothing of the suite.

`export/` holds no Python: the documents and the Node runner a foreign runner of the exported cases
reads. The suite's test modules (``test_*.py``) sit beside the packages, where pytest finds them.
"""

from .harness.protocol import PROTOCOL_VERSION
from .judge.case import CONTRACT_IDS, Case

__all__ = ["CONTRACT_IDS", "PROTOCOL_VERSION", "Case"]
