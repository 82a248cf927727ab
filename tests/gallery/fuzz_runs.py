"""The fuzz gallery's runs: each wrong implementation fuzzed against the reference, in a lane of
its own beside the rest of the suite, and by the tests themselves when they get there.

Fuzzing one wrong implementation takes seconds of CPU, and the gallery has over a hundred and fifty
of them: run one after another in the test process they were most of the test command's time
(issue 19, goal 6), while the second core had little to do. So `conftest.py` starts a lane (this
module as a script) as soon as collection is over, and it works through the selected entries
from the first; when the tests reach them, each test takes its entry's verdict if it is there,
fuzzes it itself if nobody has begun it, and otherwise, while the lane finishes it, fuzzes
entries nobody has begun from the last. Each entry is fuzzed exactly once, by whoever claims it
first (a claim is a file created with ``O_EXCL``), and its verdict is a JSON file written whole
(renamed into place), which the test asserts on.

Both sides fuzz with the same fixed seed and counts (`fuzzed`), so a verdict does not depend on
which process made it. When a lane has several entries of a family, each process records the
family's scenarios, with the reference's observations, once (`corpus`): every entry of the
family meets the same scenarios up to its first divergence, so each entry runs the recorded ones
and draws again only from the batch where it diverges (`dsh_conformance.fuzz.engine.fuzz_over`: the
verdict is the one drawing everything gives).
In either, the wrong implementation is served from a child process of its own (it may patch the
reference model for the life of its process), and the reference it is compared with runs in the
fuzzing process, never patched.

    python fuzz_runs.py DIRECTORY DRIVER=FAMILY...
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Final

from dsh_conformance.deepseek.loopback import allow_loopback_sockets
from dsh_conformance.fuzz.engine import Corpus, Run, fuzz, fuzz_over, record_corpus
from dsh_conformance.fuzz.found import as_case, reduced, replayed
from dsh_conformance.harness.transport import Implementation, load_implementation
from dsh_conformance.judge.case import Case

GALLERY: Final = Path(__file__).parent
SEED: Final = 0
#: Scenarios per wrong implementation, and the scenarios Hypothesis may judge while shrinking:
#: counts, not seconds, so that the shrunk case (and the contract it is filed under) is the
#: same on any machine at any load. An entry costs only the scenarios up to its first
#: divergence, so the first count is what the entries found last need: the loop family's rarer
#: shapes (a turn held while a cancel, a steer and a follow-up arrive) come after 500 to 1100.
EXAMPLES: Final = 1200
#: The count of a family whose entries need more than `EXAMPLES`. The scenarios a run draws
#: first do not depend on its count (each batch of `dsh_conformance.fuzz.engine.fuzz` is a
#: Hypothesis run seeded by its number; the count only cuts the last one short), so a larger
#: count leaves every entry found within a smaller one as it was; over a recorded corpus it costs
#: recording the extra scenarios once per process, and replaying them for the entries never
#: found. The loop family's, since the route restarts (issue 35), seed 0 finds:
#: EmptyDecisionWithoutAList after 4,635 scenarios, RestoredEffortWins after 3,768,
#: ResolutionWithoutTheTurnSignal after 3,726 (all three within 3,600 before),
#: AdapterDefaultEffortRestored after 3,029 (3,540 before), EffortRestoredForAnyRoute after
#: 2,093 (1,575 before; a new instance on the other route with no effort of its own over a
#: first agent's: the 5 of the first 3,600 scenarios that show it are all of that shape).
EXAMPLES_BY_FAMILY: Final = {"loop": 4700}
#: The gallery proves that fuzzing finds each entry, and under which contract; how small `fuzz`
#: makes a user's case is the command's own `--shrink-examples`. At 100 judged examples every
#: entry is found as at 200 and filed under the same contract but one (`FOUND_UNDER`), while
#: the fuzzing takes about half the time; 45 of the 245 shrunk cases end larger (by 1 to 10 ops),
#: 4 smaller (by 1).
SHRINK_EXAMPLES: Final = 100
#: Scenarios drawn while shrinking, judged or not: the loop family's swarm scenarios gave the
#: shrinker thousands of candidates that turn out the same ops as one already judged (one entry
#: drew 5,200 for 135 judged, 42 s of CPU); before the swarm, no entry's shrunk case got smaller
#: after its 1,000th draw.
SHRINK_DRAWS: Final = 2000

Verdict = dict[str, Any]

#: The families whose scenarios each process records once (`corpus`). Not ``http``: most of an
#: exchange's cost is its loopback servers, which the implementation's side needs anyway, and
#: its entries are found within a few dozen scenarios.
RECORDED: Final = ("registry", "session", "loop", "wire")
_CORPORA: dict[str, Corpus] = {}


def examples(family: str) -> int:
    """The scenarios an entry of ``family`` is fuzzed with, at most (`EXAMPLES_BY_FAMILY`)."""
    return EXAMPLES_BY_FAMILY.get(family, EXAMPLES)


def corpus(family: str, reference: Implementation) -> Corpus:
    """``family``'s scenarios of the fixed seed and count, with ``reference``'s observations:
    recorded by the first entry of the family this process fuzzes."""
    if family not in _CORPORA:
        _CORPORA[family] = record_corpus(
            reference, family, seed_value=SEED, examples=examples(family)
        )
    return _CORPORA[family]


def served(driver: str) -> Implementation:
    """The gallery's implementation ``driver``, in a process of its own: a wrong implementation
    by its name, a conforming variant as ``right_impls:Name@family`` (an entry per family)."""
    module, _, name = driver.split("@")[0].rpartition(":")
    code = (
        f"import sys; sys.path.insert(0, {str(GALLERY)!r}); import {module or 'wrong_impls'}; "
        f"from dsh_reference.harness import serve; serve({module or 'wrong_impls'}.{name}())"
    )
    return load_implementation(f"{shlex.quote(sys.executable)} -c {shlex.quote(code)}")


def fuzzed(impl: Implementation, reference: Implementation, family: str, *, recorded: bool) -> Run:
    """Fuzz ``impl`` against the reference within the fixed seed and counts, in one family (the
    gallery figures script, benchmarks/fuzz_gallery.py, runs the same); over the family's
    recorded corpus if ``recorded`` (the same run, cheaper over several entries of a family)."""
    for side in (impl, reference):
        side.handshake()
        side.check_schema = False
    if recorded and family in RECORDED:
        return fuzz_over(
            corpus(family, reference),
            impl,
            reference,
            shrink_examples=SHRINK_EXAMPLES,
            shrink_draws=SHRINK_DRAWS,
        )
    return fuzz(
        impl,
        reference,
        budget=600.0,
        seed_value=SEED,
        database=None,
        families=(family,),
        shrink_examples=SHRINK_EXAMPLES,
        shrink_draws=SHRINK_DRAWS,
        examples=examples(family),
    )


def problems(impl: Implementation, case: Case, family: str = "") -> list[str]:
    """What the suite's own comparison and self-checks find when ``impl`` runs ``case``
    (`replayed`); a replay that is not observed is no verdict of the gallery's."""
    outcome, found = replayed(impl, case, family)
    assert outcome.kind == "observed", outcome.reason
    return found


