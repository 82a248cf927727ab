"""Mutation testing: how much of the reference model does the conformance suite alone pin down?

Every mutant of ``reference/`` (mutmut) is judged by the conformance suite only — the example
cases and the properties, against the reference in-process, as ``dsh-conformance`` runs them —
never by the project's own unit tests. A surviving mutant is a wrong implementation the suite
lets pass, unless it is *equivalent* (nothing the protocol can observe changes);
``mutation_equivalents.tsv`` beside this script lists those, each with the reason, and the score
leaves them out. A mutant that makes the suite time out counts as detected.

It takes several minutes on two cores, so it never runs in CI. It never touches the checkout: it
copies ``reference/`` and ``conformance/`` into a work directory, writes mutmut's configuration
there, and runs mutmut from a virtual environment of its own:

    python3 -m venv /tmp/mutvenv
    /tmp/mutvenv/bin/pip install mutmut==3.8.1 'pytest>=9.2,<10' 'hypothesis>=6.170,<7' \\
        'syrupy>=7,<8' 'respx>=0.23.1,<0.24' 'httpx>=0.28.1,<0.29'
    python benchmarks/mutation.py --mutmut /tmp/mutvenv/bin/mutmut

It prints the counts by status, the score, and every survivor the list does not explain
(``mutmut show NAME`` in the work directory shows its diff).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
from collections import Counter
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parent.parent

CONFIG: Final = """\
[tool.mutmut]
source_paths = ["reference/"]
also_copy = ["conformance/"]
pytest_add_cli_args = [
    "-p", "conformance.run.plugin", "-c", "conformance/pytest.ini", "--rootdir", ".",
    "--impl", "reference", "-p", "no:cacheprovider", "-q",
]
pytest_add_cli_args_test_selection = ["conformance/"]
"""

#: mutmut's exit-code meanings (``mutmut.stats.status_by_exit_code``), folded into what counts.
STATUS: Final = {
    **dict.fromkeys((1, 3), "killed"),
    0: "survived",
    **dict.fromkeys((5, 33), "no tests"),
    **dict.fromkeys((-24, 24, 36, 152, 255), "timeout"),
}
DETECTED: Final = ("killed", "timeout")


def equivalent() -> dict[str, str]:
    """Survivors that change nothing the protocol can observe: mutmut's name -> the reason."""
    path = Path(__file__).with_name("mutation_equivalents.tsv")
    lines = path.read_text(encoding="utf-8").splitlines()
    return dict(line.split("\t", 1) for line in lines if line and not line.startswith("#"))


def prepare(workdir: Path) -> None:
    """A fresh copy of the code and the suite, with mutmut's configuration beside it."""
    if workdir.exists():
        shutil.rmtree(workdir)
    ignore = shutil.ignore_patterns("__pycache__", ".pytest_cache")
    for package in ("reference", "conformance"):
        shutil.copytree(ROOT / package, workdir / package, ignore=ignore)
    (workdir / "pyproject.toml").write_text(CONFIG, encoding="utf-8")


def run(mutmut: str, workdir: Path, children: int) -> None:
    # CI selects hypothesis' deterministic profile, so a mutant is judged the same every time.
    env = {**os.environ, "CI": "1"}
    command = [mutmut, "run", "--max-children", str(children)]
    subprocess.run(command, cwd=workdir, env=env, check=True, stdout=subprocess.DEVNULL)


def results(workdir: Path) -> dict[str, str]:
    """Every mutant's status, read from the ``.meta`` files mutmut leaves beside the mutants."""
    statuses: dict[str, str] = {}
    for meta in sorted((workdir / "mutants" / "reference").glob("*.py.meta")):
        exit_codes = json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"]
        for name, code in exit_codes.items():
            statuses[name] = (
                STATUS.get(code, f"exit code {code}") if code is not None else "not run"
            )
    return statuses


def report(statuses: dict[str, str]) -> None:
    known = equivalent()
    counts = Counter(statuses.values())
    survivors = sorted(name for name, status in statuses.items() if status == "survived")
    real = [name for name in survivors if name not in known]
    detected = sum(counts[status] for status in DETECTED)
    print(f"mutants: {len(statuses)}")
    for status, count in sorted(counts.items()):
        print(f"  {status}: {count}")
    judged = detected + len(survivors)
    print(f"detected / (detected + survived): {detected}/{judged} = {detected / judged:.1%}")
    non_equivalent = detected + len(real)
    print(
        f"non-equivalent kill rate: {detected}/{non_equivalent} = "
        f"{detected / non_equivalent:.1%} ({len(survivors) - len(real)} equivalent survivors "
        "left out)"
    )
    stale = sorted(set(known) - set(survivors))
    if stale:
        print(f"listed as equivalent but not surviving (remove them): {stale}")
    print(f"survivors not known to be equivalent ({len(real)}):")
    for name in real:
        print(f"  {name}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--mutmut", default="mutmut", help="the mutmut executable to use")
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/dsh-mutation"))
    parser.add_argument("--max-children", type=int, default=2)
    parser.add_argument(
        "--report-only", action="store_true", help="print the results of the last run again"
    )
    args = parser.parse_args()
    if not args.report_only:
        prepare(args.workdir)
        run(args.mutmut, args.workdir, args.max_children)
    report(results(args.workdir))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
