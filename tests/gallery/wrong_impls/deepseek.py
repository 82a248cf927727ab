"""Wrong implementations of the DeepSeek adapter: request, key, SSE, translation, HTTP failures.

See the package's docstring for what a wrong implementation is and how the gallery runs it.
"""

from __future__ import annotations

import codecs
import itertools
import json
import re
import time
from datetime import UTC, datetime
from email.utils import parsedate

from dsh_reference.deepseek import client, failures, sse, translate, wire
from dsh_reference.harness import Driver
from dsh_reference.llm import LlmError

from .base import patched, wrong

#: The contract every entry here is judged under.
WIRE = "PROMPT-DEEPSEEK-WIRE"
#: The clock `ClockInSystemPrompt` stamps requests with: one second per request.
_SECONDS = itertools.count()
#: The cases with a `Retry-After` HTTP date, the only ones a misread date fails.
_HTTP_DATES = (
    "deepseek/http-retry-after-imf-fixdate",
    "deepseek/http-retry-after-asctime-and-rfc850",
    "deepseek/http-retry-after-on-any-status",
    "deepseek/http-retry-after-date-one-millisecond-ahead",
    "test_deepseek_http[deepseek-http/retry-after-date-a-day-ahead-on-the-clock]",
)
#: The one among them dated a day ahead of the clock: a clock misread by a day or more fails it.
_DAY_AHEAD = _HTTP_DATES[-1]


@wrong(
    WIRE,
    "test_deepseek_http[deepseek-http/tool-round-trip-and-follow-up]",
    "deepseek/tool-call-turn-and-its-result",
    "deepseek/tool-call-turn-without-reasoning",
    "deepseek/request-logged-message-fields-not-sent",
    "deepseek/request-two-calls-and-empty-arguments",
    "test_wire_request_matches_the_golden[after-a-tool-call]",
    "test_wire_request_matches_the_golden[follow-up-turn]",
)
@patched(wire, "wire_assistant")
def NullContentForToolCalls(serialize, content, where):
    """An assistant turn that only calls tools sends ``content: null``, as OpenAI's docs show."""
    message = serialize(content, where)
    if "tool_calls" in message and not message["content"]:
        message["content"] = None
    return message


@wrong(
    WIRE,
    "test_deepseek_http[deepseek-http/tool-round-trip-and-follow-up]",
    "test_deepseek_http[deepseek-http/error-responses]",
    "test_deepseek_http[deepseek-http/stream-closed]",
    "test_deepseek_http[deepseek-http/lone-surrogate-and-control-characters]",
    "test_deepseek_http[deepseek-http/surrogate-halves-joined-into-one-character]",
    "test_deepseek_http[deepseek-http/5xx-boundary]",
    "test_deepseek_http[deepseek-http/request-id-headers]",
    "test_deepseek_http[deepseek-http/retry-after-on-any-status]",
    "test_deepseek_http[deepseek-http/closed-mid-body]",
    "test_deepseek_http[deepseek-http/closed-after-done]",
    "test_deepseek_http[deepseek-http/eof-mid-event-after-deltas]",
    "test_deepseek_http[deepseek-http/numbers-compared-as-values]",
    "test_deepseek_http[deepseek-http/error-body-not-utf8]",
    "test_deepseek_http[deepseek-http/retry-after-past-date-on-the-clock]",
    "test_deepseek_http[deepseek-http/retry-after-date-a-day-ahead-on-the-clock]",
    "deepseek/minimal-request",
    "deepseek/every-optional-field-in-order",
    "deepseek/effort-off-disables-thinking",
    "deepseek/zero-temperature-sent",
    "deepseek/empty-tool-list-not-sent",
    "deepseek/user-text-blocks-joined",
    "deepseek/empty-user-message",
    "deepseek/tool-call-turn-and-its-result",
    "deepseek/tool-call-turn-without-reasoning",
    "deepseek/tool-results-after-user-text",
    "deepseek/assistant-text-and-reasoning",
    "deepseek/key-trimmed-as-javascript-trims",
    "deepseek/request-empty-system-sent",
    "deepseek/request-empty-stop-sent",
    "deepseek/request-system-message-in-history",
    "deepseek/request-unknown-blocks-skipped",
    "deepseek/request-logged-message-fields-not-sent",
    "deepseek/request-empty-user-messages",
    "deepseek/request-tool-result-error-flag-not-sent",
    "deepseek/request-tool-result-without-text",
    "deepseek/request-two-calls-and-empty-arguments",
    "deepseek/request-empty-assistant-message",
    "deepseek/request-effort-max",
    "test_wire_request_matches_the_golden[first-request]",
    "test_wire_request_matches_the_golden[after-a-tool-call]",
    "test_wire_request_matches_the_golden[follow-up-turn]",
    "test_wire_request_matches_the_golden[reasoning-content]",
    "test_wire_request_matches_the_golden[empty-user-message]",
)
@patched(wire, "request_body")
def NoStreamOptions(build, request):
    """The body leaves out ``stream_options``, so the provider sends no usage."""
    body = build(request)
    del body["stream_options"]
    return body


@wrong(
    WIRE,
    "test_deepseek_http[deepseek-http/tool-round-trip-and-follow-up]",
    "test_deepseek_http[deepseek-http/error-responses]",
    "test_deepseek_http[deepseek-http/stream-closed]",
    "deepseek/request-empty-system-sent",
    "deepseek/request-system-message-in-history",
    "test_wire_request_matches_the_golden[first-request]",
    "test_wire_request_matches_the_golden[after-a-tool-call]",
    "test_wire_request_matches_the_golden[follow-up-turn]",
)
@patched(wire, "request_body")
def CacheDirectiveOnSystem(build, request):
    """The system message carries an Anthropic-style ``cache_control`` directive."""
    body = build(request)
    for message in body["messages"]:
        if message["role"] == "system":
            message["cache_control"] = {"type": "ephemeral"}
    return body


@wrong(
    WIRE,
    "test_deepseek_http[deepseek-http/tool-round-trip-and-follow-up]",
    "deepseek/stream-usage-with-cache-reads",
    "deepseek/stream-cache-hit-tokens-and-last-usage-wins",
    "deepseek/stream-usage-counts-by-value",
    "deepseek/stream-cache-details-alone",
)
@patched(translate, "map_usage")
def UsageCountsCacheReadsAsInput(usage_of, usage):
    """``inputTokens`` is ``prompt_tokens`` as is: cache reads are counted twice."""
    mapped = usage_of(usage)
    mapped["inputTokens"] = usage["prompt_tokens"]
    return mapped


@wrong(WIRE, "deepseek/tool-results-after-user-text")
@patched(wire, "wire_user")
def ToolResultsBeforeUserText(serialize, content, where):
    """A user message's tool results are sent before its text (in block order)."""
    messages = serialize(content, where)
    return sorted(messages, key=lambda message: message["role"] != "tool")


