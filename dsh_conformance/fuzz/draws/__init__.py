"""Each fuzz family's draws, a module apiece, over the builder they share (`builder`).

`builder` holds the draw primitives and what every family remembers; `registry` and `loop`
extend it (a loop scenario draws registry steps too); `session`, `wire` and `http` draw through
it as it is. These modules import `builder`, each other downward (``loop`` → ``registry``,
``session`` → ``loop`` for its call configurations), `dsh_conformance.scenarios`, and
`dsh_conformance.fuzz.http` for the names an ``http`` op holds; nothing here imports
`dsh_conformance.fuzz.generate`, which assembles the families into one strategy.
"""
