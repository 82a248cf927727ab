"""A recorded corpus changes nothing but the cost (`dsh_conformance.fuzz.engine.fuzz_over`): fuzzing
over it returns what drawing every scenario returns, for an implementation that first diverges
after the first batch (so the batches before it are replayed, and its own batch drawn again and
shrunk) and for one that never diverges (so nothing is drawn at all); and the scenarios a count
draws are the first ones a larger count draws."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fuzz_runs import served

from dsh_conformance.fuzz.engine import Corpus, Run, fuzz, fuzz_over, record_corpus
from dsh_conformance.harness.transport import Implementation, load_implementation
from dsh_conformance.judge.jsontext import dumps

#: Starting processes and fuzzing: not in the fast subset.
pytestmark = pytest.mark.slow

SEED = 0
#: Registry scenarios of seed 0, three batches' worth (65, 53, then 32 of the third):
#: NullToolOrderRejected first diverges at the 106th, in the second batch.
EXAMPLES = 150
SHRINK_EXAMPLES = 40


@pytest.fixture(scope="module")
def reference() -> Iterator[Implementation]:
    """The reference every run is compared with, in this process."""
    reference = load_implementation("reference")
    try:
        reference.handshake()
        reference.check_schema = False
        yield reference
    finally:
        reference.close()


@pytest.fixture(scope="module")
def corpus(reference: Implementation) -> Corpus:
    """The registry family's scenarios of `SEED` and `EXAMPLES`, recorded once for the module:
    a corpus is the same whoever replays it."""
    return record_corpus(reference, "registry", seed_value=SEED, examples=EXAMPLES)


def _summary(run: Run) -> tuple[object, ...]:
    """What a run found and how far it went, the seconds left out."""
    ops = [dumps(d.ops) if d is not None else None for d in (run.first, run.shrunk)]
    return run.examples, run.discarded, run.first_examples, run.shrink_examples, *ops


def _both(impl: Implementation, reference: Implementation, corpus: Corpus) -> tuple[Run, Run]:
    """``impl`` fuzzed drawing every scenario, and over the recorded corpus."""
    try:
        impl.handshake()
        impl.check_schema = False
        drawn = fuzz(
            impl,
            reference,
            budget=600.0,
            seed_value=SEED,
            database=None,
            families=("registry",),
            shrink_examples=SHRINK_EXAMPLES,
            examples=EXAMPLES,
        )
        replayed = fuzz_over(corpus, impl, reference, shrink_examples=SHRINK_EXAMPLES)
        return drawn, replayed
    finally:
        impl.close()


def test_a_divergence_after_the_first_batch_is_found_and_shrunk_alike(
    reference: Implementation, corpus: Corpus
) -> None:
    drawn, replayed = _both(served("NullToolOrderRejected"), reference, corpus)
    assert drawn.first is not None and drawn.first_examples > len(corpus.batches[0])
    assert _summary(replayed) == _summary(drawn)


def test_an_implementation_that_never_diverges_judges_the_same_scenarios(
    reference: Implementation, corpus: Corpus
) -> None:
    drawn, replayed = _both(load_implementation("reference", isolated=True), reference, corpus)
    assert drawn.first is None and drawn.examples == EXAMPLES
    assert _summary(replayed) == _summary(drawn)


def test_a_larger_count_draws_the_same_scenarios_first(
    reference: Implementation, corpus: Corpus
) -> None:
    # What a per-family count (`fuzz_runs.EXAMPLES_BY_FAMILY`) relies on: the count cuts the
    # last batch short and changes nothing before, so an entry found within a smaller one is
    # found after the same scenarios, and shrunk alike, within a larger one. The smaller count
    # ends inside a batch, the larger one in a later batch.
    fewer = record_corpus(reference, "registry", seed_value=SEED, examples=EXAMPLES // 2 + 1)
    more = corpus

    def drawn(corpus: Corpus) -> list[tuple[int, str]]:
        return [(batch, j.key) for batch, judged in enumerate(corpus.batches) for j in judged]

    last = len(fewer.batches) - 1
    assert len(fewer.batches[last]) < len(more.batches[last]) and len(more.batches) > last + 1
    assert drawn(more)[: fewer.examples] == drawn(fewer)
