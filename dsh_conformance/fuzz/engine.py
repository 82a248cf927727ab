"""Running generated scenarios within a budget, stopping at the first divergence, shrinking it.

Each scenario is sent to the other implementation first (``against``, the reference model by
default). A scenario it cannot run (``errored``: a release of a handle whose registration was
rejected, a render of an assembly that produced none) uses the protocol outside what it defines:
it is discarded, not judged (`hypothesis.reject`). Otherwise the implementation under test runs
it, and both oracles judge (`dsh_conformance.fuzz.oracles`). The first divergence is shrunk by
Hypothesis to a minimal op sequence; its examples are kept in a database of the suite's own (see
`default_database`), replayed first on the next run.

A run is a series of Hypothesis batches seeded ``seed``, ``seed + 1``, …, until the budget is
spent: a fixed seed makes a run reproducible (with the database switched off, or empty). Until
its first divergence, a run draws the same scenarios whatever the implementation (each batch is
a Hypothesis run of its own, which sees only which scenarios passed and which were discarded, and
``against`` decides the discards): so a `Corpus` of one family's scenarios, recorded once with
``against``'s observations, serves every implementation fuzzed with that seed (`fuzz_over`
replays it, and draws again only from the batch where the implementation first diverges).
Shrinking gets a budget of its own, a number of scenarios (``shrink_examples``) and, for a user
with a slow implementation, seconds (``shrink_budget``); once it is spent, shrinking stops at the
next scenario not yet judged, and the result is the smallest divergence judged so far (fewest
ops, then the shortest JSON text). Hypothesis's shrinker, left to settle, would go on trying
thousands of candidates that can no longer be judged, each drawn again at a cost of its own
(most of the fuzz gallery's time went there). Only the count makes the shrunk scenario the same
on any machine: the seconds depend on its speed. A second count, of scenarios drawn while
shrinking (``shrink_draws``, judged or not), bounds the candidates that are drawn only to turn
out the same ops as one already judged, which cost a draw each and no judged scenario: a
scenario that draws choices its ops never show (the loop family's swarm draws which part of each
table it may use) gives the shrinker thousands of those. The database keeps nothing after the
stop (`_KeptUntilSpent`): the scenario shrinking stopped at was never judged, so the next run
replays a divergence first.
"""

from __future__ import annotations

import functools
import math
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal, NoReturn

from hypothesis import HealthCheck, Phase, given, reject, seed, settings
from hypothesis.database import DirectoryBasedExampleDatabase, ExampleDatabase

from ..harness.protocol import Outcome
from ..harness.transport import Implementation
from ..judge.jsontext import dumps
from . import http
from .generate import EXTENDS, FAMILIES, REQUIRES, scenarios
from .oracles import differences, expectations, self_check

Json = Any
#: Examples per Hypothesis batch: the budget is checked between batches.
BATCH: Final = 100


@dataclass(frozen=True)
class Divergence:
    """One scenario on which the implementation broke a rule or differed from ``against``."""

    family: str
    ops: list[Json]
    #: The expectation of each op, from ``against``'s observations (`oracles.expectation`).
    expected: list[Json]
    observed: Json
    #: ``(op index, what differs)`` of the differential oracle; index -1: not one op.
    differences: list[tuple[int, str]]
    #: ``(op index, contract ID, what is wrong)`` of the self-check oracle.
    violations: list[tuple[int, str, str]]
    #: Why the implementation produced no observations (``errored``), or ``None``.
    errored: str | None = None
    #: The capabilities the scenario was drawn under: its family's, and the 1.2 ones both
    #: implementations declared (a case made of it requires them).
    requires: tuple[str, ...] = ()

    def problems(self) -> list[str]:
        found = [f"errored: {self.errored}"] if self.errored else []
        return found + [text for _, text in self.differences] + [t for *_, t in self.violations]


@dataclass
class Run:
    """What a fuzzing run did."""

    examples: int = 0
    discarded: int = 0
    #: Scenarios judged before the first divergence whose divergence was a known one (`judge`).
    explained: int = 0
    seconds: float = 0.0
    first: Divergence | None = None
    #: Seconds from the start to the first divergence, and the scenarios run until then
    #: (`examples` goes on counting while the divergence is shrunk).
    first_seconds: float | None = None
    first_examples: int = 0
    shrunk: Divergence | None = None
    #: Scenarios judged while shrinking (replays of one already judged not counted).
    shrink_examples: int = 0
    #: Scenarios drawn while shrinking, judged or not.
    shrink_draws: int = 0
    families: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class Judged:
    """A scenario a run judged, and what ``against`` observed (``None``: it could not run it, so
    the scenario was discarded)."""

    key: str
    ops: list[Json]
    reference: Outcome | None