def verdict(driver: str, family: str, *, recorded: bool = True) -> Verdict:
    """Fuzz ``driver`` in ``family`` (over its corpus if ``recorded``); if a divergence is found,
    replay its shrunk case (the reference's observations as expectations) on both sides with the
    schema checked."""
    impl, reference = served(driver), load_implementation("reference")
    try:
        run = fuzzed(impl, reference, family, recorded=recorded)
        found: Verdict = {
            "driver": driver,
            "family": family,
            "examples": run.examples,
            "seconds": run.seconds,
        }
        if run.shrunk is None or run.first is None:
            return {**found, "found": False}
        run.shrunk = reduced(run.shrunk, impl, reference)
        case = as_case(run.shrunk, impl=driver, against="reference", seed=SEED)
        for side in (impl, reference):
            side.check_schema = True
        return {
            **found,
            "found": True,
            "first_examples": run.first_examples,
            "first_seconds": run.first_seconds,
            "ops": [len(run.first.ops), len(run.shrunk.ops)],
            "shrink_examples": run.shrink_examples,
            "contracts": list(case.contracts),
            "differences": run.shrunk.problems(),
            "on_impl": problems(impl, case, family),
            "on_reference": problems(reference, case, family),
        }
    finally:
        impl.close()
        reference.close()


