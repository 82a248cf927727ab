"""Every command's exit statuses, in one table: the code returns these names, and the README's
"Exit codes" table says the same.

The run (``dsh-conformance [OPTIONS]``) keeps pytest's codes: a CI script reading pytest's
statuses reads the suite's. The subcommands (``info``, ``smoke``, ``check-log``, ``fuzz``,
``summary``, ``export-cases``, ``run-case``) use three: done, found something, could not do it.
"""

from __future__ import annotations

from typing import Final

#: The run conformed: nothing failed, errored or was stale (with ``--fail-on-skip``, every
#: selected test ran). Any subcommand that did its job and found nothing wrong.
OK: Final = 0
#: The run: a test failed or errored, a baseline entry is stale or names no test, a late second
#: answer, a failed handshake, ``--fail-on-skip`` found a test that did not run (the live test
#: included), or no selected test ran to a verdict (no capability a selected test needs, or all
#: skipped: no verdict is no pass). A subcommand: it found something (``info``/``smoke``: a failed
#: handshake, case or smoke-file reply; ``check-log``: a violation, or a log with no events;
#: ``fuzz``: a divergence; ``run-case``: the case failed, errored or did not run).
FOUND: Final = 1
#: Interrupted (Ctrl-C), or the `conformance` extra is missing; for a subcommand, also a usage
#: error: a bad option, an ``--impl`` that cannot be loaded or built, a file that cannot be read
#: or written (nothing half-written is left).
INTERRUPTED: Final = 2
UNUSABLE: Final = 2
#: pytest's internal error: a bug of pytest or of the suite, never a user's mistake.
INTERNAL_ERROR: Final = 3
#: The run's usage error, before anything runs: a bad option, an unknown ``--contract``, an
#: ``--impl`` naming no program, or a module or class that does not import or build, a report
#: path that is a directory or in a missing one, ``--live`` without a key or in CI.
USAGE_ERROR: Final = 4
#: The run selected no test (``--case``, ``-k``, ``--contract`` matched nothing).
NOTHING_SELECTED: Final = 5
