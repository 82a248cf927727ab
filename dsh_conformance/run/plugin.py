"""The pytest plugin: choose implementations, parametrize the cases, report by contract ID.

It is never loaded behind anyone's back: no ``pytest11`` entry point. ``dsh-conformance`` loads it
with ``-p dsh_conformance.run.plugin``, and so does this project's own pytest configuration. Once
loaded it touches only the suite's own tests (the modules inside the `conformance` package): another
project's fixture named ``impl``, its Hypothesis profile and its tests under ``--contract`` are
left alone.

Its options are in `dsh_conformance.run.options` (``dsh-conformance --help`` lists them). Without
``--impl``, the ini option ``conformance_impls`` names the implementations (default: ``reference``).

Tests take the ``impl`` fixture and carry ``@pytest.mark.contract(...)``; each runs once per
implementation. The terminal summary prints the table of `dsh_conformance.run.report`.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
from importlib import metadata
from pathlib import Path
from typing import Any, Final

import pytest
from hypothesis import HealthCheck, settings

from ..harness.protocol import PROTOCOL_VERSION
from ..harness.transport import (
    UNLOADABLE,
    Implementation,
    InProcess,
    in_process,
    load_implementation,
)
from ..harness.zone import problems as zone_problems
from ..judge.case import CONTRACT_IDS, known_contracts
from ..judge.jsontext import printable
from . import distributed
from .baseline import BaselineFile
from .execute import LIVE_NOT_RUN, NOT_APPLICABLE, NOT_REACHED, ImplementationErrored
from .files import write_whole
from .interrupt import Latch
from .options import OPTIONS
from .progress import Watch
from .report import DECIDED, ImplementationInfo, Outcome, Report, Result, verdict

_STATE = pytest.StashKey["_State"]()
_WATCH = pytest.StashKey[Watch]()
_LATCH = pytest.StashKey[Latch]()
#: The suite's package (``dsh_conformance/``), one level above this one.
_PACKAGE: Final = Path(__file__).resolve().parents[1]

#: The suite's Hypothesis settings, applied to the suite's property tests only (never loaded as a
#: global profile): deterministic under CI, and no deadline (a subprocess answers in its own time).
_HYPOTHESIS: Final = {
    "ci": settings(
        derandomize=True,
        database=None,
        deadline=None,
        max_examples=60,
        print_blob=True,
        suppress_health_check=[HealthCheck.too_slow],
    ),
    "dev": settings(deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow]),
}


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
        self.report.baseline_file = None if baseline is None else baseline.file
        self.errors: dict[str, int] = dict.fromkeys(implementations, 0)
        #: Why the run fails although pytest saw nothing fail (said in the summary).
        self.verdicts: list[str] = []
        #: Results of answers found after their test was over (a worker sends them at its end).
        self.late: list[Result] = []
        #: Under pytest-xdist, on the controller: what gathers the workers' results.
        self.controller: distributed.Controller | None = None


class Baseline:
    """The expected-failures file: test keys with their reasons, and which keys matched a
    collected test."""

    def __init__(self, path: str) -> None:
        self.path = path
        try:
            self.file = BaselineFile.read(path)
        except OSError as error:
            raise pytest.UsageError(f"--expected-failures: cannot read {path}: {error}") from error
        self.keys = set(self.file.reasons)
        self.matched: set[str] = set()

    def mark(self, item: pytest.Item, key: str) -> None:
        if key in self.keys:
            self.matched.add(key)
            reason = f"stale baseline entry: expected to fail (listed in {self.path}), but passed"
            item.add_marker(pytest.mark.xfail(strict=True, reason=reason))


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("dsh-conformance", "DSH prompt-assembly conformance")
    for flag, settings_ in OPTIONS:
        group.addoption(flag, **settings_)
    parser.addini(
        "conformance_impls",
        type="linelist",
        default=["reference"],
        help="implementations to test when --impl is not given",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "contract(*ids): the contract IDs a conformance test checks")
    try:
        config.option.contract = list(known_contracts(config.getoption("--contract")))
    except ValueError as error:
        raise pytest.UsageError(f"--contract: {error}") from None
    _refuse_unmatched_globs(config.getoption("--case"))
    if config.getoption("--live") and not os.environ.get("DEEPSEEK_API_KEY"):
        raise pytest.UsageError(
            "--live runs PROMPT-CACHE-E2E against DeepSeek: set DEEPSEEK_API_KEY"
        )
    if config.getoption("--live") and os.environ.get("CI"):
        raise pytest.UsageError("--live: the live test is never run in CI (CI is set)")
    _check_output_path(config, "--conformance-json")
    _check_output_path(config, "--write-expected-failures")
    specs = config.getoption("--impl") or config.getini("conformance_impls")
    implementations: dict[str, Implementation] = {}
    # Several Python drivers would share this process's modules: each then gets its own process.
    isolated = sum(in_process(spec) for spec in specs) > 1
    for spec in specs:
        try:
            impl = load_implementation(
                spec,
                timeout=config.getoption("--case-timeout"),
                isolated=isolated,
                start_timeout=config.getoption("--start-timeout"),
            )
        except UNLOADABLE as error:
            raise pytest.UsageError(f"--impl {spec!r}: {error}") from error
        if impl.label in implementations:
            raise pytest.UsageError(f"--impl {spec!r} is given twice")
        implementations[impl.label] = impl
    in_this_process = any(isinstance(impl, InProcess) for impl in implementations.values())
    for problem in zone_problems(in_this_process):
        config.issue_config_time_warning(UserWarning(f"dsh-conformance: {problem}"), stacklevel=2)
    baseline_out = config.getoption("--write-expected-failures")
    if baseline_out and len(implementations) > 1 and "{impl}" not in baseline_out:
        raise pytest.UsageError(
            "--write-expected-failures: with several --impl, PATH must contain {impl} "
            "(one baseline per implementation)"
        )
    path = config.getoption("--expected-failures")
    state = _State(
        implementations, Baseline(path) if path else None, config.getoption("--contract")
    )
    config.stash[_STATE] = state
    if distributed.is_controller(config):
        _distribute(config, state)
    config.stash[_WATCH] = Watch(config, list(implementations.values()))
    config.stash[_LATCH] = Latch()
    config.stash[_LATCH].install()


def _distribute(config: pytest.Config, state: _State) -> None:
    """Under pytest-xdist, on the controller: gather the workers' results (`distributed`)."""
    controller = distributed.Controller(
        state.report,
        state.verdicts,
        distributed.single_instance_labels(state.implementations),
        config.getoption("dist"),
    )
    refusal = controller.refusal()
    if refusal is not None:
        raise pytest.UsageError(refusal)
    state.controller = controller
    config.pluginmanager.register(controller, "dsh-conformance-controller")


