"""The pytest plugin: choose implementations, parametrize the cases, report by contract ID.

Loaded through the ``pytest11`` entry point. Options:

- ``--impl SPEC`` (repeatable): ``reference``, ``module:attr`` (an in-process object or class with
  ``handle(message)``), or a command line for the subprocess transport. Without it, the ini
  option ``conformance_impls`` is used (default: ``reference``).
- ``--case-timeout SECONDS``: the longest one case may take (default 10).
- ``--contract ID`` (repeatable): run only tests tagged with one of these contract IDs.
- ``--conformance-json PATH``: write the per-contract results as JSON.
- ``--expected-failures PATH``: a baseline. Each line names a test as the report does (for
  example ``test_example[registry/duplicate-section-same-layer]``; ``#`` starts a comment). A
  listed test that fails or errors counts as an expected failure and does not fail the run; a
  listed test that passes fails the run, so the baseline never goes stale.

Tests take the ``impl`` fixture and carry ``@pytest.mark.contract(...)``; each runs once per
implementation. The terminal summary prints the table of `conformance.report`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from .case import CONTRACT_IDS
from .execute import NOT_APPLICABLE, ImplementationErrored
from .protocol import ProtocolError
from .report import ImplementationInfo, Outcome, Report, Result
from .transport import DEFAULT_TIMEOUT, Implementation, load_implementation

_STATE = pytest.StashKey["_State"]()

settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=60,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "dev", deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow]
)


class _State:
    def __init__(
        self,
        implementations: dict[str, Implementation],
        baseline: Baseline | None,
        contracts: list[str],
    ) -> None:
        self.implementations = implementations
        self.baseline = baseline
        self.report = Report(c for c in CONTRACT_IDS if not contracts or c in contracts)
        self.ran_conformance = False


class Baseline:
    """The expected-failures file: test keys, and which of them matched a collected test."""

    def __init__(self, path: str) -> None:
        self.path = path
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as error:
            raise pytest.UsageError(f"--expected-failures: cannot read {path}: {error}") from error
        lines = (line.split("#", 1)[0].strip() for line in text.splitlines())
        self.keys = {line for line in lines if line}
        self.matched: set[str] = set()

    def mark(self, item: pytest.Item, key: str) -> None:
        if key in self.keys:
            self.matched.add(key)
            reason = f"expected failure, listed in {self.path}; remove it once it passes"
            item.add_marker(pytest.mark.xfail(strict=True, reason=reason))


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("dsh-conformance", "DSH prompt-assembly conformance")
    group.addoption(
        "--impl",
        action="append",
        default=[],
        metavar="SPEC",
        help="implementation under test: 'reference', 'module:attr', or a command line "
        "speaking conformance/PROTOCOL.md on stdin/stdout (repeatable)",
    )
    group.addoption(
        "--case-timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"longest time one case may take (default {DEFAULT_TIMEOUT:g})",
    )
    group.addoption(
        "--contract",
        action="append",
        default=[],
        metavar="ID",
        help="run only conformance tests tagged with this contract ID (repeatable)",
    )
    group.addoption("--conformance-json", metavar="PATH", help="write per-contract results as JSON")
    group.addoption(
        "--expected-failures",
        metavar="PATH",
        help="baseline of tests expected to fail (one per line); a listed test that passes "
        "fails the run",
    )
    parser.addini(
        "conformance_impls",
        type="linelist",
        default=["reference"],
        help="implementations to test when --impl is not given",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "contract(*ids): the contract IDs a conformance test checks")
    if not config.getoption("--hypothesis-profile", None):
        settings.load_profile("ci" if os.environ.get("CI") else "dev")
    unknown = sorted(set(config.getoption("--contract")) - set(CONTRACT_IDS))
    if unknown:
        raise pytest.UsageError(f"--contract: unknown contract ID(s) {unknown}")
    specs = config.getoption("--impl") or config.getini("conformance_impls")
    implementations: dict[str, Implementation] = {}
    for spec in specs:
        try:
            impl = load_implementation(spec, timeout=config.getoption("--case-timeout"))
        except (ImportError, AttributeError, TypeError, ValueError) as error:
            raise pytest.UsageError(f"--impl {spec!r}: {error}") from error
        implementations[impl.label] = impl
    path = config.getoption("--expected-failures")
    config.stash[_STATE] = _State(
        implementations, Baseline(path) if path else None, config.getoption("--contract")
    )


def pytest_unconfigure(config: pytest.Config) -> None:
    state = config.stash.get(_STATE, None)
    if state is not None:
        for impl in state.implementations.values():
            impl.close()


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "impl" in metafunc.fixturenames:
        labels = list(metafunc.config.stash[_STATE].implementations)
        metafunc.parametrize("impl", labels, indirect=True, ids=labels, scope="session")


@pytest.fixture(scope="session")
def impl(request: pytest.FixtureRequest) -> Implementation:
    """The implementation under test (one parameter per ``--impl``)."""
    return request.config.stash[_STATE].implementations[request.param]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    wanted = set(config.getoption("--contract"))
    baseline = config.stash[_STATE].baseline
    selected: list[pytest.Item] = []
    deselected: list[pytest.Item] = []
    for item in items:
        if "impl" not in getattr(item, "fixturenames", ()):
            (deselected if wanted else selected).append(item)
            continue
        contracts = _contracts(item)
        if not contracts:
            raise pytest.UsageError(
                f"{item.nodeid}: a conformance test needs @pytest.mark.contract"
            )
        unknown = sorted(set(contracts) - set(CONTRACT_IDS))
        if unknown:
            raise pytest.UsageError(f"{item.nodeid}: unknown contract ID(s) {unknown}")
        if baseline is not None:
            baseline.mark(item, _key(item))
        # JUnit XML (--junitxml) carries these as <property> elements of the test case.
        item.user_properties.append(("contracts", " ".join(contracts)))
        (selected if not wanted or wanted & set(contracts) else deselected).append(item)
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = selected


def pytest_runtest_setup(item: pytest.Item) -> None:
    impl = _impl_of(item)
    if impl is not None:
        impl.latched_error = None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]) -> Any:
    report = yield
    label = _label_of(item)
    if label is not None and (report.when == "call" or not report.passed):
        state = item.config.stash[_STATE]
        state.ran_conformance = True
        state.report.record(
            Result(
                test=_key(item),
                implementation=label,
                contracts=_contracts(item),
                outcome=_classify(report, call),
                message=_message(report, call),
            )
        )
    return report


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    state = config.stash.get(_STATE, None)
    if state is None or not state.ran_conformance:
        return
    for label, impl in state.implementations.items():
        try:
            description = impl.handshake().describe()
        except ProtocolError as error:
            description = f"no handshake: {error}"
        state.report.implementations[label] = ImplementationInfo(label, description)
    terminalreporter.write_sep("=", "conformance by contract ID")
    terminalreporter.write_line(state.report.render())
    if state.baseline is not None:
        unmatched = sorted(state.baseline.keys - state.baseline.matched)
        if unmatched:
            terminalreporter.write_line(
                f"{len(unmatched)} entr{'y' if len(unmatched) == 1 else 'ies'} of "
                f"{state.baseline.path} matched no collected test (renamed, or filtered out):"
            )
            terminalreporter.write_line("\n".join(f"  {key}" for key in unmatched))
    path = config.getoption("--conformance-json")
    if path:
        Path(path).write_text(state.report.to_json() + "\n", encoding="utf-8")
        terminalreporter.write_line(f"conformance results written to {path}")


def _key(item: pytest.Item) -> str:
    """The test's name without the implementation parameter: the same for every ``--impl``."""
    name = getattr(item, "originalname", item.name)
    callspec = getattr(item, "callspec", None)
    if callspec is None:
        return name
    label = callspec.params.get("impl")
    rest = callspec.id
    if rest == label:
        rest = ""
    elif rest.startswith(f"{label}-"):
        rest = rest[len(label) + 1 :]
    elif rest.endswith(f"-{label}"):
        rest = rest[: -len(label) - 1]
    return f"{name}[{rest}]" if rest else name


