"""Generated scenarios: find the wrong implementation no hand-written case catches (issue 21).

`generate` assembles the families' draws (`draws`: a builder and one module per family,
registry, session, loop, wire, http) into Hypothesis strategies; `oracles` judges each run twice,
by the suite's own checks that need no expected values and by a differential comparison with
another implementation (the reference model by default), both comparing only what the contracts
fix; `engine` runs scenarios within a time budget, stops at the first divergence and lets
Hypothesis shrink it, judging each scenario by one function (`engine.judge`); `found` turns the
shrunk scenario into a case in the suite's own format; `known` is what a run looks past (known
divergences). What generation avoids, and why, is `generate.AVOIDED`. The ``http`` family runs
inside loopback servers of the suite's own (`http`). Imports run one way: `known` → `found` →
`engine` → `generate` → `draws` → `http`, with `oracles` below `engine`; outside the package, only
down the layers (`deepseek`, `harness`, `judge`, `scenarios`), never to `dsh_conformance.run`, which
imports this package.
"""