@dataclass(frozen=True)
class Corpus:
    """What a run of one family draws with a seed, batch by batch, and ``against``'s
    observations of it: the scenarios any implementation meets up to its first divergence."""

    family: str
    seed: int
    #: The most scenarios a run judges (`fuzz`'s ``examples``).
    examples: int
    #: The capabilities the scenarios were drawn under (`declared`).
    capabilities: frozenset[str]
    batches: tuple[tuple[Judged, ...], ...]


@dataclass(frozen=True)
class Resume:
    """Where a run starts when the batches before it are known to pass (`fuzz_over`): the batch,
    the scenarios judged and discarded before it, those that passed (as JSON text, the keys a run
    remembers verdicts by), the seconds spent on them, and how many of them passed as known
    divergences."""

    batch: int
    examples: int
    discarded: int
    passed: frozenset[str]
    seconds: float
    explained: int = 0


class _Diverged(Exception):
    def __init__(self, divergence: Divergence) -> None:
        super().__init__("\n".join(divergence.problems()))
        self.divergence = divergence


class _ShrinkingSpent(BaseException):
    """The shrinking budget is spent. Not an `Exception`, so that Hypothesis does not take it
    for a failure of the scenario and lets it out of the shrinker at once."""


class _KeptUntilSpent(ExampleDatabase):
    """A run's database, which keeps nothing more once shrinking is spent. Hypothesis saves the
    choices of a test case that raises a `BaseException` (a crash, to replay it first next
    time), and the scenario `_ShrinkingSpent` stops at was never judged: kept, it would be
    replayed before the divergence found, and the next run would find that one second."""

    def __init__(self, database: ExampleDatabase) -> None:
        super().__init__()
        self.database = database
        self.spent = False

    def save(self, key: bytes, value: bytes) -> None:
        if not self.spent:
            self.database.save(key, value)

    def fetch(self, key: bytes) -> Iterable[bytes]:
        return self.database.fetch(key)

    def delete(self, key: bytes, value: bytes) -> None:
        self.database.delete(key, value)

    def move(self, src: bytes, dest: bytes, value: bytes) -> None:
        if not self.spent:
            self.database.move(src, dest, value)


def _size(divergence: Divergence) -> tuple[int, int]:
    """How small a divergence's scenario is: its ops, then its length as JSON text."""
    return len(divergence.ops), len(dumps(divergence.ops))


def default_database() -> Path:
    """``$XDG_CACHE_HOME/dsh-conformance/fuzz`` (``~/.cache/...``): the suite's own place,
    never the directory the command is run from."""
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache")
    return Path(cache) / "dsh-conformance" / "fuzz"


def families_for(*capabilities: frozenset[str]) -> tuple[str, ...]:
    """The families every implementation can run (each declares what the family needs)."""
    return tuple(
        family
        for family in FAMILIES
        if all(set(REQUIRES[family]) <= declared for declared in capabilities)
    )


def declared(impl: Implementation, against: Implementation) -> frozenset[str]:
    """The capabilities both implementations declare: generation draws only their ops."""
    return impl.handshake().capabilities & against.handshake().capabilities


#: The families whose scenarios run inside something of the suite's own: the ``http`` family's
#: loopback servers, started around each run (`dsh_conformance.fuzz.http.run`).
RUNNERS: Final[dict[str, Callable[[Implementation, str, list[Json]], Outcome]]] = {"http": http.run}


def run_scenario(
    impl: Implementation, family: str, ops: list[Json], case_id: str = "fuzz/generated"
) -> Outcome:
    """Run a scenario of ``family`` on ``impl``: through the family's runner when it has one."""
    runner = RUNNERS.get(family)
    return runner(impl, case_id, ops) if runner else impl.run(case_id, {"ops": ops})


def compare(
    family: str, ops: list[Json], reference: Outcome, own: Outcome, requires: tuple[str, ...]
) -> Divergence | None:
    """What the two oracles find in ``own`` (the implementation's outcome; ``errored``, or
    observed) against ``reference`` (observed): ``None`` if they are satisfied."""
    expected = expectations(ops, reference.observations)
    if own.kind == "errored":
        context = dumps(own.context)[:2000] if own.context is not None else ""
        errored = f"{own.reason} {context}".strip()
        return Divergence(family, ops, expected, None, [], [], errored, requires)
    found = differences(ops, expected, own.observations)
    violations = self_check(ops, own.observations)
    if not found and not violations:
        return None
    return Divergence(family, ops, expected, own.observations, found, violations, None, requires)