@wrong("PROMPT-CACHE-E2E", "test_each_request_extends_the_previous_one")
@patched(wire, "request_body")
def ReasoningOnlyOnTheLastAssistant(build, request):
    """``reasoning_content`` is sent only on the latest assistant message, as the provider
    "ignores it elsewhere": each new answer strips it from the one before, so the history the
    next request repeats is no longer the bytes the provider cached."""
    body = build(request)
    replies = [message for message in body["messages"] if message["role"] == "assistant"]
    for message in replies[:-1]:
        message.pop("reasoning_content", None)
    return body


@wrong("PROMPT-CACHE-E2E", "test_each_request_extends_the_previous_one")
@patched(wire, "request_body")
def ClockInSystemPrompt(build, request):
    """The system message ends with the time the request is sent, a common way to tell the model
    the date (the clock here ticks one second per request, so the run is deterministic)."""
    body, now = build(request), f"2026-11-30T08:00:{next(_SECONDS) % 60:02d}Z"
    for message in body["messages"][:1]:
        if message["role"] == "system":
            message["content"] += f"\n\nCurrent time: {now}"
    return body


@wrong("PROMPT-CACHE-E2E", "test_each_request_extends_the_previous_one")
@patched(wire, "request_body")
def RecentlyCalledToolsFirst(build, request):
    """Tools the history has called move to the front of ``tools``, to "help the model pick":
    the tool list changes as soon as a tool is used."""
    body = build(request)
    called = {
        call["function"]["name"]
        for message in body["messages"]
        for call in message.get("tool_calls", ())
    }
    if "tools" in body:
        body["tools"].sort(key=lambda tool: tool["function"]["name"] not in called)
    return body


@wrong("PROMPT-CACHE-E2E", "test_each_request_extends_the_previous_one")
@patched(wire, "encode_body")
def HistoryReplayedEscaped(encode, body, placeholder="\0messages\0"):
    """Earlier messages are replayed as a store wrote them, JSON with ASCII escapes (``\\u2014``
    for ``—``), and only the newest message is serialized fresh: the JSON values are equal, but a
    message's bytes change once another message follows it."""
    *earlier, newest = body["messages"]
    stored = [json.dumps(message, separators=(",", ":")) for message in earlier]
    array = "[" + ",".join([*stored, encode(newest).decode()]) + "]"
    rest = encode({**body, "messages": placeholder}).decode()
    return rest.replace(json.dumps(placeholder), array, 1).encode()


@wrong(WIRE, "deepseek/stream-split-inside-utf8")
@patched(sse.SSEDecoder, "feed")
def ThreeByteUtf8(feed, self, data):
    """The SSE decoder carries at most two bytes of an unfinished UTF-8 sequence from one chunk
    to the next (as if no sequence were longer than three bytes): a four-byte character cut
    after its third byte decodes as U+FFFD."""
    text = self._utf8.decode(data)
    if len(self._utf8.getstate()[0]) > 2:
        self._utf8.reset()
        text += "\ufffd"
    return self._text(text)


@wrong(WIRE, "deepseek/stream-bare-cr-line-ends", "deepseek/stream-mixed-line-endings")
class LinesEndAtLineFeed(Driver):
    """The SSE decoder splits lines at LF and strips a CR before it: CRLF works, a line ending
    in CR alone never ends."""

    def __init__(self) -> None:
        field = sse.SSEDecoder._field
        sse._LINE_END = re.compile(r"\n")  # type: ignore[misc]

        def stripping(self, line):  # type: ignore[no-untyped-def]
            return field(self, line.removesuffix("\r"))

        sse.SSEDecoder._field = stripping  # type: ignore[method-assign]


@wrong(
    WIRE,
    "test_deepseek_http[deepseek-http/lone-surrogate-and-control-characters]",
    "test_deepseek_http[deepseek-http/surrogate-halves-joined-into-one-character]",
)
@patched(wire, "encode_body")
def RawLoneSurrogates(encode, body):
    """The body is UTF-8 with surrogates passed through, so a lone surrogate goes out as the
    three raw bytes of its code point instead of the escape ``JSON.stringify`` writes."""
    text = json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.encode("utf-8", "surrogatepass")


@wrong(WIRE, "deepseek/http-413-before-quota")
@patched(failures, "error_code")
def QuotaBefore413(code_of, status, detail):
    """Quota wording is read before the 413 rule, so a 413 about an exhausted quota is QUOTA."""
    if status == 413 and failures._QUOTA.search(detail):
        return "QUOTA"
    return code_of(status, detail)


@wrong(WIRE, "deepseek/http-context-wording-only-on-400")
@patched(failures, "error_code")
def ContextWordingOnAnyStatus(code_of, status, detail):
    """Context-length wording makes CONTEXT_WINDOW_EXCEEDED whatever the status (413, 5xx)."""
    code = code_of(status, detail)
    if code in ("INVALID_REQUEST", "SERVER") and failures._CONTEXT.search(detail):
        return "CONTEXT_WINDOW_EXCEEDED"
    return code


@wrong(WIRE, "deepseek/http-402-without-wording")
@patched(failures, "error_code")
def Status402IsQuota(code_of, status, detail):
    """402 Payment Required is QUOTA by its status, without the body's wording."""
    return "QUOTA" if status == 402 else code_of(status, detail)


@wrong(
    WIRE, "deepseek/http-599-is-a-server-error", "test_deepseek_http[deepseek-http/5xx-boundary]"
)
@patched(failures, "error_code")
def ServerRangeOffByOne(code_of, status, detail):
    """5xx is ``range(500, 599)``: 599 falls out of it."""
    return f"HTTP_{status}" if status == 599 else code_of(status, detail)


@wrong(WIRE, "test_deepseek_http[deepseek-http/5xx-boundary]")
@patched(failures, "error_code")
def ServerFromStatus500Up(code_of, status, detail):
    """Every status from 500 up is SERVER, as the upstream codes it: 600 and above too."""
    return "SERVER" if status >= 600 else code_of(status, detail)


@wrong(
    WIRE, "deepseek/http-request-id-headers", "test_deepseek_http[deepseek-http/request-id-headers]"
)
@patched(failures, "http_failure", also=client)
def EmptyRequestIdFallsBack(failure_of, status, body, headers, *, now_ms):
    """An empty ``x-request-id`` falls back to ``x-deepseek-request-id``."""
    failure = failure_of(status, body, headers, now_ms=now_ms)
    lower = {name.lower(): value for name, value in headers.items()}
    if not failure.get("requestId") and lower.get("x-deepseek-request-id"):
        failure["requestId"] = lower["x-deepseek-request-id"]
    return failure


