"""Mutation testing: how much of the reference model does the conformance suite alone pin down?

Every mutant of ``dsh_reference/`` (mutmut) is judged by the conformance suite only — the example
cases and the properties, against the reference in-process, as ``dsh-conformance`` runs them —
never by the project's own unit tests. A surviving mutant is a wrong implementation the suite
lets pass, unless it is *equivalent* (nothing the protocol can observe changes);
``mutation_equivalents.tsv`` beside this script lists those, each with the reason, and the score
leaves them out. The list also names the mutants of the stdio entry (``serve``/``main``) that
the suite judges only when the harness runs as its own process (``dsh-reference-harness``, which
the mutation run does not use: it judges the mutated code in-process); their reasons start with
"reached only through the subprocess transport", and they are counted apart from the equivalent
ones and left out of the score. A mutant that makes the suite time out counts as detected; a
mutant in code that no conformance test reaches ("no tests") counts as a survivor.

It takes long on two cores, so it never runs in CI, and it runs module by module: name the modules
to mutate (a module or a package, e.g. ``dsh_reference.session`` or ``dsh_reference.harness``; the
loop half by default, ``--all`` for every module). mutmut runs each mutant against only the tests
that reach the mutated function. It never touches the checkout: it copies ``dsh_reference/``,
``dsh_conformance/`` and the golden files into a work directory, writes mutmut's configuration
there, and runs mutmut from a virtual environment of its own; the work directory keeps mutmut's
results and its map of which tests reach which function, so a later run over other modules reuses
them:

    python3 -m venv /tmp/mutvenv
    /tmp/mutvenv/bin/pip install mutmut==3.8.1 'pytest>=9.2,<10' 'hypothesis>=6.170,<7' \\
        'syrupy>=7,<8' 'respx>=0.23.1,<0.24' 'httpx>=0.28.1,<0.29' 'jsonschema>=4.26,<5' \\
        'jsonschema-rs>=0.61.2,<0.62'
    nice -n 10 python benchmarks/mutation.py --mutmut /tmp/mutvenv/bin/mutmut dsh_reference.session

After cases are added, ``--survivors`` runs again only the mutants the last run left undetected
and the list does not explain.
It prints, per module, the counts by status and the score over non-equivalent mutants, then every
survivor the list does not explain (``mutmut show NAME`` in the work directory shows its diff).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
from collections import Counter, defaultdict
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parent.parent

#: The loop half of the reference (issue 15): what drives a turn and what a loop writes.
LOOP_HALF: Final = (
    "dsh_reference.session",
    "dsh_reference.header",
    "dsh_reference.runtime_context",
    "dsh_reference.loop",
    "dsh_reference.inbox",
    "dsh_reference.harness",
    "dsh_reference.deepseek",
)

CONFIG: Final = """\
[tool.mutmut]
source_paths = ["dsh_reference/"]
also_copy = ["dsh_conformance/"]
pytest_add_cli_args = [
    "-p", "dsh_conformance.run.plugin", "-c", "dsh_conformance/pytest.ini", "--rootdir", ".",
    "--impl", "reference", "-p", "no:cacheprovider", "-q",
]
pytest_add_cli_args_test_selection = ["dsh_conformance/"]
"""

#: mutmut's exit-code meanings (``mutmut.stats.status_by_exit_code``), folded into what counts.
STATUS: Final = {
    **dict.fromkeys((1, 3), "killed"),
    0: "survived",
    **dict.fromkeys((5, 33), "no tests"),
    **dict.fromkeys((-24, 24, 36, 152, 255), "timeout"),
}
DETECTED: Final = ("killed", "timeout")
UNDETECTED: Final = ("survived", "no tests")


def equivalent() -> dict[str, str]:
    """Survivors that change nothing the protocol can observe: mutmut's name -> the reason."""
    path = Path(__file__).with_name("mutation_equivalents.tsv")
    lines = path.read_text(encoding="utf-8").splitlines()
    return dict(line.split("\t", 1) for line in lines if line and not line.startswith("#"))


def prepare(workdir: Path) -> None:
    """The current code, suite and goldens in the work directory; mutmut's results stay."""
    ignore = shutil.ignore_patterns("__pycache__", ".pytest_cache")
    for package in ("dsh_reference", "dsh_conformance"):
        shutil.rmtree(workdir / package, ignore_errors=True)
        shutil.copytree(ROOT / package, workdir / package, ignore=ignore)
    # Where an installed suite finds its goldens (dsh_conformance/run/goldens.py looks there first).
    shutil.copytree(ROOT / "golden", workdir / "dsh_conformance" / "golden", ignore=ignore)
    (workdir / "pyproject.toml").write_text(CONFIG, encoding="utf-8")


