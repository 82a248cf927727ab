"""The ``deepseek-wire`` and ``deepseek-http`` capabilities of the reference harness.

Four ops judge the DeepSeek adapter (PROMPT-DEEPSEEK-WIRE, dsh_conformance/PROTOCOL.md). Three are
pure, with no network:

- ``deepseek-request``: serialize a request to the method, URL, headers and body it would send;
- ``deepseek-stream``: translate a response body, given as byte chunks with chosen boundaries
  (base64, so any language can carry arbitrary bytes in JSON), to the stream chunks;
- ``deepseek-http-error``: map an error response (status, body, headers) to its failure.

The fourth, ``deepseek-http``, sends one request through the real adapter over HTTP to the base
URL the suite gives (its loopback server) and observes the chunks that come back.

The reference's sans-IO core is called through its modules' attributes, so that the wrong
implementations of ``tests/gallery`` can replace one rule of it.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any, ClassVar

from ..deepseek import DeepSeekAdapter, failures, translate, wire
from ..llm import LlmError
from .scenario import Scenario, ScenarioError

Json = Any


class DeepSeekOps:
    """The ``deepseek-*`` ops: stateless, each answered on its own."""

    OPS: ClassVar[frozenset[str]] = frozenset(
        {"deepseek-request", "deepseek-stream", "deepseek-http-error", "deepseek-http"}
    )

    def __init__(self, _scenario: Scenario) -> None:
        pass

    def busy(self) -> int:
        return 0  # every op completes before it answers

    async def apply(self, op: Json) -> Json:
        return await _apply(op)


async def _apply(op: Json) -> Json:
    """One ``deepseek-*`` op's observation; a malformed op is a `ScenarioError` (errored)."""
    name = op.get("op")
    if name == "deepseek-http":
        return await _http(op)
    if name == "deepseek-request":
        return _request(op)
    if name == "deepseek-stream":
        return {"chunks": translate.translate_stream(_parts(op.get("chunks")))}
    if name == "deepseek-http-error":
        return _http_error(op)
    raise ScenarioError(f"unknown op {name!r}")


def _request(op: Json) -> Json:
    try:
        headers = wire.request_headers(wire.checked_key(op["request"], op.get("apiKey")))
        body = wire.request_body(op["request"])
    except LlmError as error:
        return {"error": {"kind": error.code, "message": error.failure["message"]}}
    except ValueError as error:
        raise ScenarioError(f"deepseek-request: {error}") from error
    if not isinstance(op.get("baseUrl"), str):
        raise ScenarioError("deepseek-request needs a string `baseUrl`")
    url = wire.chat_url(op["baseUrl"])
    return {"request": {"method": "POST", "url": url, "headers": headers, "body": body}}


async def _http(op: Json) -> Json:
    key, base_url = op.get("apiKey"), op.get("baseUrl")
    if not isinstance(key, str) or not isinstance(base_url, str):
        raise ScenarioError("deepseek-http needs a string `apiKey` and `baseUrl`")
    adapter = DeepSeekAdapter(env={wire.API_KEY_ENV: key, wire.BASE_URL_ENV: base_url})
    try:
        return {"chunks": [chunk async for chunk in adapter.stream(op["request"])]}
    except ValueError as error:
        raise ScenarioError(f"deepseek-http: {error}") from error


def _http_error(op: Json) -> Json:
    status, body, headers = op.get("status"), op.get("body"), op.get("headers", {})
    now_ms = op.get("nowMs")  # the clock an HTTP-date Retry-After is measured against
    if not (
        isinstance(status, int)
        and isinstance(body, str)
        and isinstance(headers, dict)
        and isinstance(now_ms, int)
    ):
        raise ScenarioError(
            "deepseek-http-error needs an integer `status`, a string `body`, an integer `nowMs` "
            "and, if given, an object of `headers`"
        )
    return {"failure": failures.http_failure(status, body, headers, now_ms=now_ms)}


def _parts(chunks: Json) -> list[bytes]:
    if not isinstance(chunks, list):
        raise ScenarioError("deepseek-stream needs `chunks`, a list of base64 strings")
    try:
        return [base64.b64decode(chunk, validate=True) for chunk in chunks]
    except (binascii.Error, TypeError, ValueError) as error:
        raise ScenarioError(f"deepseek-stream: a chunk is not base64: {error}") from error
