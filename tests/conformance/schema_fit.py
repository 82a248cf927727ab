"""Whether a large JSON document fits a schema, decided fast and explained well.

The tests check whole reports (the suite's 661 tests) and hundreds of exported case files against
their schemas; ``jsonschema`` alone took a fifth of a small run's time for that. So the compiled
validator (``jsonschema-rs``, the one the suite checks answers with at run time) decides, and
``jsonschema`` names what is wrong only when a document does not fit.
"""

from __future__ import annotations

from typing import Any

import jsonschema_rs
from jsonschema import Draft202012Validator


class Schema:
    """One schema, with both validators built once."""

    def __init__(self, schema: dict[str, Any]) -> None:
        self.named = Draft202012Validator(schema)
        self.compiled = jsonschema_rs.Draft202012Validator(schema)

    def assert_fits(self, document: Any) -> None:
        """Pass if ``document`` fits; else fail with ``jsonschema``'s error (or, should the two
        validators disagree, the compiled one's)."""
        if self.compiled.is_valid(document):
            return
        self.named.validate(document)
        raise AssertionError(next(self.compiled.iter_errors(document)).message)
