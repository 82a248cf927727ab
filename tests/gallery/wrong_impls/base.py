"""The gallery's table: `wrong` files an entry, `patched` makes one from a single departure."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from dsh_reference.harness import Driver
from dsh_reference.loop import Agent

D = TypeVar("D", bound=type[Driver])


@dataclass(frozen=True)
class Entry:
    """A wrong implementation: its driver, the contract ID it must fail, and the tests (ids as in
    the JSON report's results) that must be the only ones it fails (empty: not checked)."""

    driver: type[Driver]
    contract: str
    fails: tuple[str, ...]


#: Every entry of every family, by name, in the order the family modules file them.
GALLERY: dict[str, Entry] = {}


def test_id(fail: str) -> str:
    """A failure as the report names it: a bare case name (``family/case``) stands for its
    ``test_example[...]``; any other test id is written out."""
    return f"test_example[{fail}]" if "/" in fail and "[" not in fail else fail


def wrong(contract: str, *fails: str) -> Callable[[D], D]:
    """File the decorated driver in `GALLERY` under its name: the suite must reject it under
    ``contract``, failing exactly ``fails`` (`test_id`) if any are given."""

    def filed(driver: D) -> D:
        if driver.__name__ in GALLERY:
            raise ValueError(f"two wrong implementations named {driver.__name__}")
        GALLERY[driver.__name__] = Entry(driver, contract, tuple(map(test_id, fails)))
        return driver

    return filed


def patched(
    owner: object, name: str, *, also: object = None
) -> Callable[[Callable[..., Any]], type[Driver]]:
    """Make the decorated function a wrong implementation that changes one reference function.

    Creating the driver replaces ``owner.name`` (a module's function or a class's method) for the
    life of the process by the decorated function, which is called with the original first and
    then with the original's own arguments (``self`` included, for a method; neither ``self``
    nor ``cls`` for a static or class method). The result is a `Driver` subclass named and
    documented like the function, so it loads as ``wrong_impls:Name``. A class's method patched
    this way changes every instance, as a subclass overriding it would: the process holds one
    driver, so every agent (`dsh_reference.loop.Agent`) or registry it makes is the changed one.
    ``also`` is a second module holding the same function under the same name (imported there).
    """

    def wrong_driver(replacement: Callable[..., Any]) -> type[Driver]:
        def __init__(self: Driver) -> None:
            original = getattr(owner, name)
            kind = type(getattr(owner, "__dict__", {}).get(name))
            bound = 1 if kind is classmethod else 0  # the original is bound to ``owner`` already

            def replaced(*args: Any, **kwargs: Any) -> Any:
                return replacement(original, *args[bound:], **kwargs)

            wrapped = kind(replaced) if kind in (staticmethod, classmethod) else replaced
            for holder in (owner,) if also is None else (owner, also):
                setattr(holder, name, wrapped)

        namespace = {
            "__init__": __init__,
            "__doc__": replacement.__doc__,
            "__module__": replacement.__module__,
            "__qualname__": replacement.__qualname__,
        }
        return type(replacement.__name__, (Driver,), namespace)

    return wrong_driver


class WrongLoop(Driver):
    """A driver whose agents are ``agent_class`` (a one-behaviour change of `Agent`)."""

    agent_class: type[Agent] = Agent

    def make_agent(self, **options: Any) -> Agent:
        return self.agent_class(**options)
