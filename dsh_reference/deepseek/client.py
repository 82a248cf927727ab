"""The DeepSeek model adapter: one streaming HTTP request per `stream` call, over httpx.

It is a `dsh_reference.model_adapter.ModelAdapter`, so the reference loop
(`dsh_reference.loop.Agent`) drives it like any other adapter. It only moves bytes: the body and
headers come from `wire`, the chunks from `translate`, an error response's failure from `failures`
(PROMPT-DEEPSEEK-WIRE). Every failure ends the stream as one terminal ``finish`` chunk, which the
loop logs as the attempt's end (ROOT-MODEL: "an adapter that throws or fails is logged as one such
terminal `finish` chunk"). `wire` is read through its module attributes, so a wrong implementation
in ``tests/gallery`` that replaces one of its rules reaches this client as well as the
``deepseek-wire`` ops.

Its ``defaults`` are the upstream runtime's (`upstream/deepseek-adapter.md` §1.4, §5): "the runtime
fills in the model's `defaultMaxTokens` and `reasoning.defaultEffort` before calling the adapter",
``maxTokens`` 256000 and ``reasoningEffort`` ``high``; the loop fills them into a call config that
leaves them out and marks them in the header's ``adapterDefaults`` (PROMPT-HEADER-CANONICAL). Its
``context_window`` is the upstream's ``defaultContextWindow``, 1000000, which the loop reports in
`request/context` (LOOP-REQUEST-BUILD).

The key is read from ``DEEPSEEK_API_KEY`` on each request (the upstream resolves it per request);
a missing or malformed key ends the stream before any network I/O. The key never leaves the
``authorization`` header: it is not in any failure message, repr or log line of this module.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import ssl
import time
from collections.abc import AsyncIterator, Awaitable, Mapping
from typing import Any, Final, TypeVar

import httpx

from ..abort import AbortSignal
from ..llm import LlmError, failure_chunk
from ..model_adapter import AdapterDefaultValues, Chunk, Request
from . import wire
from .failures import http_failure
from .translate import StreamReader

#: The upstream's stream idle timeout (300 s) bounds each read; there is no overall deadline.
IDLE_TIMEOUT_S: Final = 300.0
#: §5: "`maxTokens`: 256000", "`reasoningEffort` ... unset by default, which the runtime treats as
#: `high`", "`defaultContextWindow`: 1000000".
DEFAULT_MAX_TOKENS: Final = 256_000
DEFAULT_REASONING_EFFORT: Final = "high"
DEFAULT_CONTEXT_WINDOW: Final = 1_000_000

T = TypeVar("T")


class DeepSeekAdapter:
    """The reference `ModelAdapter` for DeepSeek's chat-completions endpoint.

    ``env`` is where the key and base URL are read (default: the process environment);
    ``client`` lets tests and callers supply an `httpx.AsyncClient` (it is not closed here).
    ``max_tokens``, ``reasoning_effort`` and ``context_window`` are the upstream config keys
    `maxTokens`, `reasoningEffort` and `defaultContextWindow`; an effort outside ``off``, ``low``,
    ``high``, ``max`` is refused here, before any request.
    """

    def __init__(
        self,
        *,
        env: Mapping[str, str] | None = None,
        client: httpx.AsyncClient | None = None,
        idle_timeout_s: float = IDLE_TIMEOUT_S,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        reasoning_effort: str = DEFAULT_REASONING_EFFORT,
        context_window: int = DEFAULT_CONTEXT_WINDOW,
    ) -> None:
        if reasoning_effort not in wire.REASONING_EFFORTS:
            raise ValueError(
                f"DeepSeekAdapter: reasoning_effort {reasoning_effort!r} is not one of "
                f"{', '.join(wire.REASONING_EFFORTS)}"
            )
        self._env = os.environ if env is None else env
        self._client = client
        self._timeout = httpx.Timeout(idle_timeout_s)
        self.defaults = AdapterDefaultValues(maxTokens=max_tokens, reasoningEffort=reasoning_effort)
        self.context_window: int | None = context_window

    @property
    def base_url(self) -> str:
        return self._env.get(wire.BASE_URL_ENV) or wire.DEFAULT_BASE_URL

    def __repr__(self) -> str:
        return f"DeepSeekAdapter(base_url={self.base_url!r})"

    async def stream(
        self, request: Request, signal: AbortSignal | None = None
    ) -> AsyncIterator[Chunk]:
        try:
            async for chunk in self._stream(request, signal):
                yield chunk
        except LlmError as error:
            yield failure_chunk(error.failure, aborted=error.code == "ABORTED")

    async def _stream(self, request: Request, signal: AbortSignal | None) -> AsyncIterator[Chunk]:
        key = wire.checked_key(request, self._env.get(wire.API_KEY_ENV))
        headers = wire.request_headers(key)
        content = wire.encode_body(wire.request_body(request))
        url = wire.chat_url(self.base_url)
        aborted = _abort_future(signal)
        try:
            async with self._http_client() as client:
                outgoing = client.build_request(
                    "POST", url, content=content, headers=headers, timeout=self._timeout
                )
                response = await _race(client.send(outgoing, stream=True), aborted)
                try:
                    if not response.is_success:
                        body = await _race(response.aread(), aborted)
                        text = body.decode("utf-8", errors="replace")
                        now_ms = int(time.time() * 1000)
                        failure = http_failure(
                            response.status_code, text, response.headers, now_ms=now_ms
                        )
                        # A provider may echo the key in its error message; it goes no further.
                        failure["message"] = failure["message"].replace(key, "[redacted]")
                        raise LlmError.of(failure)
                    reader = StreamReader()
                    parts = response.aiter_bytes()
                    while not reader.done:
                        part = await _race(anext(parts, None), aborted)
                        for chunk in reader.close() if part is None else reader.feed(part):
                            yield chunk
                finally:
                    await response.aclose()
        except httpx.TimeoutException:
            raise LlmError(
                "TIMEOUT", f"DeepSeek stream idle timeout after {self._timeout.read}s"
            ) from None
        except httpx.HTTPError as error:
            raise LlmError(
                "TRANSPORT", f"DeepSeek API request to {url} failed ({type(error).__name__})"
            ) from None

    @contextlib.asynccontextmanager
    async def _http_client(self) -> AsyncIterator[httpx.AsyncClient]:
        """The caller's client as is, or a fresh one closed after the call (with the shared TLS
        configuration of `tls_context`)."""
        if self._client is not None:
            yield self._client
            return
        async with httpx.AsyncClient(verify=tls_context()) as client:
            yield client


@functools.cache
def tls_context() -> ssl.SSLContext:
    """httpx's default TLS configuration, built once per process: building it loads the whole CA
    bundle (about 40 ms of CPU), which a fresh client would otherwise pay on every request. An
    `ssl.SSLContext` holds no connection state, so every client may share it."""
    return httpx.create_ssl_context()


def _abort_future(signal: AbortSignal | None) -> asyncio.Future[None] | None:
    """A future done when ``signal`` aborts; ``ABORTED`` at once if it already has."""
    if signal is None:
        return None
    if signal.aborted:
        raise LlmError("ABORTED", "DeepSeek request aborted by caller")
    future: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def wake() -> None:
        if not future.done():
            future.set_result(None)

    signal.add_listener(wake)
    return future


async def _race(awaitable: Awaitable[T], aborted: asyncio.Future[None] | None) -> T:
    """Await ``awaitable`` unless the abort future completes first (then ``ABORTED``)."""
    task = asyncio.ensure_future(awaitable)
    if aborted is None:
        return await task
    waiters: set[asyncio.Future[Any]] = {task, aborted}
    await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
    if task.done():
        return task.result()
    task.cancel()
    await asyncio.wait({task})  # let the cancelled read unwind before the response is closed
    raise LlmError("ABORTED", "DeepSeek request aborted by caller")