def _check_output_path(config: pytest.Config, option: str) -> None:
    """Refuse a report path whose directory is missing, or that is a directory, before the run,
    not after it."""
    path = config.getoption(option)
    if path and Path(path).is_dir():
        raise pytest.UsageError(f"{option}: {path} is a directory; give a file name")
    if path and not Path(path).resolve().parent.is_dir():
        raise pytest.UsageError(f"{option}: the directory of {path} does not exist")


def pytest_unconfigure(config: pytest.Config) -> None:
    latch = config.stash.get(_LATCH, None)
    if latch is not None:
        latch.uninstall()
    watch = config.stash.get(_WATCH, None)
    if watch is not None:
        watch.stop()
    state = config.stash.get(_STATE, None)
    if state is not None:
        for impl in state.implementations.values():
            impl.close()


@functools.cache
def _in_suite(path: Path) -> bool:
    """Whether a test module is one of the suite's own (inside the `conformance` package)."""
    return path.resolve().is_relative_to(_PACKAGE)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "impl" in metafunc.fixturenames and _in_suite(metafunc.definition.path):
        labels = list(metafunc.config.stash[_STATE].implementations)
        metafunc.parametrize("impl", labels, indirect=True, ids=labels, scope="session")


@pytest.fixture(scope="session")
def impl(request: pytest.FixtureRequest) -> Implementation:
    """The implementation under test (one parameter per ``--impl``), for the suite's tests."""
    if not hasattr(request, "param"):
        pytest.fail("the 'impl' fixture of dsh-conformance serves only the suite's own tests")
    implementation: Implementation = request.config.stash[_STATE].implementations[request.param]
    return implementation


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Check and register the suite's tests before anything (``-k``, ``-m``) deselects some."""
    state = config.stash[_STATE]
    wanted = set(config.getoption("--contract"))
    globs = config.getoption("--case"), config.getoption("--skip-case")
    # A profile named with ``--hypothesis-profile`` is applied as the suite's own are, not only
    # loaded as Hypothesis's default: a property test imported before the profile was loaded
    # (a process that imports the suite once and runs it many times) takes it too.
    named = config.getoption("--hypothesis-profile", None)
    profile = (
        settings.get_profile(named)
        if named
        else _HYPOTHESIS["ci" if os.environ.get("CI") else "dev"]
    )
    selected: list[pytest.Item] = []
    deselected: list[pytest.Item] = []
    for item in items:
        label = _label_of(item)
        if label is None:
            selected.append(item)
            continue
        contracts = _contracts(item)
        if not contracts:
            raise pytest.UsageError(
                f"{item.nodeid}: a conformance test needs @pytest.mark.contract"
            )
        unknown = sorted(set(contracts) - set(CONTRACT_IDS))
        if unknown:
            raise pytest.UsageError(f"{item.nodeid}: unknown contract ID(s) {unknown}")
        key = _key(item)
        if state.baseline is not None:
            state.baseline.mark(item, key)
        state.report.collect(label, key, contracts)
        test = getattr(item, "obj", None)
        if profile is not None and getattr(test, "is_hypothesis_test", False):
            _apply_settings(test, profile)
        chosen = (not wanted or wanted & set(contracts)) and _case_chosen(item, *globs)
        (selected if chosen else deselected).append(item)
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = selected


