"""Pure comparisons and oracles: no I/O, no implementation.

`case` compares observations with a case's expectations (`diff` describes the difference);
`jsontext` and `jsonvalues` are JavaScript's JSON text and values; `headers`, `logfold`, `logview`
and `invariant` are the suite's own view of a session log and its requests; `wire_compare` and
`prefix_stability` judge the DeepSeek wire. Imports `scenarios` only.
"""