#: A scenario outside what the protocol defines for ``against`` (it could not run it), or one
#: the implementation skips: not judged (`judge`).
DISCARDED: Final = "discarded"
#: A scenario whose divergence the known divergences explain (`dsh_conformance.fuzz.known`): it
#: counts as passed, so the search goes on past it and shrinking never turns an unexplained
#: divergence into one of these.
EXPLAINED: Final = "explained"
#: Whether a divergence is a known one (`dsh_conformance.fuzz.known.explainer` makes one).
Explains = Callable[[Divergence], bool]
Verdict = Divergence | Literal["discarded", "explained"] | None


def judge(
    impl: Implementation,
    family: str,
    ops: list[Json],
    reference: Outcome,
    requires: tuple[str, ...],
    explains: Explains | None = None,
) -> Verdict:
    """One scenario judged, as the search (`fuzz`), the corpus replay (`fuzz_over`) and the
    one-op deletions after shrinking (`dsh_conformance.fuzz.found.reduced`) all judge it:
    `DISCARDED` if ``against``'s outcome (``reference``) is not observed or ``impl`` skips the
    scenario,
    `EXPLAINED` if what the two oracles find in ``impl``'s outcome is a divergence ``explains``
    knows, else that divergence (`compare`; ``None``: nothing)."""
    if reference.kind != "observed":
        return DISCARDED
    own = run_scenario(impl, family, ops)
    if own.kind == "skipped":
        return DISCARDED
    found = compare(family, ops, reference, own, requires)
    if found is not None and explains is not None and explains(found):
        return EXPLAINED
    return found


def requirements(family: str, capabilities: frozenset[str]) -> tuple[str, ...]:
    """The capabilities a scenario of ``family`` drawn under ``capabilities`` requires."""
    return REQUIRES[family] + tuple(c for c in EXTENDS[family] if c in capabilities)


def fuzz(
    impl: Implementation | None,
    against: Implementation,
    *,
    budget: float,
    seed_value: int,
    database: ExampleDatabase | None,
    families: tuple[str, ...],
    shrink_budget: float = math.inf,
    shrink_examples: float = math.inf,
    shrink_draws: float = math.inf,
    examples: float = math.inf,
    resume: Resume | None = None,
    record: Callable[[int, Judged], None] | None = None,
    explains: Explains | None = None,
) -> Run:
    """Generate scenarios for ``budget`` seconds (and at most ``examples`` of them: a budget
    that does not depend on the machine's speed) or until the first divergence, then shrink it
    within ``shrink_budget`` seconds, ``shrink_examples`` scenarios judged and ``shrink_draws``
    drawn (the counts, again, the same on any machine).

    With ``resume``, the run starts at its batch, as if the batches before it had passed. Each
    scenario judged is handed to ``record`` with its batch; with no ``impl``, only ``against``
    runs them (what `record_corpus` records), and nothing diverges. A divergence ``explains``
    knows passes (counted in `Run.explained`): the run stops at the first it does not know."""
    run = Run(families=families)
    verdicts: dict[str, Divergence | None] = {}
    batch, start = 0, time.monotonic()
    if resume is not None:
        batch, run.examples, run.discarded = resume.batch, resume.examples, resume.discarded
        run.explained = resume.explained
        verdicts = dict.fromkeys(resume.passed)
        start -= resume.seconds
    capabilities = declared(impl or against, against)
    smallest: Divergence | None = None  # judged so far: the result if shrinking is cut short
    kept = _KeptUntilSpent(database) if database is not None else None

    def spent() -> NoReturn:
        if kept is not None:
            kept.spent = True
        raise _ShrinkingSpent

    def check(scenario: tuple[str, list[Json]]) -> None:
        nonlocal smallest
        family, ops = scenario
        if run.first_seconds is not None:
            if run.shrink_draws >= shrink_draws:
                spent()
            run.shrink_draws += 1
        key = dumps(ops)
        elapsed = time.monotonic() - start
        if key in verdicts:
            verdict = verdicts[key]
        elif run.first_seconds is None and (elapsed > budget or run.examples >= examples):
            return  # the budget is spent: the batch runs out without running anything
        elif run.first_seconds is not None and (
            elapsed > run.first_seconds + shrink_budget or run.shrink_examples >= shrink_examples
        ):
            spent()
        else:
            run.examples += 1
            if run.first_seconds is not None:
                run.shrink_examples += 1
            reference = run_scenario(against, family, ops)
            observed = reference.kind == "observed"
            if record is not None:
                record(batch, Judged(key, ops, reference if observed else None))
            judged: Verdict = None if observed else DISCARDED
            if impl is not None:
                requires = requirements(family, capabilities)
                judged = judge(impl, family, ops, reference, requires, explains)
            if judged == DISCARDED:
                run.discarded += 1
                reject()
            run.explained += judged == EXPLAINED and run.first_seconds is None
            verdict = judged if isinstance(judged, Divergence) else None
            verdicts[key] = verdict
        if verdict is not None:
            if run.first is None:
                run.first, run.first_seconds = verdict, time.monotonic() - start
                run.first_examples = run.examples
            if smallest is None or _size(verdict) < _size(smallest):
                smallest = verdict
            raise _Diverged(verdict)

    while time.monotonic() - start < budget and run.examples < examples:
        phases = [Phase.generate, Phase.shrink]
        if batch == 0:
            phases.insert(0, Phase.reuse)
        configured = settings(
            database=kept,
            max_examples=BATCH,
            deadline=None,
            phases=phases,
            suppress_health_check=list(HealthCheck),
            report_multiple_bugs=False,
            print_blob=False,
        )
        strategy = scenarios(families, capabilities)
        # `seed` switches the database off in the settings it finds, so it is applied first.
        test = configured(seed(seed_value + batch)(given(strategy)(check)))
        try:
            test()
        except _Diverged as diverged:
            run.shrunk = diverged.divergence
            break
        except _ShrinkingSpent:
            run.shrunk = smallest
            break
        batch += 1
    run.seconds = time.monotonic() - start
    return run