def _refuse_unmatched_globs(include: list[str]) -> None:
    """A ``--case`` glob that matches no case of the suite is named before anything starts (a
    typo ran nothing and said nothing: issue 37, M7; found while collecting instead, it crashed
    pytest-xdist, whose workers collect)."""
    if not include:
        return
    # Imported here: the case tables `catalog` reads are a cost only a run given --case needs.
    from .catalog import unmatched_glob

    glob = unmatched_glob(include)
    if glob is not None:
        raise pytest.UsageError(
            f"--case {glob!r} matches no example case (dsh-conformance --list shows them)"
        )


def _case_chosen(item: pytest.Item, include: list[str], exclude: list[str]) -> bool:
    """``--case`` / ``--skip-case``: whether ``item`` runs, by the id of the case it runs; a test
    that runs no example case runs only when no ``--case`` is given."""
    case_id = _case_id(item)
    if not isinstance(case_id, str):
        return not include
    if include and not any(fnmatch.fnmatchcase(case_id, glob) for glob in include):
        return False
    return not any(fnmatch.fnmatchcase(case_id, glob) for glob in exclude)


def _case_id(item: pytest.Item) -> Any:
    """The id of the case ``item`` runs (a string): an example case's, or a DeepSeek HTTP
    case's (`catalog.case_ids`); ``None`` for a test that runs no case."""
    params = getattr(getattr(item, "callspec", None), "params", {})
    return getattr(params.get("case", params.get("http_case")), "id", None)