@wrong(WIRE, "deepseek/http-retry-after-seconds-bounds")
@patched(failures, "retry_after_ms")
def RetryAfterCappedAtSafeInteger(delay_of, value, *, now_ms):
    """A Retry-After beyond 2**53 - 1 milliseconds is ignored, though a double holds it."""
    delay = delay_of(value, now_ms=now_ms)
    return delay if delay is None or delay <= 2**53 - 1 else None


@wrong(WIRE, "deepseek/http-retry-after-neither-seconds-nor-future-date")
@patched(failures, "retry_after_ms")
def RetryAfterFractionalSeconds(delay_of, value, *, now_ms):
    """Retry-After ``1.5`` is read as 1.5 seconds, not as a (bad) HTTP date."""
    if value is None or re.fullmatch(r"[0-9]+\.[0-9]+", value.strip()) is None:
        return delay_of(value, now_ms=now_ms)
    return float(value) * 1000 or None


@wrong(WIRE, "deepseek/http-retry-after-asctime-and-rfc850")
@patched(failures, "retry_after_ms")
def RetryAfterImfFixdateOnly(delay_of, value, *, now_ms):
    """Only the IMF-fixdate form of an HTTP date is read; RFC 850 and asctime are ignored."""
    if value is None or value.strip().isdigit():
        return delay_of(value, now_ms=now_ms)
    try:
        date = datetime.strptime(value, "%a, %d %b %Y %H:%M:%S GMT").replace(tzinfo=UTC)
    except ValueError:
        return None
    delay = int(date.timestamp() * 1000) - now_ms
    return delay if delay > 0 else None


@wrong(
    WIRE,
    "deepseek/http-retry-after-on-any-status",
    "test_deepseek_http[deepseek-http/retry-after-on-any-status]",
)
@patched(failures, "http_failure", also=client)
def RetryAfterOnlyOn429(failure_of, status, body, headers, *, now_ms):
    """Retry-After is read on a 429 only."""
    failure = failure_of(status, body, headers, now_ms=now_ms)
    if status != 429:
        failure.pop("providerRetryAfterMs", None)
    return failure


@wrong(WIRE, "deepseek/http-odd-error-bodies")
@patched(failures, "http_failure", also=client)
def OddErrorBodyIsMalformed(failure_of, status, body, headers, *, now_ms):
    """A JSON error body that is not ``{"error": {...}}`` is MALFORMED_RESPONSE."""
    failure = failure_of(status, body, headers, now_ms=now_ms)
    try:
        parsed = json.loads(body)
    except ValueError:
        return failure
    if not (isinstance(parsed, dict) and isinstance(parsed.get("error"), dict)):
        failure["code"] = "MALFORMED_RESPONSE"
    return failure


@wrong(
    WIRE,
    "deepseek/refuse-missing-key",
    "deepseek/refusal-order",
    "test_deepseek_http[deepseek-http/refuse-missing-key]",
)
@patched(wire, "check_api_key")
def EmptyKeyAllowed(check, raw):
    """An empty key is sent as it is (``Bearer ``), for the server to refuse."""
    return "" if raw == "" else check(raw)


@wrong(
    WIRE,
    "deepseek/refuse-invalid-key",
    "deepseek/refusal-order",
    "test_deepseek_http[deepseek-http/refuse-invalid-key]",
)
@patched(wire, "check_api_key")
def KeyNotValidated(check, raw):
    """Any non-empty key is sent once trimmed, spaces and newlines inside included."""
    return raw.strip(wire.JS_WHITE_SPACE) if raw else check(raw)


@wrong(WIRE, "deepseek/key-trimmed-as-javascript-trims")
@patched(wire, "check_api_key")
def PythonStripKey(check, raw):
    """The key is trimmed by Python's ``str.strip``, which keeps a U+FEFF around it."""
    key = raw.strip() if raw else check(raw)
    if wire._KEY.fullmatch(key) is None:
        raise LlmError("INVALID_CREDENTIAL", "the key is not printable ASCII")
    return key


@wrong(WIRE, "deepseek/refuse-invalid-key")
@patched(wire, "check_api_key")
def WhiteSpaceKeyIsMissing(check, raw):
    """A key of only white space counts as no key: MISSING_CREDENTIAL."""
    return check(raw.strip(wire.JS_WHITE_SPACE) if raw else raw)


@wrong(
    WIRE,
    "deepseek/refuse-unsupported-effort",
    "test_deepseek_http[deepseek-http/refuse-unsupported-effort]",
)
@patched(wire, "reasoning_fields")
def EffortPassedThrough(fields, effort):
    """An unknown effort is sent as ``reasoning_effort`` for the provider to judge."""
    if effort is None or effort in wire.REASONING_EFFORTS:
        return fields(effort)
    return {"thinking": {"type": "enabled"}, "reasoning_effort": effort}


@wrong(
    WIRE,
    "deepseek/refuse-image-block",
    "deepseek/refusal-order",
    "test_deepseek_http[deepseek-http/refuse-image-block]",
)
@patched(wire, "joined_text")
def ImagesSkipped(joined, content, block_type, where):
    """Image blocks are skipped like any block the wire cannot carry."""
    kept = [block for block in content if block.get("type") != "image"]
    return joined(kept, block_type, where)


@wrong(WIRE, "deepseek/refusal-order")
@patched(wire, "checked_key")
def KeyCheckedFirst(checked, request, raw_key):
    """The key is checked before the content, so a keyless image request is MISSING_CREDENTIAL."""
    key = wire.check_api_key(raw_key)
    wire.wire_messages(request)
    wire.reasoning_fields(request.get("reasoningEffort"))
    return key


@wrong(WIRE, "deepseek/request-empty-system-sent")
@patched(wire, "wire_messages")
def EmptySystemOmitted(messages_of, request):
    """An empty system text sends no system message (a truthiness test)."""
    messages = messages_of(request)
    return messages[1:] if request.get("system") == "" else messages


@wrong(WIRE, "deepseek/request-empty-stop-sent")
@patched(wire, "request_body")
def EmptyStopOmitted(build, request):
    """An empty ``stop`` list is left out, as if unset."""
    body = build(request)
    if body.get("stop") == []:
        del body["stop"]
    return body


@wrong(WIRE, "deepseek/request-system-message-in-history")
@patched(wire, "request_body")
def HistorySystemHoisted(build, request):
    """System-role messages of the history are moved to the front, after the system text."""
    body = build(request)
    messages = body["messages"]
    body["messages"] = sorted(messages, key=lambda message: message["role"] != "system")
    return body


