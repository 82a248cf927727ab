"""Talking to an implementation: the protocol's messages, the transports and answer validation.

`protocol` holds the handshake and outcome shapes, `validate` checks every answer against
``protocol.schema.json`` (beside it), `process` keeps a harness subprocess bounded, and
`transport` runs a case in-process or over a subprocess. Imports `judge` (for JSON text) only.
"""
