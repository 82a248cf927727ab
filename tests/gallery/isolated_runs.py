"""Run ``dsh-conformance`` once per job, each in its own forked process, importing things once.

    python isolated_runs.py PARALLEL OUTDIR JOB...   (JOB: DRIVER=CONTRACT[,CONTRACT…][=FLAG])

DRIVER is a wrong implementation's name, or ``right_impls:Name`` for a conforming variant. FLAG
``intended``: only the wrong implementation's intended tests run (`gallery_only`), the test
command's proof that it fails them, without the rest of its contract; ``quick``: the property
tests draw fewer examples (`QUICK`). A JOB ``witness:Name`` runs no suite: it observes the
conforming variant's witness scenario (`witness`), which a fresh interpreter per variant cost
more than ten times as much.

Some wrong implementations patch the reference model for the life of their process, so each
must be judged in a process of its own. What the gallery spent its time on was not that
isolation: it was starting a fresh interpreter per driver (importing pytest, Hypothesis,
jsonschema and the suite again and again) and, above all, Hypothesis shrinking the failing
examples of wrong implementations, when the gallery needs only the verdict. So this process
loads a `GALLERY` profile (no shrink phase, deterministic), imports everything once, then forks a
child per job (PARALLEL at a time: one per core it may use) that runs the real runner and
exits. The child writes ``OUTDIR/DRIVER.json`` (the report) and ``OUTDIR/DRIVER.out`` (what it
printed); this process exits non-zero if a child could not run.
"""

from __future__ import annotations

import gc
import json
import os
import sys
import traceback
from pathlib import Path

from hypothesis import HealthCheck, Phase, settings

GALLERY = "dsh-gallery"
CASE_TIMEOUT = 60

# Loaded before the property tests are imported: `@given` takes the default settings then.
settings.register_profile(
    GALLERY,
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=60,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(GALLERY)
#: The test command's profile for the runs over every contract (the unchanged reference, the
#: conforming variants): every test, a sixth of the generated examples (most of such a run's CPU
#: is its property tests); the CI tier runs them with `GALLERY`'s.
QUICK = "dsh-gallery-quick"
settings.register_profile(QUICK, settings.get_profile(GALLERY), max_examples=10)

# Imported here, once, for every child to inherit: what every run of the runner imports
# (`warm_runner.import_the_runner`, beside the runner's own tests, which share it), and the
# gallery's modules with the reference model under them. Importing them changes nothing: a
# driver that patches the reference does so when it is created, which happens in its child.
sys.path.append(str(Path(__file__).parents[1] / "conformance"))
import gallery_only  # noqa: E402, F401
import right_impls  # noqa: E402
import wrong_impls  # noqa: E402
from gallery_runs import WITNESS, observed  # noqa: E402
from warm_runner import import_the_runner  # noqa: E402

from dsh_conformance.fuzz.engine import run_scenario  # noqa: E402
from dsh_conformance.harness.transport import load_implementation  # noqa: E402
from dsh_conformance.run.runner import main as runner  # noqa: E402

import_the_runner()


def run_job(outdir: Path, job: str) -> None:
    """In the child: run the suite for one driver, or observe one variant's witness, and leave
    the process (never return)."""
    name = job.split("=")[0]
    status = 3
    try:
        with open(outdir / f"{name}.out", "w", encoding="utf-8") as out:
            os.dup2(out.fileno(), 1)
            os.dup2(out.fileno(), 2)
            if job.startswith(WITNESS):
                status = witness(outdir, job.removeprefix(WITNESS))
            else:
                status = runner(arguments(outdir, job))
            sys.stdout.flush()
            sys.stderr.flush()
    finally:
        os._exit(status)


def arguments(outdir: Path, job: str) -> list[str]:
    """The runner's arguments for a job of the suite (``DRIVER=CONTRACTS[=FLAG]``)."""
    driver, contracts, *flags = job.split("=")
    report = str(outdir / f"{driver}.json")
    spec = driver if ":" in driver else f"wrong_impls:{driver}"
    args = ["--impl", spec, "--conformance-json", report]
    if "intended" in flags:
        os.environ["DSH_GALLERY_ONLY"] = json.dumps(wrong_impls.INTENDED_FAILURES[driver])
        args += ["-p", "gallery_only"]
    # The gallery needs verdicts, not timings of a loaded machine: a slow wrong implementation
    # (the upstream's quadratic renderer on the linearity test's large text) must fail by its
    # measured ratio, not error at the default case timeout while other runs share the cores.
    profile = QUICK if "quick" in flags else GALLERY
    args += ["--hypothesis-profile", profile, "--case-timeout", str(CASE_TIMEOUT)]
    for contract in contracts.split(","):
        args += ["--contract", contract]
    # The suite's modules were imported here before pytest starts, so pytest rewrites no assert
    # in them either way: plain asserts spare each run the rewrite hook's set-up (reading the
    # file list of every installed pytest plugin).
    return [*args, "--assert=plain"]


def witness(outdir: Path, variant: str) -> int:
    """Observe the conforming variant's witness (`right_impls.VARIANTS`) on the variant, loaded
    into this process, which it may patch; write what it observed (`gallery_runs.observed`) to
    ``OUTDIR/witness:NAME.txt``. 1, with the traceback printed, if it could not be observed."""
    try:
        found = right_impls.VARIANTS[variant]
        side = load_implementation(f"right_impls:{variant}")
        try:
            seen = observed(run_scenario(side, found.family, list(found.witness)))
        finally:
            side.close()
    except Exception:  # the test says that it was not observed, and shows this
        traceback.print_exc()
        return 1
    (outdir / f"{WITNESS}{variant}.txt").write_text(seen, encoding="utf-8")
    return 0


def main() -> int:
    parallel = int(sys.argv[1])
    outdir = Path(sys.argv[2])
    jobs = sys.argv[3:]
    running: set[int] = set()
    broken = 0
    # Everything imported so far lives as long as the children: out of the collector's sight
    # (`gc.freeze`), a child's collections neither walk it nor copy its pages.
    gc.freeze()
    for job in jobs:
        if len(running) == parallel:
            broken += _reap(running)
        pid = os.fork()
        if pid == 0:
            run_job(outdir, job)
        running.add(pid)
    while running:
        broken += _reap(running)
    status = 1 if broken else 0
    # Said where the other shares of a distributed run look (`gallery_runs.wait_for_shares`).
    (outdir / f"finished-{os.getpid()}").write_text(str(status), encoding="utf-8")
    return status


def _reap(running: set[int]) -> int:
    """Wait for one child; 1 if it ended other than by exiting 0 or 1 (the suite's verdicts)."""
    pid, status = os.wait()
    running.discard(pid)
    return 0 if os.waitstatus_to_exitcode(status) in (0, 1) else 1


if __name__ == "__main__":
    sys.exit(main())