@wrong(WIRE, "deepseek/request-unknown-blocks-skipped")
@patched(wire, "joined_text")
def UnknownBlocksWithTextJoined(joined, content, block_type, where):
    """A block of an unknown type that holds a ``text`` is read as a text block."""
    known = ("text", "reasoning", "tool-call", "tool-result", "image")
    texts = [
        {"type": "text", "text": block["text"]}
        if block.get("type") not in known and isinstance(block.get("text"), str)
        else block
        for block in content
    ]
    return joined(texts if block_type == "text" else content, block_type, where)


@wrong(WIRE, "deepseek/request-logged-message-fields-not-sent")
@patched(wire, "wire_message")
def MessageFieldsPassedThrough(serialize, message, where):
    """A history message's ``id`` and ``source`` are copied onto its wire message."""
    out = serialize(message, where)
    for wire_message in out:
        if wire_message["role"] == message["role"]:
            wire_message.update({k: message[k] for k in ("id", "source") if k in message})
    return out


@wrong(WIRE, "deepseek/request-empty-user-messages")
@patched(wire, "wire_user")
def EmptyTextUserMessageDropped(serialize, content, where):
    """A user message with blocks but no text is dropped; only a blockless one is sent empty."""
    messages = serialize(content, where)
    return [] if content and messages == [{"role": "user", "content": ""}] else messages


@wrong(WIRE, "deepseek/request-tool-result-error-flag-not-sent")
@patched(wire, "wire_tool_result")
def ErrorResultPrefixed(serialize, block, where):
    """An error tool result's text is sent as ``Error: <text>``."""
    message = serialize(block, where)
    if block.get("isError"):
        message["content"] = "Error: " + message["content"]
    return message


@wrong(WIRE, "deepseek/request-tool-result-without-text")
@patched(wire, "wire_tool_result")
def NoOutputOnlyWithoutBlocks(serialize, block, where):
    """``(no output)`` only for a result without blocks; one whose blocks hold no text sends
    ``""``."""
    message = serialize(block, where)
    if block["content"] and message["content"] == wire.NO_OUTPUT:
        message["content"] = ""
    return message


@wrong(WIRE, "deepseek/request-two-calls-and-empty-arguments")
@patched(wire, "wire_tool_call")
def EmptyArgumentsAsObject(serialize, block, where):
    """Empty tool-call arguments are sent as ``{}``, as strict providers want JSON there."""
    call = serialize(block, where)
    if call["function"]["arguments"] == "":
        call["function"]["arguments"] = "{}"
    return call


@wrong(WIRE, "deepseek/request-empty-assistant-message")
@patched(wire, "wire_message")
def EmptyAssistantDropped(serialize, message, where):
    """An assistant message without blocks is not sent."""
    if message.get("role") == "assistant" and message.get("content") == []:
        return []
    return serialize(message, where)


@wrong(WIRE, "deepseek/request-effort-max")
@patched(wire, "reasoning_fields")
def MaxEffortAsHigh(fields, effort):
    """Effort ``max`` is sent as ``high``, the highest the OpenAI vocabulary knows."""
    return fields("high" if effort == "max" else effort)


@wrong(WIRE, "deepseek/stream-shape-payload-is-an-object", "deepseek/stream-malformed-payloads")
@patched(translate, "_parse")
def OddPayloadsIgnored(parse, data):
    """A payload that is JSON but not an object is skipped, as the upstream skips some."""
    try:
        value = json.loads(data)
    except ValueError:
        return parse(data)
    return parse(data) if isinstance(value, dict) else {}


@wrong(WIRE, "deepseek/stream-shape-choices-list-of-objects", "deepseek/stream-shape-falsy-choices")
@patched(translate, "_parse")
def LenientChoices(parse, data):
    """``choices`` as one object is read as a list of it, and ``null`` entries are skipped."""
    try:
        value = json.loads(data)
    except ValueError:
        return parse(data)
    choices = value.get("choices") if isinstance(value, dict) else None
    if isinstance(choices, dict | list):
        listed = [choices] if isinstance(choices, dict) else choices
        value["choices"] = [choice for choice in listed if choice is not None]
        return parse(json.dumps(value))
    return parse(data)


@wrong(WIRE, "deepseek/stream-shape-tool-calls-list-of-objects")
@patched(translate.StreamTranslator, "_append_call")
def NullToolCallsSkipped(append, self, out, call, data):
    """A ``null`` entry of ``tool_calls`` is skipped."""
    if call is not None:
        append(self, out, call, data)


@wrong(
    WIRE, "deepseek/stream-shape-texts-are-strings", "deepseek/stream-shape-tool-call-id-and-name"
)
@patched(translate, "_text")
def NonStringTextsCoerced(text_of, container, key, data):
    """A number or object where a text belongs is turned into its string."""
    value = container.get(key)
    return value if value is None or isinstance(value, str) else json.dumps(value)


@wrong(WIRE, "deepseek/stream-shape-usage", "deepseek/stream-shape-usage-boolean-count")
@patched(translate, "map_usage")
def LenientUsage(usage_of, usage):
    """A usage object without sound counts is ignored instead of failing the stream."""
    try:
        return usage_of(usage)
    except (TypeError, ValueError):
        return None


@wrong(WIRE, "deepseek/stream-empty-finish-reason")
@patched(translate, "map_finish")
def EmptyFinishReasonIsStop(finish_of, reason):
    """An empty ``finish_reason`` counts as none, so the finish defaults to stop."""
    return {"kind": "stop"} if reason == "" else finish_of(reason)


@wrong(WIRE, "deepseek/stream-whitespace-only-payload")
@patched(translate.StreamTranslator, "payload")
def WhitespacePayloadSkipped(payload, self, data):
    """A payload of only spaces is skipped as a keep-alive."""
    return [] if data and data.isspace() else payload(self, data)


@wrong(WIRE, "deepseek/stream-done-is-exact")
@patched(translate.StreamTranslator, "payload")
def DoneStripped(payload, self, data):
    """A payload that is ``[DONE]`` once stripped of spaces ends the stream."""
    return payload(self, translate.DONE if data.strip() == translate.DONE else data)


@wrong(WIRE, "deepseek/stream-data-without-space")
@patched(sse.SSEDecoder, "_field")
def DataValueAtFixedOffset(field, self, line):
    """A ``data`` value is taken from the seventh character on, as if ``data: `` were fixed."""
    if line.startswith("data:"):
        line = "data: " + line[6:]
    return field(self, line)


@wrong(WIRE, "deepseek/stream-other-fields-ignored", "deepseek/stream-event-without-data")
@patched(sse.SSEDecoder, "_field")
def OtherFieldsAsData(field, self, line):
    """The values of ``event``, ``id`` and ``retry`` lines are taken as data too."""
    name, colon, value = line.partition(":")
    return field(self, "data" + colon + value if name in ("event", "id", "retry") else line)