def record_corpus(
    against: Implementation, family: str, *, seed_value: int, examples: int
) -> Corpus:
    """The scenarios of ``family`` a run with ``seed_value`` judges (at most ``examples``),
    with ``against``'s observations of each, batch by batch."""
    batches: list[list[Judged]] = []

    def keep(batch: int, judged: Judged) -> None:
        batches.extend([] for _ in range(batch + 1 - len(batches)))
        batches[batch].append(judged)

    fuzz(
        None,
        against,
        budget=math.inf,
        seed_value=seed_value,
        database=None,
        families=(family,),
        examples=examples,
        record=keep,
    )
    capabilities = declared(against, against)
    return Corpus(family, seed_value, examples, capabilities, tuple(tuple(b) for b in batches))


def fuzz_over(
    corpus: Corpus,
    impl: Implementation,
    against: Implementation,
    *,
    shrink_examples: float,
    shrink_draws: float = math.inf,
    explains: Explains | None = None,
) -> Run:
    """What `fuzz` with the corpus's family, seed and count, no database and no time budget returns,
    without drawing what the corpus holds: ``impl`` runs the corpus's scenarios, compared with
    the observations recorded; at the first that diverges (or that ``impl`` skips), `fuzz` draws
    again from that scenario's batch, knowing the batches before it passed, and shrinks."""
    start = time.monotonic()
    again = functools.partial(
        fuzz,
        impl,
        against,
        budget=math.inf,
        seed_value=corpus.seed,
        database=None,
        families=(corpus.family,),
        shrink_examples=shrink_examples,
        shrink_draws=shrink_draws,
        examples=corpus.examples,
        explains=explains,
    )
    capabilities = declared(impl, against)
    if capabilities != corpus.capabilities:
        return again()  # other scenarios than the corpus's are drawn
    requires = requirements(corpus.family, capabilities)
    judged = discarded = explained = 0
    passed: set[str] = set()
    for batch, scenarios_judged in enumerate(corpus.batches):
        seconds = time.monotonic() - start
        resume = Resume(batch, judged, discarded, frozenset(passed), seconds, explained)
        for scenario in scenarios_judged:
            judged += 1
            if scenario.reference is None:
                discarded += 1
                continue
            ops, reference = scenario.ops, scenario.reference
            verdict = judge(impl, corpus.family, ops, reference, requires, explains)
            if verdict not in (None, EXPLAINED):
                return again(resume=resume)  # it diverges, or ``impl`` skips it
            explained += verdict == EXPLAINED
            passed.add(scenario.key)
    return Run(
        examples=judged,
        discarded=discarded,
        explained=explained,
        seconds=time.monotonic() - start,
        families=(corpus.family,),
    )


def database_at(path: str | None) -> ExampleDatabase | None:
    """``None`` (``--database none``), an explicit directory, or `default_database`."""
    if path == "none":
        return None
    return DirectoryBasedExampleDatabase(str(Path(path) if path else default_database()))