def run(mutmut: str, workdir: Path, children: int, names: list[str]) -> None:
    """Run the mutants ``names`` (mutmut globs allowed), each against the tests that reach its
    function."""
    # CI selects hypothesis' deterministic profile, so a mutant is judged the same every time.
    # The time zone needs nothing here: the suite calls the mutated reference in the harness's
    # zone whatever the machine's is (dsh_conformance.harness.zone), so a date read in local time
    # (an asctime Retry-After, PROMPT-DEEPSEEK-WIRE: "all GMT") shows on a UTC machine too.
    env = {**os.environ, "CI": "1"}
    command = [mutmut, "run", "--max-children", str(children), *names]
    subprocess.run(command, cwd=workdir, env=env, check=True)


def module_of(name: str) -> str:
    """``dsh_reference.harness.loop`` for ``dsh_reference.harness.loop.xǁLoopǁrun__mutmut_3``."""
    return name.split(".x", 1)[0]


def results(workdir: Path, modules: list[str]) -> dict[str, str]:
    """The status of every mutant of ``modules``, read from the ``.meta`` files mutmut leaves."""
    statuses: dict[str, str] = {}
    for meta in sorted((workdir / "mutants" / "dsh_reference").rglob("*.py.meta")):
        exit_codes = json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"]
        for name, code in exit_codes.items():
            if any(f"{module_of(name)}.".startswith(f"{m}.") for m in modules):
                statuses[name] = (
                    STATUS.get(code, f"exit code {code}") if code is not None else "not run"
                )
    return statuses


#: How a reason in the list starts when the mutant is no equivalent but is judged only where the
#: harness runs as its own process (``serve``/``main``): counted apart, left out of the score.
SUBPROCESS_ONLY: Final = "reached only through the subprocess transport"


def score(detected: int, real: int) -> str:
    return f"{detected}/{detected + real} = {detected / max(detected + real, 1):.1%}"


def report(statuses: dict[str, str]) -> None:
    known = equivalent()
    by_module: defaultdict[str, dict[str, str]] = defaultdict(dict)
    for name, status in statuses.items():
        by_module[module_of(name)][name] = status
    print(
        "module: mutants, killed, timeout, survived (no tests), equivalent, "
        "subprocess transport only; score"
    )
    unexplained: list[str] = []
    for module, mutants in sorted(by_module.items()):
        counts = Counter(mutants.values())
        survivors = [name for name, status in mutants.items() if status in UNDETECTED]
        real = sorted(name for name in survivors if name not in known)
        unexplained += real
        subprocess_only = sum(
            1 for name in survivors if known.get(name, "").startswith(SUBPROCESS_ONLY)
        )
        detected = sum(counts[status] for status in DETECTED)
        others = {s: n for s, n in counts.items() if s not in (*DETECTED, *UNDETECTED)}
        print(
            f"  {module}: {len(mutants)}, {counts['killed']}, {counts['timeout']}, "
            f"{len(survivors)} ({counts['no tests']}), "
            f"{len(survivors) - len(real) - subprocess_only}, {subprocess_only}; "
            f"non-equivalent detected {score(detected, len(real))}"
            + (f"; also {others}" if others else "")
        )
    survivors_all = {name for name, status in statuses.items() if status in UNDETECTED}
    detected_all = sum(1 for status in statuses.values() if status in DETECTED)
    overall = score(detected_all, len(unexplained))
    print(f"all: {len(statuses)} mutants; non-equivalent detected {overall}")
    stale = sorted(
        name
        for name in set(known) - survivors_all
        if any(module_of(name) == module_of(seen) for seen in statuses)
    )
    if stale:
        print(f"listed as equivalent but not surviving (remove them): {stale}")
    print(f"survivors not known to be equivalent ({len(unexplained)}):")
    for name in unexplained:
        print(f"  {name}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "modules", nargs="*", default=list(LOOP_HALF), help="modules or packages to mutate"
    )
    parser.add_argument("--all", action="store_true", help="mutate every module of dsh_reference/")
    parser.add_argument("--mutmut", default="mutmut", help="the mutmut executable to use")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/dsh-mutation"))
    parser.add_argument("--max-children", type=int, default=2)
    parser.add_argument(
        "--report-only", action="store_true", help="print the results of the last run again"
    )
    parser.add_argument(
        "--survivors",
        action="store_true",
        help="run again only the mutants of these modules that the last run left undetected and "
        "the list does not call equivalent (after cases were added)",
    )
    args = parser.parse_args()
    modules = ["dsh_reference"] if args.all else args.modules
    if not args.report_only:
        names = [f"{module}.*" for module in modules]
        if args.survivors:
            last, known = results(args.workdir, modules), equivalent()
            names = sorted(
                name for name, status in last.items() if status in UNDETECTED and name not in known
            )
        args.workdir.mkdir(parents=True, exist_ok=True)
        prepare(args.workdir)
        if names:
            run(args.mutmut, args.workdir, args.max_children, names)
    report(results(args.workdir, modules))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