@wrong(WIRE, "deepseek/stream-bare-data-field")
@patched(sse.SSEDecoder, "_field")
def ColonlessLinesIgnored(field, self, line):
    """A line without a colon is ignored, so a bare ``data`` line adds nothing."""
    return None if line and ":" not in line else field(self, line)


@wrong(WIRE, "deepseek/stream-event-without-data")
@patched(sse.SSEDecoder, "_field")
def EventWithoutDataDispatchesBlank(field, self, line):
    """An event that names its type dispatches, as a blank payload if it had no data."""
    typed = getattr(self, "typed", False)
    self.typed = bool(line) and (typed or line.startswith("event:"))
    if not line and typed and self._data is None:
        return ""
    return field(self, line)


@wrong(WIRE, "deepseek/stream-double-bom")
@patched(sse.SSEDecoder, "_text")
def AllLeadingBomsDropped(text_of, self, text):
    """Every U+FEFF at the start of the stream is dropped."""
    return text_of(self, text.lstrip("\ufeff") if self._at_start else text)


@wrong(WIRE, "deepseek/stream-only-feff-is-a-bom")
@patched(sse.SSEDecoder, "_text")
def LatinBomDropped(text_of, self, text):
    """The BOM's bytes read as Latin-1 (``ï»¿``) are dropped too."""
    return text_of(self, text.removeprefix("ï»¿") if self._at_start else text)


@wrong(WIRE, "deepseek/stream-bom-only-at-stream-start")
@patched(sse.SSEDecoder, "_text")
def BomDroppedPerChunk(text_of, self, text):
    """A U+FEFF at the start of any body chunk is dropped, not only at the stream's start."""
    return text_of(self, text if self._at_start else text.removeprefix("\ufeff"))


@wrong(WIRE, "deepseek/stream-mixed-line-endings")
@patched(sse.SSEDecoder, "_text")
def LineEndDetectedOnce(text_of, self, text):
    """The line end (CRLF, LF or CR) is detected on the first line and used for the rest."""
    if not text:
        return []
    if self._at_start:
        self._at_start = False
        text = text.removeprefix("\ufeff")
    buffered = getattr(self, "buffered", "") + text
    separator = getattr(self, "separator", None)
    if separator is None:
        found = re.search("\r\n|\n|\r", buffered)
        if found is None or (found.group() == "\r" and found.end() == len(buffered)):
            self.buffered = buffered
            return []
        separator = self.separator = found.group()
    *lines, self.buffered = buffered.split(separator)
    return [data for data in map(self._field, lines) if data is not None]


@wrong(WIRE, "deepseek/stream-multiline-data-crlf")
@patched(sse.SSEDecoder, "_text")
def CrLfAcrossReadsIsTwoLineEnds(text_of, self, text):
    """A CR at the end of one read and its LF at the start of the next are two line ends."""
    self._after_cr = False
    return text_of(self, text)


@wrong(WIRE, "deepseek/stream-invalid-utf8")
@patched(sse.SSEDecoder, "__init__")
def InvalidUtf8Dropped(init, self):
    """Invalid UTF-8 bytes are dropped instead of becoming U+FFFD."""
    init(self)
    self._utf8 = codecs.getincrementaldecoder("utf-8")(errors="ignore")


@wrong(WIRE, "deepseek/stream-reasoning-only-then-stop")
@patched(translate.StreamTranslator, "_final")
def ReasoningIsNotContent(final, self):
    """A stop with only reasoning is EMPTY_RESPONSE: reasoning is not counted as content."""
    out = final(self)
    only_reasoning = all(block["type"] == "reasoning" for block in self._blocks)
    if self._blocks and only_reasoning and out[-1]["reason"] == {"kind": "stop"}:
        failure = {"message": "no content", "code": "EMPTY_RESPONSE"}
        out[-1] = {"type": "finish", "reason": {"kind": "error", "failure": failure}}
    return out


@wrong(WIRE, "deepseek/stream-empty-length-finish")
@patched(translate.StreamTranslator, "_final")
def AnyEmptyFinishIsEmptyResponse(final, self):
    """Any finish with no block is EMPTY_RESPONSE, a length or tool-calls one too."""
    out = final(self)
    if not self._blocks and out[-1]["reason"]["kind"] in ("max-tokens", "tool-calls"):
        failure = {"message": "no content", "code": "EMPTY_RESPONSE"}
        out[-1] = {"type": "finish", "reason": {"kind": "error", "failure": failure}}
    return out


@wrong(WIRE, "deepseek/stream-empty-tool-calls-list")
@patched(translate.StreamTranslator, "payload")
def ToolCallsKeyHidesContent(payload, self, data):
    """A delta holding ``tool_calls`` is read as a tool-call delta only: its content is lost."""
    try:
        chunk = json.loads(data)
    except ValueError:
        return payload(self, data)
    for choice in chunk.get("choices") or [] if isinstance(chunk, dict) else []:
        delta = choice.get("delta") if isinstance(choice, dict) else None
        if isinstance(delta, dict) and "tool_calls" in delta:
            delta.pop("content", None)
    return payload(self, json.dumps(chunk))


@wrong(WIRE, "deepseek/stream-reasoning-and-text-interleaved")
@patched(translate.StreamTranslator, "_append_text")
def BlockPerKindChange(append, self, out, kind, text):
    """A new block opens whenever the delta kind changes, so interleaving makes four blocks."""
    last = len(self._blocks) - 1
    if text and kind == "reasoning" and self._reasoning not in (None, last):
        self._reasoning = None
    if text and kind == "text" and self._text not in (None, last):
        self._text = None
    append(self, out, kind, text)


@wrong(WIRE, "deepseek/stream-parallel-tool-calls-by-index")
@patched(translate.StreamTranslator, "_final")
def ToolBlocksByWireIndex(final, self):
    """Tool-call blocks end in the order of their wire ``index``, not of first appearance."""
    order = sorted(self._tool_calls, key=int)
    positions = sorted(self._tool_calls.values())
    blocks, pieces = list(self._blocks), list(self._pieces)
    for position, wire_index in zip(positions, order, strict=True):
        blocks[position] = self._blocks[self._tool_calls[wire_index]]
        pieces[position] = self._pieces[self._tool_calls[wire_index]]
    self._blocks, self._pieces = blocks, pieces
    return final(self)


@wrong(WIRE, "deepseek/stream-tool-call-without-id-or-name")
@patched(translate.StreamTranslator, "_assembled")
def ToolCallMissingIdOmitted(assembled, self, index):
    """A tool call whose id or name never arrived has no such key, instead of ``""``."""
    block = assembled(self, index)
    return {key: value for key, value in block.items() if value != "" or key == "arguments"}