def _contracts(item: pytest.Item) -> tuple[str, ...]:
    return tuple(c for marker in item.iter_markers("contract") for c in marker.args)


def _label_of(item: pytest.Item) -> str | None:
    callspec = getattr(item, "callspec", None)
    return callspec.params.get("impl") if callspec is not None else None


def _impl_of(item: pytest.Item) -> Implementation | None:
    label = _label_of(item)
    return None if label is None else item.config.stash[_STATE].implementations[label]


def _classify(report: pytest.TestReport, call: pytest.CallInfo[Any]) -> Outcome:
    if report.passed:
        return "passed"
    if report.skipped and hasattr(report, "wasxfail"):
        return "expected failure"
    if report.skipped:
        return "not applicable" if NOT_APPLICABLE in _longrepr_text(report) else "skipped"
    if report.when != "call" or _is_errored(call.excinfo.value if call.excinfo else None):
        return "errored"
    return "failed"


def _is_errored(error: BaseException | None) -> bool:
    if isinstance(error, BaseExceptionGroup):
        return any(_is_errored(inner) for inner in error.exceptions)
    return isinstance(error, ImplementationErrored)


def _message(report: pytest.TestReport, call: pytest.CallInfo[Any]) -> str:
    if report.passed:
        return ""
    if report.failed and call.excinfo is None:  # a strict xfail that passed
        return str(report.longrepr)
    if call.excinfo is not None and not report.skipped:
        return str(call.excinfo.value)
    return _longrepr_text(report)


def _longrepr_text(report: pytest.TestReport) -> str:
    """A skip's reason (pytest keeps it as ``(file, line, reason)``), else the report text."""
    longrepr = report.longrepr
    return longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
