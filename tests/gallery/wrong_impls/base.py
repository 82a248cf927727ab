"""What several families of wrong implementations share."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reference.harness import Driver
from reference.loop import Agent


def replacing(owner: object, name: str) -> Callable[[Callable[..., Any]], type[Driver]]:
    """Make the decorated function a wrong implementation that changes one reference function.

    Creating the driver replaces ``owner.name`` (a module's function or a class's method) for the
    life of the process by the decorated function, which is called with the original first and
    then with the original's own arguments (``self`` included, for a method). The result is a
    `Driver` subclass named and documented like the function, so it loads as ``wrong_impls:Name``.
    """

    def wrong(replacement: Callable[..., Any]) -> type[Driver]:
        def __init__(self: Driver) -> None:
            original = getattr(owner, name)

            def replaced(*args: Any, **kwargs: Any) -> Any:
                return replacement(original, *args, **kwargs)

            setattr(owner, name, replaced)

        namespace = {
            "__init__": __init__,
            "__doc__": replacement.__doc__,
            "__module__": replacement.__module__,
            "__qualname__": replacement.__qualname__,
        }
        return type(replacement.__name__, (Driver,), namespace)

    return wrong


class WrongLoop(Driver):
    """A driver whose agents are ``agent_class`` (a one-behaviour change of `Agent`)."""

    agent_class: type[Agent] = Agent

    def make_agent(self, **options: Any) -> Agent:
        return self.agent_class(**options)
