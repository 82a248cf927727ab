"""The suite under pytest-xdist (``-n N``): every worker judges through its own harness process
(or in-process driver), and the controller gathers what they found into the one report a serial
run prints.

What the workers found travels back through xdist's own channel, never through files:

- each test's result rides on its test report (the attribute `RESULT`, serialized with the report
  and read back on the controller by ``pytest_runtest_logreport``), so a worker that crashes
  loses none of the results it already sent;
- what only the end of a worker's session knows rides in xdist's ``workeroutput``
  (`worker_output`): the tests it collected (every worker collects the same ones) and those it
  deselected, answers found late (after their case was over, or when the harness was closed), the
  run-failing verdicts they caused, and how each implementation described itself.

A harness whose handshake says ``implementation.singleInstance`` (PROTOCOL.md, 1.4) may not run
as two processes at once: the controller asks each implementation for its handshake before the
workers start (`single_instance_labels`), and then schedules the tests itself (`Controller.
pytest_xdist_make_scheduler`): all of that harness's tests are one unit of work, which one worker
runs, and every other test a unit of its own. Only ``--dist each`` (every test on every worker)
is refused. (xdist's own ``--dist loadgroup`` cannot do it with pytest 9.2, whose node ids it
can no longer rewrite.)
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Final

import pytest

from ..harness.protocol import ProtocolError
from ..harness.transport import Implementation
from .report import Report, Result

#: The test report's attribute that carries the suite's result of that test to the controller.
RESULT: Final = "dsh_conformance"
#: The key of the worker's share in ``workeroutput``.
OUTPUT: Final = "dsh_conformance"


def is_worker(config: pytest.Config) -> bool:
    """Whether this process is an xdist worker (it runs tests; the controller reports)."""
    return hasattr(config, "workerinput")


def is_controller(config: pytest.Config) -> bool:
    """Whether this process hands the tests out to xdist workers and runs none itself."""
    option = config.option
    return (
        not is_worker(config)
        and getattr(option, "dist", "no") != "no"
        and bool(getattr(option, "tx", None))
    )


def encode(result: Result) -> str:
    """A result as JSON text in ASCII: execnet carries only strings it can encode as UTF-8, and
    a case's ops may hold lone surrogates (JSON escapes them)."""
    return json.dumps(dataclasses.asdict(result), ensure_ascii=True)


def decode(text: str) -> Result:
    data = json.loads(text)
    return Result(**{**data, "contracts": tuple(data["contracts"])})


#: How an implementation described itself: its description line and its handshake's fields
#: (`dsh_conformance.run.report.ImplementationInfo`), as JSON-ready values.
Described = tuple[str, dict[str, Any] | None]


def worker_output(
    report: Report, late: list[Result], verdicts: list[str], descriptions: dict[str, Described]
) -> dict[str, Any]:
    """A worker's share of the report that no test report carried (see the module's docstring)."""
    return {
        "collected": [[label, test, list(c)] for (label, test), c in report.collected.items()],
        "deselected": [list(key) for key in sorted(report.deselected)],
        "late": [encode(result) for result in late],
        "verdicts": verdicts,
        "descriptions": descriptions,
    }


def merge(
    report: Report, verdicts: list[str], descriptions: dict[str, Described], data: Any
) -> None:
    """Add a worker's share (`worker_output`) to the controller's report. Every worker collected
    the same tests in the same order, so the report's order is the serial run's. A description
    from a handshake (``started``) wins over "stopped: …", which wins over "not started"."""
    for label, test, contracts in data["collected"]:
        report.collect(label, test, tuple(contracts))
    for label, test in data["deselected"]:
        report.deselect(label, test)
    for result in data["late"]:
        report.record(decode(result))
    verdicts.extend(data["verdicts"])
    for label, (description, handshake) in data["descriptions"].items():
        if _rank(description) > _rank(descriptions.get(label, (None, None))[0]):
            descriptions[label] = (description, handshake)


def _rank(description: str | None) -> int:
    if description is None or description == "not started":
        return 0
    return 1 if description.startswith("stopped: ") else 2


def single_instance_labels(implementations: dict[str, Implementation]) -> list[str]:
    """The implementations whose handshake declares ``singleInstance``, each asked once on the
    controller and stopped again before any worker starts. One whose handshake fails is left to
    the workers, which report the failure as a serial run does."""
    found = []
    for label, impl in implementations.items():
        try:
            if impl.handshake().single_instance:
                found.append(label)
        except ProtocolError:
            pass
        finally:
            impl.close()
    return found


class Controller:
    """The controller's side of a distributed run (registered only when xdist is loaded, as its
    hooks exist only then)."""

    def __init__(self, report: Report, verdicts: list[str], single: list[str], dist: str) -> None:
        self.report = report
        self.verdicts = verdicts
        self.single = single
        self.dist = dist
        #: How each implementation described itself in the workers, by label.
        self.descriptions: dict[str, Described] = {}

    def refusal(self) -> str | None:
        """Why the run cannot go on as asked: a single-instance harness under ``--dist each``."""
        if not self.single or self.dist != "each":
            return None
        return (
            f"--impl {', '.join(self.single)}: the harness says it may not run twice at once "
            "(implementation.singleInstance in its handshake), and --dist each runs every test "
            "on every worker; run without --dist each"
        )

    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        """With a single-instance harness: its tests are one unit of work, which one worker
        runs; every other test is a unit of its own (else xdist's own scheduling)."""
        if not self.single:
            return None
        from xdist.scheduler import LoadScopeScheduling  # type: ignore[import-untyped]

        labels = self.single

        class KeptTogether(LoadScopeScheduling):  # type: ignore[misc]
            def _split_scope(self, nodeid: str) -> str:
                return next((f"@{label}" for label in labels if runs_on(nodeid, label)), nodeid)

        return KeptTogether(config, log)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """A worker's result of one test, carried by its test report."""
        found = getattr(report, RESULT, None)
        if found is not None:
            self.report.record(decode(found))

    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        data = getattr(node, "workeroutput", {}).get(OUTPUT)
        if data is not None:
            merge(self.report, self.verdicts, self.descriptions, data)


def runs_on(nodeid: str, label: str) -> bool:
    """Whether the test ``nodeid`` runs against the implementation ``label``: its parameters'
    id (``[...]``) names it first, last or alone, as pytest joins them."""
    return any(part in nodeid for part in (f"[{label}]", f"[{label}-", f"-{label}]"))