@wrong(WIRE, "deepseek/stream-null-delta")
@patched(translate, "_object")
def NullDeltaIsMalformed(object_of, value, where, data):
    """A ``null`` delta is MALFORMED_RESPONSE: a choice must carry a delta object."""
    if value is None and where == "choices[].delta":
        raise translate._malformed("delta is null", data)
    return object_of(value, where, data)


@wrong(WIRE, "deepseek/stream-cache-details-zero-wins")
@patched(translate, "map_usage")
def CacheHitWhenDetailIsZero(usage_of, usage):
    """A cached-tokens detail of 0 falls back to the hit count (an ``or``, not an absence test)."""
    mapped = usage_of(usage)
    hits = usage.get("prompt_cache_hit_tokens")
    if mapped.get("cacheReadTokens") == 0 and hits:
        mapped["cacheReadTokens"] = hits
        mapped["inputTokens"] -= hits
    return mapped


@wrong(
    WIRE,
    "deepseek/stream-shape-usage",
    "deepseek/stream-cache-details-alone",
    "deepseek/stream-cache-details-zero-wins",
    "test_deepseek_http[deepseek-http/tool-round-trip-and-follow-up]",
)
@patched(translate, "map_usage")
def CacheHitTokensOnly(usage_of, usage):
    """Cache reads come from ``prompt_cache_hit_tokens`` only; the details are not read."""
    return usage_of({key: value for key, value in usage.items() if key != "prompt_tokens_details"})


@wrong(WIRE, "deepseek/stream-finish-reason-case-sensitive")
@patched(translate, "map_finish")
def FinishReasonCaseInsensitive(finish_of, reason):
    """Finish reasons are matched ignoring case, so ``Stop`` is a stop."""
    lower = reason.lower()
    return finish_of(lower if lower in translate.FINISH_KINDS else reason)


@wrong(
    WIRE,
    "deepseek/stream-eof-mid-event-after-deltas",
    "test_deepseek_http[deepseek-http/eof-mid-event-after-deltas]",
)
@patched(translate.StreamReader, "close")
def EofAfterContentIsStop(close, self):
    """A body that ends without ``[DONE]`` after some content is finished as a stop."""
    try:
        yield from close(self)
    except LlmError as error:
        if error.code != "STREAM_CLOSED" or not self._translator._blocks:
            raise
        yield from self._translator.payload(translate.DONE)


@wrong(WIRE, "test_deepseek_http[deepseek-http/closed-mid-body]")
@patched(client.DeepSeekAdapter, "stream")
async def PartialAnswerKeptOnDrop(stream, self, request, signal=None):
    """A connection dropped after some text ends the answer as it stands, as a stop."""
    seen_text = False
    async for chunk in stream(self, request, signal):
        failure = chunk.get("reason", {}).get("failure", {})
        if seen_text and failure.get("code") == "TRANSPORT":
            yield {"type": "finish", "reason": {"kind": "stop"}}
            return
        seen_text = seen_text or chunk["type"] == "text-delta"
        yield chunk


@wrong(WIRE, "deepseek/http-retry-after-seconds-bounds")
@patched(failures, "retry_after_ms")
def UnicodeDigitSeconds(delay_of, value, *, now_ms):
    """Retry-After seconds are any digits ``str.isdigit`` knows, an Arabic-Indic three too."""
    if value is not None and value.strip().isdigit() and not value.isascii():
        return int(value) * 1000
    return delay_of(value, now_ms=now_ms)


@wrong(
    WIRE,
    "test_deepseek_http[deepseek-http/error-responses]",
    "test_deepseek_http[deepseek-http/error-body-not-utf8]",
    "test_deepseek_http[deepseek-http/retry-after-past-date-on-the-clock]",
    "test_deepseek_http[deepseek-http/5xx-boundary]",
    "test_deepseek_http[deepseek-http/request-id-headers]",
    "test_deepseek_http[deepseek-http/retry-after-on-any-status]",
    "deepseek/http-auth",
    "deepseek/http-quota-whatever-the-status",
    "deepseek/http-rate-limit",
    "deepseek/http-retry-after-seconds",
    "deepseek/http-retry-after-imf-fixdate",
    "deepseek/http-retry-after-header-name-in-any-case",
    "deepseek/http-context-window",
    "deepseek/http-invalid-server-and-other",
    "deepseek/http-413-before-quota",
    "deepseek/http-context-wording-only-on-400",
    "deepseek/http-402-without-wording",
    "deepseek/http-599-is-a-server-error",
    "deepseek/http-request-id-headers",
    "deepseek/http-retry-after-seconds-bounds",
    "deepseek/http-retry-after-neither-seconds-nor-future-date",
    "deepseek/http-retry-after-asctime-and-rfc850",
    "deepseek/http-retry-after-on-any-status",
    "deepseek/http-odd-error-bodies",
    "deepseek/http-retry-after-date-one-millisecond-ahead",
    _DAY_AHEAD,
    "deepseek/http-quota-wording-across-code-and-type",
)
@patched(failures, "http_failure", also=client)
def NoStatusOnHttpFailures(failure_of, status, body, headers, *, now_ms):
    """An HTTP failure carries its code and message but not the HTTP ``status``."""
    failure = failure_of(status, body, headers, now_ms=now_ms)
    del failure["status"]
    return failure


@wrong(
    WIRE,
    "deepseek/effort-off-disables-thinking",
    "test_wire_request_matches_the_golden[empty-user-message]",
)
@patched(wire, "reasoning_fields")
def EffortOffSendsNoThinking(fields_of, effort):
    """Effort ``off`` sends no ``thinking`` at all (the provider default), as if it were unset."""
    return {} if effort == "off" else fields_of(effort)


@wrong(
    WIRE,
    "deepseek/zero-temperature-sent",
    "test_wire_request_matches_the_golden[empty-user-message]",
)
@patched(wire, "request_body")
def ZeroTemperatureDropped(build, request):
    """A temperature of 0 is taken for unset (a truthiness test) and not sent."""
    body = build(request)
    if body.get("temperature") == 0:
        del body["temperature"]
    return body


@wrong(WIRE, "deepseek/empty-tool-list-not-sent")
@patched(wire, "request_body")
def EmptyToolListSent(build, request):
    """A tool list given empty is sent as ``tools: []``."""
    body = build(request)
    if request.get("tools") == []:
        body = {**body, "tools": []}
    return body


@wrong(WIRE, "deepseek/stream-leading-bom-dropped")
@patched(sse.SSEDecoder, "_text")
def BomKept(text_of, self, text):
    """A leading BOM is kept, so it becomes part of the first line's field name."""
    self._at_start = False
    return text_of(self, text)