def _apply_settings(test: Any, profile: settings) -> None:
    """The suite's settings under whatever the test itself says (`hypothesis.settings`)."""
    if not getattr(test, "_dsh_conformance_settings", False):
        own = getattr(test, "_hypothesis_internal_use_settings", None)
        explicit = getattr(test, "_hypothesis_internal_settings_applied", False)
        test._hypothesis_internal_use_settings = own if explicit else profile
        test._dsh_conformance_settings = True


def pytest_deselected(items: list[pytest.Item]) -> None:
    for item in items:
        label = _label_of(item)
        if label is not None:
            item.config.stash[_STATE].report.deselect(label, _key(item))


def pytest_runtest_setup(item: pytest.Item) -> None:
    latch = item.config.stash.get(_LATCH, None)
    if latch is not None:
        latch.check()
    impl = _impl_of(item)
    if impl is not None:
        impl.latched_error = None
        impl.owner = _key(item)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]) -> Any:
    report = yield
    label = _label_of(item)
    latch = item.config.stash.get(_LATCH, None)
    if latch is not None and latch.seen and report.when == "call" and not report.skipped:
        _cut_short(item, report)
    if label is not None and (report.when == "call" or not report.passed):
        state = item.config.stash[_STATE]
        outcome = _classify(report, call)
        result = Result(
            test=_key(item),
            implementation=label,
            contracts=_contracts(item),
            outcome=outcome,
            message=_message(report, call),
            ops=_ops(report, call),
        )
        state.report.record(result)
        if distributed.is_worker(item.config):
            setattr(report, distributed.RESULT, distributed.encode(result))
        impl = state.implementations[label]
        _record_late_errors(state, impl)
        if outcome == "errored":
            _count_error(item.config, state, impl)
    return report


def _cut_short(item: pytest.Item, report: pytest.TestReport) -> None:
    """Ctrl-C came while the test ran, and the code it landed in swallowed it (`interrupt`):
    whatever the test found, passed or failed, is no verdict on the implementation (issue 37).
    It was not reached, as the tests after it."""
    reason = f"Skipped: {NOT_REACHED} interrupted (Ctrl-C) while it ran"
    report.outcome = "skipped"
    report.longrepr = (str(item.path), item.location[1] or 0, reason)


def _record_late_errors(state: _State, impl: Implementation) -> None:
    """Answer lines that came after their case was over, blamed on the test that ran it."""
    for late in impl.late_errors:
        contracts = state.report.collected.get((impl.label, late.owner), ())
        result = Result(late.owner, impl.label, contracts, "errored", late.message)
        state.report.record(result)
        state.late.append(result)
        state.verdicts.append(
            f"{impl.label}: {late.owner} answered with more than one line (found after it ended)"
        )
    impl.late_errors.clear()


