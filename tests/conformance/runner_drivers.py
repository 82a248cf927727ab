"""The in-process drivers `test_runner` runs ``dsh-conformance`` on (``--impl
runner_drivers:NAME``): the reference answering otherwise, each in one way.

A module of their own, importing the reference alone: a run compares two in-process drivers in
processes of their own (`dsh_conformance.harness.isolated`), each a fresh interpreter importing
its driver's module, and `test_runner` (pytest, jsonschema, the suite's catalog) took 0.85 s of
CPU to import there, the reference 0.2 s.
"""

from __future__ import annotations

import dataclasses
import threading
from typing import Any

from dsh_reference import PromptConfig, PromptRegistry
from dsh_reference.harness import CAPABILITIES as REFERENCE_CAPABILITIES
from dsh_reference.harness import Driver


class NoCapabilities(Driver):
    """Answers the handshake with no capabilities: every case is not applicable."""

    capabilities = ()


class Declares12Only(Driver):
    """A harness written for protocol 1.2: it declares ``loop-1.2`` but not ``loop-1.3``."""

    capabilities = tuple(c for c in REFERENCE_CAPABILITIES if c != "loop-1.3")


class RegistryOnly13(Driver):
    """A registry-only harness written for protocol 1.3: no loop, no ``registry-1.4``."""

    capabilities = ("registry", "registry-1.1", "registry-1.2")


class RegistryOnly14(Driver):
    """A registry-only harness written for protocol 1.4."""

    capabilities = (*RegistryOnly13.capabilities, "registry-1.4")


class HangsOnOneCase(Driver):
    """Never answers the case ``registry/builtin-sections-by-default``; answers the rest."""

    def handle(self, message: Any) -> Any:
        if message.get("case") == "registry/builtin-sections-by-default":
            threading.Event().wait()
        return super().handle(message)


class SlowOnOneCase(Driver):
    """Answers the case ``registry/builtin-sections-by-default`` after 2.5 s; the rest at once."""

    def handle(self, message: Any) -> Any:
        if message.get("case") == "registry/builtin-sections-by-default":
            threading.Event().wait(2.5)
        return super().handle(message)


class IdentityAlwaysOff(Driver):
    """Wrong: never registers the identity section, whatever the configuration says."""

    def make_registry(self, config: PromptConfig) -> PromptRegistry:
        return PromptRegistry(dataclasses.replace(config, include_harness_identity=False))


class HidesItsLog(Driver):
    """Answers every ``observe`` with ok: its loop cases' expectations fail, and its requests
    can never be checked, which must fail the invariant tests too (never pass unchecked)."""

    def handle(self, message: Any) -> Any:
        answer = super().handle(message)
        if message.get("type") == "run" and answer.get("type") == "observed":
            ops = message["scenario"]["ops"]
            answer["observations"] = [
                {"ok": True} if op["op"] == "observe" else observed
                for op, observed in zip(ops, answer["observations"], strict=True)
            ]
        return answer
