"""Generated scenarios: find the wrong implementation no hand-written case catches (issue 21).

`generate` draws op sequences over the protocol's ops (registry, session, loop families) with
Hypothesis; `oracles` judges each run twice, by the suite's own checks that need no expected values
and by a differential comparison with another implementation (the reference model by default),
both comparing only what the contracts fix; `engine` runs scenarios within a time budget, stops at
the first divergence and lets Hypothesis shrink it; `found` turns the shrunk scenario into a case
in the suite's own format. What generation avoids, and why, is `generate.AVOIDED`. The ``http``
family (`http`) runs its scenarios inside loopback servers of the suite's own, through the
engine's `engine.RUNNERS`.
"""