def _count_error(config: pytest.Config, state: _State, impl: Implementation) -> None:
    state.errors[impl.label] += 1
    limit = config.getoption("--max-errors")
    if limit is not None and state.errors[impl.label] >= limit and impl.stopped is None:
        impl.stopped = f"--max-errors {limit} reached"


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """What pytest cannot see decides too: late errors, ``--fail-on-skip``, a stale baseline,
    and Ctrl-C that the last test swallowed (the run was interrupted all the same)."""
    latch = session.config.stash.get(_LATCH, None)
    if latch is not None and latch.seen and session.exitstatus != pytest.ExitCode.INTERRUPTED:
        session.exitstatus = pytest.ExitCode.INTERRUPTED
        terminal = session.config.pluginmanager.get_plugin("terminalreporter")
        if terminal is not None:
            # After the progress line, which pytest ends only after this hook.
            terminal.write("\ninterrupted (Ctrl-C) in the last test: it was not reached")
    state = session.config.stash.get(_STATE, None)
    if state is None or not state.report.collected or session.config.option.collectonly:
        return
    for impl in state.implementations.values():
        impl.close()  # what it prints on its way out may still be blamed on its last case
        _record_late_errors(state, impl)
        if impl.start_failure is not None:
            state.verdicts.append(f"{impl.label}: {impl.start_failure}")
    if distributed.is_worker(session.config):
        _describe_implementations(state)
        descriptions = {
            label: (info.description, info.handshake)
            for label, info in state.report.implementations.items()
        }
        output = distributed.worker_output(state.report, state.late, state.verdicts, descriptions)
        session.config.workeroutput[distributed.OUTPUT] = output  # type: ignore[attr-defined]
        return
    for label in state.report.labels():
        # Nothing ran to a verdict (a harness declaring no capability a selected test needs, or
        # skipping them all): no verdict is no pass (issue 37).
        results = state.report.of(label)
        if any(r.outcome != "deselected" for r in results) and not any(
            r.outcome in DECIDED or r.outcome == "not reached" for r in results
        ):
            state.verdicts.append(
                f"{label}: no selected test ran to a verdict (skipped or not applicable): "
                "nothing ran, which is no pass"
            )
    if state.controller is not None and state.baseline is not None:
        collected = {test for _, test in state.report.collected}
        state.baseline.matched |= state.baseline.keys & collected
    if session.config.getoption("--fail-on-skip"):
        for label in state.report.labels():
            selection = state.report.selection(label)
            idle = sum(
                selection[key]
                for key in ("skipped", "not applicable", "not reached", "live not run")
            )
            if idle:
                state.verdicts.append(
                    f"--fail-on-skip: {idle} selected test(s) of {label} did not run"
                )
    if state.baseline is not None:
        unmatched = sorted(state.baseline.keys - state.baseline.matched)
        if unmatched:
            state.verdicts.append(
                f"{len(unmatched)} entr{'y' if len(unmatched) == 1 else 'ies'} of "
                f"{state.baseline.path} name no test of the suite: " + ", ".join(unmatched)
            )
    if state.verdicts and session.exitstatus in (pytest.ExitCode.OK, 0):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    _describe_implementations(state)
    _junit_properties(session.config, state.report)


def _describe_implementations(state: _State) -> None:
    """How each implementation described itself; on the controller of a distributed run, as the
    workers saw it (the controller's own handshake only asked whether it is single-instance)."""
    gathered = {} if state.controller is None else state.controller.descriptions
    for label, impl in state.implementations.items():
        handshake = impl.known_handshake
        fields: dict[str, Any] | None = None
        if label in gathered:
            description, fields = gathered[label]
        elif handshake is not None:
            description = handshake.describe()
            fields = {
                "name": handshake.name,
                "version": handshake.version,
                "language": handshake.language,
                "capabilities": sorted(handshake.capabilities),
            }
        elif impl.stopped is not None:
            description = f"stopped: {impl.stopped}"
        else:
            description = "not started"
        state.report.implementations[label] = ImplementationInfo(label, description, fields)


def _junit_properties(config: pytest.Config, report: Report) -> None:
    """Contract verdicts as properties of the JUnit test suite (xunit2 allows them there only)."""
    for plugin in config.pluginmanager.get_plugins():
        add = getattr(plugin, "add_global_property", None)
        if add is None:
            continue
        for label in report.labels():
            add(f"dsh-conformance {label}", report.status(label))
            for contract, row in report.tally(label).items():
                add(f"dsh-conformance {label} {contract}", verdict(row))


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    state = config.stash.get(_STATE, None)
    if state is None or not state.report.collected or config.getoption("--collect-only"):
        return
    if distributed.is_worker(config):
        return  # the controller reports, and writes the files, for every worker
    terminalreporter.write_sep("=", "conformance by contract ID")
    colour = bool(getattr(terminalreporter, "hasmarkup", False)) and not os.environ.get("NO_COLOR")
    terminalreporter.write_line(state.report.render(colour))
    for line in state.verdicts:
        terminalreporter.write_line(f"run failed: {line}")
    if state.verdicts:
        # pytest's closing line counts what pytest saw ("9 passed"): it says the run failed too.
        terminalreporter.stats.setdefault("run failed", []).extend(state.verdicts)
    path = config.getoption("--conformance-json")
    if path:
        suite = {
            "name": "dsh-prompt-conformance",
            "version": _version(),
            "protocol": PROTOCOL_VERSION,
        }
        if _written(terminalreporter, path, state.report.to_json(suite) + "\n"):
            terminalreporter.write_line(f"conformance results written to {path}")
    template = config.getoption("--write-expected-failures")
    if template:
        for label in state.report.labels():
            target = template.replace("{impl}", re.sub(r"[^\w.-]+", "_", label))
            if _written(terminalreporter, target, state.report.baseline(label)):
                terminalreporter.write_line(f"baseline of {label} written to {target}")