class Lane:
    """The verdicts directory shared by the lane and the tests: who claimed which entry, and
    what fuzzing it found."""

    def __init__(
        self, directory: Path, drivers: dict[str, str], process: subprocess.Popen[str] | None = None
    ) -> None:
        self.directory = directory
        #: Each entry to fuzz, and its family, in the lane's order.
        self.drivers = drivers
        #: The lane's process, seen from the tests (``None`` in the lane itself).
        self.process = process
        #: Whether the tests fuzz entries themselves while the lane works. Not under
        #: pytest-xdist, where each worker starts a lane: two fuzzing processes keep the two cores
        #: busy, and each process that fuzzes records each family's corpus once more.
        self.helps = True

    @classmethod
    def start(cls, directory: Path, drivers: dict[str, str]) -> Lane:
        """Start the lane's process over ``drivers``; what it prints goes to a file beside the
        verdicts, named in the error if it ends early."""
        jobs = [f"{driver}={family}" for driver, family in drivers.items()]
        # Under pytest-xdist each worker starts a lane in the one directory: a log each.
        with (directory / f"lane-{os.getpid()}.log").open("w", encoding="utf-8") as log:
            process = subprocess.Popen(
                [sys.executable, __file__, str(directory), *jobs],
                stdout=log,
                stderr=subprocess.STDOUT,
                text=True,
                start_new_session=True,  # its own process group, the served children included
            )
        return cls(directory, drivers, process)

    def stop(self) -> None:
        """Kill the lane if it is still going (an interrupted session), its children too."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def _path(self, driver: str, suffix: str) -> Path:
        return self.directory / f"{driver}{suffix}"

    def claim(self, driver: str) -> bool:
        """Take ``driver`` for this process, unless another took it first (the claim holds the
        claimant's pid, so that an entry whose claimant was killed can be taken again)."""
        try:
            claimed = os.open(self._path(driver, ".claimed"), os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return False
        os.write(claimed, str(os.getpid()).encode())
        os.close(claimed)
        return True

    def _abandoned(self, driver: str) -> bool:
        """Whether ``driver`` was claimed by a process that has ended without its verdict (a
        pytest-xdist worker stops its lane when its own tests are done); its claim is dropped."""
        path = self._path(driver, ".claimed")
        try:
            pid = int(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):  # not claimed, or the pid not written yet
            return False
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            path.unlink(missing_ok=True)
            return True
        return False

    def done(self, driver: str) -> Verdict | None:
        path = self._path(driver, ".json")
        return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None

    def judge(self, driver: str) -> None:
        """Fuzz a claimed entry and write its verdict whole; an error is written as the verdict
        (the entry's test reports it), so that nobody waits for an entry never to be done."""
        family = self.drivers[driver]
        # In a test's process as in a lane's (any test may fuzz an entry nobody has begun, a
        # variant's or a wrong one's): the http family's runs need loopback servers, 127.0.0.1
        # and nothing else.
        allow_loopback_sockets()
        # Recording a family's corpus draws all its scenarios: it pays from a second entry on.
        recorded = list(self.drivers.values()).count(family) > 1
        try:
            found = verdict(driver, family, recorded=recorded)
        except Exception as error:  # reported by the entry's test
            found = {"driver": driver, "error": f"{type(error).__name__}: {error}"}
        partial = self._path(driver, ".partial")
        partial.write_text(json.dumps(found), encoding="utf-8")
        partial.replace(self._path(driver, ".json"))

    def run(self) -> None:
        """The lane: every entry nobody has claimed, from the first."""
        for driver in self.drivers:
            if self.claim(driver):
                self.judge(driver)

    def verdict(self, driver: str) -> Verdict:
        """``driver``'s verdict: fuzzed here if nobody has begun it (under pytest-xdist, only
        once this worker's lane has ended, or if its claimant ended without a verdict); while
        another process fuzzes it, the entries nobody has begun are fuzzed here, from the last."""
        while (found := self.done(driver)) is None:
            ended = self._lanes_ended()  # (and reaps this process's lane if it ended)
            takes = self._abandoned(driver) or self.helps or ended
            if takes and self.claim(driver):
                self.judge(driver)
                continue
            other = next((d for d in reversed(self.drivers) if self.helps and self.claim(d)), None)
            if other is not None:
                self.judge(other)
            else:
                time.sleep(0.05)
        return found

    def _lanes_ended(self) -> bool:
        """Whether this process's lane has ended (or there is none)."""
        return self.process is None or self.process.poll() is not None


def main(argv: list[str]) -> int:
    directory, *jobs = argv
    drivers = dict(job.split("=", 1) for job in jobs)
    os.nice(5)  # beside the other tests, the lane gives way to them
    Lane(Path(directory), drivers).run()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
