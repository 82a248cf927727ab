"""The requirement catalog: every contract of CONTRACTS.md split into numbered requirements.

One data module per contract ID, named after it (``prompt_strict_render.py`` holds
PROMPT-STRICT-RENDER), holding ``CONTRACT`` and ``REQUIREMENTS`` (`Requirement`). The catalog is
also where cases and tests are tagged with requirements: a requirement names the cases and tests
that check it, and a case's requirements are derived from that (`requirements_of`), so the case
modules stay as they are. ``tests/conformance/test_requirements.py`` keeps the two in step: every
case and test is claimed by a requirement of one of its contract IDs, and every requirement is
checked or says why it cannot be. Imports `judge` only (the contract IDs): the cases are named by
id, never imported.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from collections.abc import Mapping

from ..judge.case import CONTRACT_IDS
from .requirement import CASE_TESTS, EXAMPLE_TEST, Requirement, split_test_key

__all__ = [
    "CASE_TESTS",
    "EXAMPLE_TEST",
    "Requirement",
    "catalog",
    "data_file",
    "requirements_naming",
    "requirements_of",
]

_NOT_DATA = frozenset({"requirement"})


def data_file(contract: str) -> str:
    """The catalog file of ``contract``, as a path from the project root (for messages)."""
    return f"dsh_conformance/requirements/{contract.lower().replace('-', '_')}.py"


@functools.cache
def catalog() -> Mapping[str, Requirement]:
    """Every requirement by ID, in CONTRACTS.md's contract order, then by number."""
    found: dict[str, tuple[Requirement, ...]] = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name in _NOT_DATA:
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        contract = getattr(module, "CONTRACT", None)
        if contract not in CONTRACT_IDS or not data_file(contract).endswith(f"/{info.name}.py"):
            raise ValueError(f"{module.__file__}: CONTRACT must name the contract of the file")
        for requirement in module.REQUIREMENTS:
            if requirement.contract != contract:
                raise ValueError(f"{data_file(contract)}: {requirement.id} is not of {contract}")
        found[contract] = tuple(sorted(module.REQUIREMENTS, key=lambda r: r.number))
    result: dict[str, Requirement] = {}
    for contract in CONTRACT_IDS:
        for requirement in found.get(contract, ()):
            if requirement.id in result:
                raise ValueError(f"{data_file(contract)}: {requirement.id} is given twice")
            result[requirement.id] = requirement
    return result


@functools.cache
def _index() -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Case id → requirement IDs, and test key (``name`` or ``name[param]``) → requirement IDs."""
    by_case: dict[str, list[str]] = {}
    by_test: dict[str, list[str]] = {}
    for requirement in catalog().values():
        for case in requirement.cases:
            by_case.setdefault(case, []).append(requirement.id)
        for test in requirement.tests:
            by_test.setdefault(test, []).append(requirement.id)
    return by_case, by_test


def requirements_of(key: str) -> tuple[str, ...]:
    """The requirements a test checks, from its report key: ``test_example[<case id>]`` those
    naming the case, ``test_name[param]`` those naming it or the whole ``test_name``."""
    by_case, by_test = _index()
    name, param = split_test_key(key)
    found = by_test.get(name, []) + (by_test.get(key, []) if param is not None else [])
    if param is not None and name in CASE_TESTS:
        found += by_case.get(param, [])
    return _in_order(found)


def requirements_naming(test: str) -> tuple[str, ...]:
    """The requirements that name ``test`` (a function of the suite), or any of its parameters."""
    _, by_test = _index()
    return _in_order(
        [found for key, ids in by_test.items() if split_test_key(key)[0] == test for found in ids]
    )


def _in_order(ids: list[str]) -> tuple[str, ...]:
    return tuple(sorted(set(ids), key=_position().__getitem__))


@functools.cache
def _position() -> dict[str, int]:
    return {requirement: index for index, requirement in enumerate(catalog())}