@wrong(WIRE, "deepseek/stream-comment-lines-ignored")
@patched(sse.SSEDecoder, "_field")
def CommentDropsTheEvent(field, self, line):
    """A comment line discards the data gathered so far for its event (taken for a reset)."""
    if line.startswith(":"):
        self._data = None
        return None
    return field(self, line)


@wrong(WIRE, "deepseek/stream-multiline-data-joined", "deepseek/stream-multiline-data-crlf")
@patched(sse.SSEDecoder, "_field")
def LastDataLineWins(field, self, line):
    """Each ``data:`` line replaces the event's data instead of joining it with a newline."""
    if line.startswith("data"):
        self._data = None
    return field(self, line)


@wrong(
    WIRE,
    "deepseek/http-rate-limit",
    "deepseek/http-odd-error-bodies",
    "deepseek/http-retry-after-seconds",
    "deepseek/http-retry-after-imf-fixdate",
    "deepseek/http-retry-after-header-name-in-any-case",
    "deepseek/http-retry-after-asctime-and-rfc850",
    "deepseek/http-retry-after-neither-seconds-nor-future-date",
    "deepseek/http-retry-after-seconds-bounds",
    "test_deepseek_http[deepseek-http/error-responses]",
    "deepseek/http-retry-after-date-one-millisecond-ahead",
    "test_deepseek_http[deepseek-http/retry-after-date-a-day-ahead-on-the-clock]",
)
@patched(failures, "error_code")
def RateLimitUnmapped(code_of, status, detail):
    """A 429 without quota wording falls through to ``HTTP_429`` (no RATE_LIMIT rule)."""
    code = code_of(status, detail)
    return "HTTP_429" if code == "RATE_LIMIT" else code


@wrong(
    WIRE,
    "deepseek/http-retry-after-seconds",
    "deepseek/http-retry-after-header-name-in-any-case",
    "deepseek/http-retry-after-seconds-bounds",
    "deepseek/http-retry-after-on-any-status",
    "test_deepseek_http[deepseek-http/retry-after-on-any-status]",
)
@patched(failures, "retry_after_ms")
def RetryAfterSecondsAsMilliseconds(delay_of, value, *, now_ms):
    """A ``Retry-After`` in seconds is taken as milliseconds (not multiplied by 1000)."""
    delay = delay_of(value, now_ms=now_ms)
    if delay is not None and value is not None and value.strip().isdigit():
        return delay / 1000
    return delay


@wrong(WIRE, *_HTTP_DATES)
@patched(failures, "retry_after_ms")
def RetryAfterDatesIgnored(delay_of, value, *, now_ms):
    """Only a ``Retry-After`` in seconds is read; an HTTP date is ignored."""
    if value is None or not value.strip().isascii() or not value.strip().isdigit():
        return None
    return delay_of(value, now_ms=now_ms)


@wrong(WIRE, "deepseek/http-retry-after-header-name-in-any-case")
@patched(failures, "http_failure", also=client)
def RetryAfterNameCaseSensitive(failure_of, status, body, headers, *, now_ms):
    """``Retry-After`` is looked up by its lowercase name only (request ids still any case)."""
    named = {k: v for k, v in headers.items() if k.lower() != "retry-after"}
    named.update({k: v for k, v in headers.items() if k == "retry-after"})
    return failure_of(status, body, named, now_ms=now_ms)


@wrong(WIRE, "deepseek/http-retry-after-date-one-millisecond-ahead")
@patched(failures, "retry_after_ms")
def RetryAfterDateInWholeSeconds(delay_of, value, *, now_ms):
    """The time to an HTTP-date Retry-After is counted in whole seconds (rounded down), so a date
    less than a second ahead of the clock is not in the future."""
    if value is None or failures._SECONDS.fullmatch(value.strip()):
        return delay_of(value, now_ms=now_ms)
    delay = delay_of(value, now_ms=now_ms)
    return None if delay is None or delay < 1000 else delay // 1000 * 1000


@wrong(WIRE, "test_deepseek_http[deepseek-http/surrogate-halves-joined-into-one-character]")
@patched(wire, "encode_body")
def SurrogatePairsLeftToTheEncoder(encode, body):
    """Only lone surrogates are escaped; a surrogate pair (formed when text blocks are joined) is
    left in the text for the UTF-8 encoder, which replaces each half with ``?`` instead of writing
    the one character the pair is."""
    lone = re.compile("(?<![\ud800-\udbff])[\udc00-\udfff]|[\ud800-\udbff](?![\udc00-\udfff])")
    text = json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    escaped = lone.sub(lambda match: f"\\u{ord(match.group()):04x}", text)
    return escaped.encode("utf-8", "replace")


@wrong(WIRE, "deepseek/stream-shape-falsy-choices")
@patched(translate, "_list")
def FalsyChoicesAbsent(checked, value, where, data):
    """A chunk's `choices` is read as `choices or []`: an empty object, `0`, `""` or `false`
    passes as no choices instead of `MALFORMED_RESPONSE`."""
    return [] if where == "choices" and not value else checked(value, where, data)


@wrong(WIRE, "deepseek/stream-shape-scalar-choice")
@patched(translate, "_object")
def ScalarChoicesSkipped(checked, value, where, data):
    """A number or a string in `choices` is skipped as a choice with nothing in it."""
    scalar = isinstance(value, int | float | str)
    return {} if where == "choices[]" and scalar else checked(value, where, data)


@wrong(WIRE, "deepseek/stream-shape-delta-is-an-object")
@patched(translate, "_object")
def ScalarDeltaIgnored(checked, value, where, data):
    """A `delta` that is not an object (a number, a string, a list) is read as a null delta."""
    ignored = where == "choices[].delta" and not isinstance(value, dict)
    return None if ignored else checked(value, where, data)


@wrong(WIRE, "deepseek/stream-shape-tool-calls-scalars")
@patched(translate, "_list")
def ScalarToolCallsIgnored(checked, value, where, data):
    """A `tool_calls` that is not a list (a number) is read as no tool calls."""
    ignored = where == "delta.tool_calls" and not isinstance(value, list)
    return [] if ignored else checked(value, where, data)


@wrong(WIRE, "deepseek/stream-shape-tool-call-index")
@patched(translate.StreamTranslator, "_append_call")
def ToolCallIndexDefaultsToZero(append, self, out, call, data):
    """A tool call without an integer `index` (none, a string, a boolean, a fraction) is read as
    index 0, the upstream's `index ?? 0`."""
    index = call.get("index") if isinstance(call, dict) else 0
    if isinstance(call, dict) and (type(index) is not int):
        call = {**call, "index": 0}
    return append(self, out, call, data)