def _written(terminalreporter: Any, path: str, text: str) -> bool:
    """Write ``text`` to ``path`` (`write_whole`); one that cannot be written (a full disk,
    ``/proc``) is one line, never a traceback that loses the run's verdict (issue 37)."""
    try:
        write_whole(Path(path), text)
    except OSError as error:
        reason = error.strerror or str(error)
        terminalreporter.write_line(f"dsh-conformance: cannot write {path}: {reason}")
        return False
    return True


def _version() -> str:
    try:
        return metadata.version("dsh-prompt-conformance")
    except metadata.PackageNotFoundError:
        return "0+unknown"


def _key(item: pytest.Item) -> str:
    """The test's name without the implementation parameter: the same for every ``--impl``."""
    return key_of(getattr(item, "originalname", item.name), getattr(item, "callspec", None))


def key_of(name: str, callspec: Any) -> str:
    """`_key` of the test function ``name`` run with ``callspec`` (pytest's parameters of one
    call, ``None`` for none), known before pytest makes the test item."""
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
    """The implementation a suite test runs against; ``None`` for any other test."""
    callspec = getattr(item, "callspec", None)
    if callspec is None or "impl" not in callspec.params or not _in_suite(item.path):
        return None
    label: str = callspec.params["impl"]
    return label


def _impl_of(item: pytest.Item) -> Implementation | None:
    label = _label_of(item)
    return None if label is None else item.config.stash[_STATE].implementations[label]


def _classify(report: pytest.TestReport, call: pytest.CallInfo[Any]) -> Outcome:
    if report.passed:
        return "passed"
    if report.failed and call.excinfo is None and report.when == "call":
        return "stale baseline"  # a strict xfail (listed in the baseline) that passed
    if report.skipped and hasattr(report, "wasxfail"):
        return "expected failure"
    if report.skipped:
        reason = _longrepr_text(report)
        if NOT_APPLICABLE in reason:
            return "not applicable"
        if LIVE_NOT_RUN in reason:
            return "live not run"
        return "not reached" if NOT_REACHED in reason else "skipped"
    if report.when != "call" or _is_errored(call.excinfo.value if call.excinfo else None):
        return "errored"
    return "failed"


def _is_errored(error: BaseException | None) -> bool:
    if isinstance(error, BaseExceptionGroup):
        return any(_is_errored(inner) for inner in error.exceptions)
    return isinstance(error, ImplementationErrored)


def _message(report: pytest.TestReport, call: pytest.CallInfo[Any]) -> str:
    """What the report says of a test; printable, whatever an exception or a skip carried."""
    if report.passed:
        return ""
    if report.failed and call.excinfo is None:  # a strict xfail that passed
        return printable(str(report.longrepr))
    if call.excinfo is not None and not report.skipped:
        return printable(str(call.excinfo.value))
    return printable(_longrepr_text(report))


def _ops(report: pytest.TestReport, call: pytest.CallInfo[Any]) -> list[Any] | None:
    """The ops of the case a test failed on, when the failure names them."""
    if report.failed and call.excinfo is not None:
        return getattr(call.excinfo.value, "ops", None)
    return None


def _longrepr_text(report: pytest.TestReport) -> str:
    """A skip's reason (pytest keeps it as ``(file, line, reason)``), else the report text."""
    longrepr = report.longrepr
    return longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
