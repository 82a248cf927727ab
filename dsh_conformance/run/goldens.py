"""Golden files: what every implementation must produce, byte for byte, for named scenarios.

They live in the repository's top-level ``golden/``, one directory per set (``headers/`` for
PROMPT-HEADER-CANONICAL, ``deepseek/`` for PROMPT-DEEPSEEK-WIRE), one JSON file per scenario,
shared by every ``--impl``. A change to them is reviewed as a diff. The wheel carries the same
directory inside this package (``dsh_conformance/golden``, see ``force-include`` in
``pyproject.toml``), so an installed suite judges against the same files as a checkout.

syrupy reads them, and writes them after an intended change (``--snapshot-update``, run from a
checkout). `assert_golden` compares, and fails with a line diff of the file whether or not pytest
rewrote the calling module's asserts (``dsh-conformance`` imports the suite before pytest).
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any, ClassVar, Final

from syrupy.assertion import SnapshotAssertion
from syrupy.extensions.json import JSONSnapshotExtension
from syrupy.location import PyTestLocation
from syrupy.types import (
    PropertyFilter,
    PropertyMatcher,
    SerializableData,
    SerializedData,
    SnapshotIndex,
)

from ..harness.validate import cut
from ..judge.jsontext import dumps
from .execute import ConformanceFailure

#: The suite's package (``dsh_conformance/``), one level above this one.
_PACKAGE: Final = Path(__file__).resolve().parents[1]
#: Installed: inside the package. A checkout (editable or not installed): the top-level golden/.
_ROOTS: Final = (_PACKAGE / "golden", _PACKAGE.parent / "golden")
_SHOWN_CHARS: Final = 2000


def directory(name: str) -> Path:
    """``golden/<name>``, wherever this copy of the suite finds it."""
    for root in _ROOTS:
        if (root / name).is_dir():
            return root / name
    raise FileNotFoundError(f"golden/{name} is missing: looked in {', '.join(map(str, _ROOTS))}")


class GoldenFiles(JSONSnapshotExtension):
    """``golden/<golden_set>/<scenario>.json``: one file per scenario, named by the test."""

    golden_set: ClassVar[str]

    @classmethod
    def dirname(cls, *, test_location: PyTestLocation) -> str:
        return str(directory(cls.golden_set))

    @classmethod
    def discovery_dirname(cls, *, test_location: PyTestLocation) -> str:
        return str(directory(cls.golden_set))

    @classmethod
    def get_snapshot_name(cls, *, test_location: PyTestLocation, index: SnapshotIndex = 0) -> str:
        return str(index)


class OrderedGoldenFiles(GoldenFiles):
    """Golden files whose object key order is part of the contract (syrupy's JSON sorts keys)."""

    def serialize(
        self,
        data: SerializableData,
        *,
        exclude: PropertyFilter | None = None,
        include: PropertyFilter | None = None,
        matcher: PropertyMatcher | None = None,
    ) -> SerializedData:
        return dumps(data, indent=2) + "\n"


def assert_golden(
    snapshot: SnapshotAssertion, files: type[GoldenFiles], scenario: str, value: Any
) -> None:
    """Fail unless ``value`` is the golden of ``scenario`` (``--snapshot-update``: write it)."""
    if snapshot.use_extension(files)(name=scenario) == value:
        return
    path = directory(files.golden_set) / f"{scenario}.json"
    if not path.is_file():
        raise ConformanceFailure(f"golden/{files.golden_set}/{scenario}.json is missing")
    observed = str(files().serialize(value)).splitlines()
    golden = path.read_text(encoding="utf-8").splitlines()
    difference = difflib.unified_diff(golden, observed, "golden", "observed", n=2, lineterm="")
    raise ConformanceFailure(
        f"golden/{files.golden_set}/{scenario}.json differs from the observation:\n"
        + cut("\n".join(list(difference)[2:]), _SHOWN_CHARS)
    )