@wrong(WIRE, "deepseek/stream-shape-finish-reason")
@patched(translate, "_parse")
def NonStringFinishReasonIgnored(parse, data):
    """A `finish_reason` that is not a string (a number, a boolean, an object) is read as null."""
    chunk = parse(data)
    for choice in chunk.get("choices") or []:
        reason = choice.get("finish_reason") if isinstance(choice, dict) else None
        if reason is not None and not isinstance(reason, str):
            choice["finish_reason"] = None
    return chunk


@wrong(WIRE, "deepseek/stream-shape-usage-boolean-count")
@patched(translate, "_count")
def BooleanCountsAreNumbers(count, container, key):
    """A usage count `true` is read as 1, as a loose number check (`typeof` aside) does."""
    value = container.get(key) if isinstance(container, dict) else None
    return int(value) if isinstance(value, bool) else count(container, key)


@wrong(WIRE, "deepseek/stream-usage-counts-by-value")
@patched(translate, "_count")
def IntegralFloatCountsRejected(count, container, key):
    """A usage count written with a fraction part (`10.0`) is `MALFORMED_RESPONSE`: the count is
    checked as an integer of the JSON text, not by value."""
    value = container.get(key) if isinstance(container, dict) else None
    if isinstance(value, float):
        raise ValueError(f"{key} is not an integer: {value!r}")
    return count(container, key)


@wrong(WIRE, "deepseek/stream-non-json-constants")
@patched(translate, "_reject_constant")
def NonJsonConstantsAccepted(reject, constant):
    """`NaN`, `Infinity` and `-Infinity` in a payload are read as numbers, as Python's `json`
    module does by default."""
    return float(constant)


@wrong(WIRE, "deepseek/stream-tool-call-without-id-or-name")
@patched(translate.StreamTranslator, "_append_call")
def ToolCallDeltaNameNull(append, self, out, call, data):
    """A `tool-call-delta` carries `name: null` until the name arrives, instead of no `name`."""
    append(self, out, call, data)
    out[-1].setdefault("name", None)


@wrong(WIRE, "deepseek/stream-empty-response")
@patched(translate.StreamTranslator, "_final")
def EmptyResponseDetailNotMessage(final, self):
    """The `EMPTY_RESPONSE` failure carries its text as `detail`, not `message`."""
    chunks = final(self)
    failure = chunks[-1]["reason"].get("failure", {})
    if failure.get("code") == "EMPTY_RESPONSE":
        failure["detail"] = failure.pop("message")
    return chunks


@wrong(WIRE, "test_deepseek_http[deepseek-http/error-body-not-utf8]")
@patched(client, "http_failure")
def NonUtf8ErrorBodyIsTransport(mapped, status, text, headers, *, now_ms):
    """An error response whose body is not UTF-8 is reported as `TRANSPORT` (the body decoded
    strictly, the decoding error taken for a broken connection)."""
    if "\ufffd" in text:
        raise LlmError("TRANSPORT", "the error body is not UTF-8")
    return mapped(status, text, headers, now_ms=now_ms)


@wrong(
    WIRE,
    "test_deepseek_http[deepseek-http/retry-after-past-date-on-the-clock]",
    _DAY_AHEAD,
)
class ClockInSeconds(Driver):
    """Over HTTP, the clock an HTTP-date `Retry-After` is measured against is read in seconds
    where milliseconds are meant, so every date after January 1970 lies in the future."""

    def __init__(self) -> None:
        now = client.time.time

        class Clock:
            @staticmethod
            def time() -> float:
                return now() / 1000

        client.time = Clock  # type: ignore[assignment]


@wrong(WIRE, *_HTTP_DATES)
@patched(failures, "retry_after_ms")
def RetryAfterDateInLocalTime(delay_of, value, *, now_ms):
    """An HTTP-date `Retry-After` is read in the machine's local time zone (`time.mktime` where
    `calendar.timegm` is meant), not as GMT. On a machine whose zone is UTC it reads every date
    right: only the zone the suite runs implementations in (PROTOCOL.md, "The harness's
    environment") shows it."""
    fields = None if value is None else parsedate(value.strip())
    if fields is None or failures._SECONDS.fullmatch(value.strip()):
        return delay_of(value, now_ms=now_ms)
    delay = int(time.mktime(fields) * 1000) - now_ms
    return delay if delay > 0 else None


@wrong(WIRE, "deepseek/stream-shape-tool-call-function-not-an-object")
@patched(translate.StreamTranslator, "_append_call")
def ToolCallFunctionNotAnObjectSkipped(append, self, out, call, data):
    """A tool call whose ``function`` is not an object (nor null) is skipped whole, so the rest
    of the call (a number as its ``id``) is never checked and the stream goes on instead of
    ending ``MALFORMED_RESPONSE``. (The audit's ``_append_call`` mutant 33 crashed there
    instead, which the same case rejects.)"""
    function = call.get("function") if isinstance(call, dict) else None
    if function is None or isinstance(function, dict):
        append(self, out, call, data)


@wrong(WIRE, "test_deepseek_http[deepseek-http/closed-after-done]")
@patched(client.httpx.AsyncClient, "send")
def BodyReadWholeFirst(send, self, request, **options):
    """Over HTTP, the response body is read whole before it is translated (httpx's ``send``
    without ``stream=True``), so a connection that closes after ``[DONE]``, short of the
    announced ``content-length``, fails a complete answer as ``TRANSPORT`` (the audit's
    ``DeepSeekAdapter._stream`` mutants 35, 37, 38)."""
    return send(self, request, **{**options, "stream": False})


# -- issue 35 item 6: the mutants the audit found observable ----------------------------------


@wrong(WIRE, "deepseek/http-quota-wording-across-code-and-type")
@patched(failures, "http_failure")
def QuotaWordingReadFieldByField(http_failure, status, body, headers, *, now_ms):
    """The error body's code, type and message are joined with `XX XX` instead of a space (the
    mutant `http_failure` 9), so quota wording that spans two fields (code `insufficient`,
    type `quota`) is missed."""
    failure = http_failure(status, body, headers, now_ms=now_ms)
    error = failures._error_object(body)
    fields = [str(error[key]) for key in ("code", "type", "message") if error.get(key)]
    failure["code"] = failures.error_code(status, "XX XX".join(fields))
    return failure


class _ClockAhead:
    """The clock the adapter reads in `RetryAfterOnAClockAhead`: 0.1 % fast."""

    @staticmethod
    def time() -> float:
        return time.time() * 1.001


@wrong(WIRE, _DAY_AHEAD)
class RetryAfterOnAClockAhead(Driver):
    """The adapter's clock reads 0.1 % fast, about 20 days ahead (the mutant `_stream` 57): an
    HTTP-date `Retry-After` a day ahead has passed by it, so the failure has no
    `providerRetryAfterMs`."""

    def __init__(self) -> None:
        super().__init__()
        client.time = _ClockAhead  # type: ignore[assignment]
