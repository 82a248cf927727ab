#!/usr/bin/env node
// A runner for the exported conformance cases, written from COMPARISON.md and PROTOCOL.md alone:
// the proof that the export is enough for a project in another language. Node 20, no dependencies.
//
//   node runner.mjs EXPORT_DIR 'HARNESS COMMAND' [--timeout SECONDS]
//
// Exit status: 0 when nothing failed or errored, 1 otherwise, 2 for a usage error or an export
// this runner does not know (another format or comparison version, an unknown rule).
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";

const FORMAT = 3;
const COMPARISON_VERSION = 2;

function usage(message) {
  process.stderr.write(`runner.mjs: ${message}\n`);
  process.exit(2);
}

// The JSON text of a message, the same JSON value as the export's: JSON.stringify writes -0 as
// 0, which would send a case's -0.0 (legal JSON text that CONTRACTS.md's session log refuses as
// not lossless JSON) as another value. A -0 is written through a marker no case string holds.
const NEGATIVE_ZERO = `-0 ${randomUUID()}`;
function sent(message) {
  const text = JSON.stringify(message, (_key, v) => (Object.is(v, -0) ? NEGATIVE_ZERO : v));
  return text.replaceAll(JSON.stringify(NEGATIVE_ZERO), "-0.0");
}

// -- value equalities ------------------------------------------------------------------------

const kind = (v) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);

function jsonValue(a, b) {
  if (kind(a) !== kind(b)) return false;
  if (Array.isArray(a)) return a.length === b.length && a.every((x, i) => jsonValue(x, b[i]));
  if (kind(a) === "object") {
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length &&
      keys.every((k) => Object.hasOwn(b, k) && jsonValue(a[k], b[k]))
    );
  }
  return a === b;
}

// JSON.parse already lists integer-like keys first, ascending, as JSON.stringify prints them:
// the key lists of two parsed objects compare exactly as json-text says.
function jsonText(a, b) {
  if (kind(a) !== kind(b)) return false;
  if (Array.isArray(a)) return a.length === b.length && a.every((x, i) => jsonText(x, b[i]));
  if (kind(a) === "object") {
    const keys = Object.keys(a);
    const other = Object.keys(b);
    return (
      keys.length === other.length &&
      keys.every((k, i) => k === other[i] && jsonText(a[k], b[k]))
    );
  }
  return a === b;
}

// "ordered" differs from json-text only for integer-like keys, which no wire body has; JSON.parse
// has already put them first, so their original order is not observable here.
const ordered = jsonText;

const integerLike = (key) => /^(0|[1-9][0-9]*)$/.test(key) && Number(key) < 2 ** 32 - 1;

function keyOrder(value) {
  if (Array.isArray(value)) return value.map(keyOrder);
  if (kind(value) !== "object") return null;
  const named = Object.keys(value)
    .filter((k) => !integerLike(k))
    .map((k) => [k, keyOrder(value[k])]);
  const indexed = Object.fromEntries(
    Object.keys(value)
      .filter(integerLike)
      .map((k) => [k, keyOrder(value[k])]),
  );
  return [named, indexed];
}

// -- field rules -----------------------------------------------------------------------------

let ABSENT = "<absent>";
const UNDEFINED_IS_NULL = new Set(["header", "null-or-absent"]);
let ANY_TEXT = "<any text>";

const FIELD_RULES = {
  "json-value": jsonValue,
  "json-text": jsonText,
  tools: (want, got) =>
    jsonValue(want, got) &&
    Array.isArray(got) &&
    want.every((tool, i) => jsonValue(keyOrder(tool.parameters), keyOrder(got[i].parameters))),
  header: (want, got) => {
    if (want === null || got === null) return want === got;
    return (
      kind(got) === "object" &&
      jsonValue(want, got) &&
      (want.tools === undefined || FIELD_RULES.tools(want.tools, got.tools))
    );
  },
  "events-without-time": (want, got) =>
    Array.isArray(got) &&
    got.length === want.length &&
    got.every((event, i) => {
      if (kind(event) !== "object") return false;
      const { time, ...rest } = event;
      return jsonValue(want[i], rest);
    }),
  "null-or-absent": jsonValue,
  "calls-on-given-keys": (want, got) =>
    Array.isArray(got) &&
    got.length === want.length &&
    want.every(
      (call, i) =>
        kind(got[i]) === "object" &&
        Object.entries(call).every(([key, value]) => Object.hasOwn(got[i], key) && jsonValue(value, got[i][key])),
    ),
  "named-variables": (want, got) =>
    kind(got) === "object" &&
    Object.entries(want).every(([name, value]) =>
      value === ABSENT ? !Object.hasOwn(got, name) : Object.hasOwn(got, name) && jsonValue(value, got[name]),
    ),
};

const show = (v) => {
  const text = JSON.stringify(v) ?? "undefined";
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
};

function compareFields(expected, observed, comparison, prefix = "") {
  if (kind(observed) !== "object") return `${prefix}expected an object, got ${show(observed)}`;
  for (const [key, want] of Object.entries(expected)) {
    const rule = comparison.fieldRules[key] ?? comparison.defaultFieldRule;
    // An empty observation is the op's one key dropped as undefined: null, for these rules only.
    const none = Object.keys(observed).length === 0 && UNDEFINED_IS_NULL.has(rule) ? null : ABSENT;
    const got = Object.hasOwn(observed, key) ? observed[key] : none;
    if (!FIELD_RULES[rule](want, got)) {
      return `${prefix}${key} (${rule}): expected ${show(want)}, got ${show(got)}`;
    }
  }
  return null;
}

// -- the log view ----------------------------------------------------------------------------

function logView(observed, logViewConstants) {
  const core = new Set(logViewConstants.coreTypes);
  const kept = observed.log.filter((event) => core.has(event.type));
  const positions = new Map(kept.map((event, i) => [event.seq, i]));
  const names = new Map();
  for (const event of kept) {
    const data = event.data;
    let messages = [];
    if (kind(data) === "object") {
      if (event.type === "user/message") messages = [data];
      if (event.type === "assistant/message" || event.type === "tool/result") {
        messages = [data.message];
      }
    }
    for (const message of messages) {
      if (kind(message) === "object" && typeof message.id === "string" && !names.has(message.id)) {
        names.set(message.id, `#${names.size + 1}`);
      }
    }
  }
  const position = (seq) => (positions.has(seq) ? positions.get(seq) : `?${seq}`);
  const replaced = (value) => {
    if (Array.isArray(value)) return value.map(replaced);
    if (kind(value) !== "object") return value;
    const copy = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replaced(v)]));
    const isMessage = ["role", "content", "id"].every((k) => Object.hasOwn(value, k));
    if (isMessage && typeof value.id === "string") {
      copy.id = names.get(value.id) ?? `?${value.id}`;
    }
    if (Object.hasOwn(value, "sessionId")) {
      copy.sessionId =
        value.sessionId === observed.sessionId ? logViewConstants.session : value.sessionId;
    }
    return copy;
  };
  const log = kept.map((event) => {
    const view = { type: event.type, data: replaced(event.data) };
    let op = event.surfaceOp;
    if (kind(op) === "object") op = { ...op, start: position(op.start), end: position(op.end) };
    if (op !== undefined && op !== null) view.surfaceOp = op;
    if (Object.hasOwn(event, "sourceEventSeqs")) {
      view.sourceEventSeqs = event.sourceEventSeqs.map(position);
    }
    return view;
  });
  const requests = (observed.requests ?? []).map((entry) => ({
    dispatchSeq: kept.filter((event) => typeof event.seq === "number" && event.seq < entry.dispatchSeq)
      .length,
    ...replaced(entry.request ?? {}),
  }));
  return { log, requests };
}

// json-value, except that ANY_TEXT anywhere in the expected value matches any string.
function matches(want, have) {
  if (want === ANY_TEXT) return typeof have === "string";
  if (Array.isArray(want)) {
    return Array.isArray(have) && have.length === want.length && want.every((w, i) => matches(w, have[i]));
  }
  if (kind(want) === "object") {
    if (kind(have) !== "object") return false;
    const keys = Object.keys(want);
    return keys.length === Object.keys(have).length && keys.every((k) => Object.hasOwn(have, k) && matches(want[k], have[k]));
  }
  return jsonValue(want, have);
}

function compareList(what, expected, got, count = got.length) {
  for (let i = 0; i < Math.min(expected.length, got.length); i++) {
    if (!matches(expected[i], got[i])) {
      return `${what} #${i}: expected ${show(expected[i])}, got ${show(got[i])}`;
    }
  }
  return expected.length === count ? null : `expected ${expected.length} ${what}s, got ${count}`;
}

// -- the wire --------------------------------------------------------------------------------

const DELTAS = {
  "text-delta": ["text", "text"],
  "reasoning-delta": ["reasoning", "text"],
  "tool-call-delta": ["tool-call", "argumentsDelta"],
};

function streamStructure(chunks) {
  const kinds = chunks.map((c) => c.type);
  if (kinds.filter((k) => k === "finish").length !== 1 || kinds.at(-1) !== "finish") {
    return `expected exactly one finish chunk, last; got ${show(kinds)}`;
  }
  const opened = new Map();
  const assembled = new Map();
  const ended = [];
  let closing = false;
  for (const [position, chunk] of chunks.slice(0, -1).entries()) {
    const where = `chunk #${position} (${chunk.type})`;
    const index = chunk.index;
    if (chunk.type === "usage") {
      closing = true;
      continue;
    }
    if (!["block-start", "block-end", ...Object.keys(DELTAS)].includes(chunk.type)) {
      return `${where}: not a stream chunk type`;
    }
    if (chunk.type !== "block-end" && closing) return `${where}: after the closing chunks`;
    if (chunk.type === "block-start") {
      if (opened.has(index)) return `${where}: block ${index} started twice`;
      opened.set(index, chunk.blockType);
      assembled.set(index, "");
      continue;
    }
    if (!opened.has(index) || ended.includes(index)) return `${where}: block ${index} is not open`;
    if (chunk.type === "block-end") {
      closing = true;
      if (ended.length && index < ended.at(-1)) return `${where}: block-end out of opening order`;
      const block = chunk.block;
      const type = opened.get(index);
      if (kind(block) !== "object" || block.type !== type) {
        return `${where}: expected a ${type} block, got ${show(block)}`;
      }
      const content = type === "tool-call" ? block.arguments : block.text;
      if (content !== assembled.get(index)) {
        return `${where}: the block holds ${show(content)}, its deltas ${show(assembled.get(index))}`;
      }
      ended.push(index);
      continue;
    }
    const [blockType, field] = DELTAS[chunk.type];
    if (opened.get(index) !== blockType) return `${where}: a delta for a ${opened.get(index)} block`;
    assembled.set(index, assembled.get(index) + String(chunk[field] ?? ""));
  }
  const firstUsage = kinds.indexOf("usage");
  if (firstUsage >= 0 && kinds.slice(firstUsage).includes("block-end")) {
    return "a usage chunk came before a block-end";
  }
  return null;
}

const WIRE = {
  "wire-request": ({ request: want }, observed) => {
    const got = observed.request;
    if (kind(got) !== "object") return `expected a request, got ${show(observed)}`;
    for (const key of ["method", "url"]) {
      if (key in want && got[key] !== want[key]) return `${key}: expected ${show(want[key])}, got ${show(got[key])}`;
    }
    if (kind(got.headers) !== "object") return `headers: expected an object, got ${show(got.headers)}`;
    const sent = Object.fromEntries(Object.entries(got.headers).map(([k, v]) => [k.toLowerCase(), v]));
    for (const [name, value] of Object.entries(want.headers ?? {})) {
      if (sent[name] !== value) return `header ${name}: expected ${show(value)}, got ${show(sent[name])}`;
    }
    if ("body" in want && !ordered(want.body, got.body)) {
      return `body: expected ${show(want.body)}, got ${show(got.body)}`;
    }
    return null;
  },
  "wire-stream": ({ stream: want }, observed) => {
    const chunks = observed.chunks;
    if (!Array.isArray(chunks) || !chunks.every((c) => kind(c) === "object")) {
      return `expected a list of chunks, got ${show(observed)}`;
    }
    const problem = streamStructure(chunks);
    if (problem) return problem;
    const blocks = chunks.filter((c) => c.type === "block-end").map((c) => c.block);
    if (!jsonValue(want.blocks, blocks)) return `blocks: expected ${show(want.blocks)}, got ${show(blocks)}`;
    const usages = chunks.filter((c) => c.type === "usage").map((c) => c.usage);
    const wantUsage = want.usage === null || want.usage === undefined ? [] : [want.usage];
    if (!jsonValue(wantUsage, usages)) return `usage: expected ${show(wantUsage)}, got ${show(usages)}`;
    const reason = chunks.at(-1).reason;
    if (kind(reason) !== "object" || reason.kind !== want.finish.kind) {
      return `finish: expected ${show(want.finish)}, got ${show(reason)}`;
    }
    for (const [key, value] of Object.entries(want.finish.failure ?? {})) {
      if (!jsonValue(value, (reason.failure ?? {})[key] ?? null)) {
        return `finish: expected failure ${key} ${show(value)}, got ${show(reason.failure)}`;
      }
    }
    return null;
  },
  "wire-failure": ({ failure: want }, observed) => {
    const got = observed.failure;
    if (kind(got) !== "object") return `expected a failure, got ${show(observed)}`;
    if (got.code !== want.code) return `code: expected ${show(want.code)}, got ${show(got.code)}`;
    const retry = (o) => (Object.hasOwn(o, "providerRetryAfterMs") ? o.providerRetryAfterMs : ABSENT);
    if (retry(want) !== retry(got)) return `providerRetryAfterMs: expected ${retry(want)}, got ${retry(got)}`;
    return null;
  },
};

// -- the rules -------------------------------------------------------------------------------

function rules(comparison) {
  return {
    fields: (want, observed) => compareFields(want, observed, comparison),
    assembly: (want, observed) =>
      Object.hasOwn(observed, "assembly")
        ? compareFields(want.assembly, observed.assembly, comparison, "assembly.")
        : `expected an assembly, got ${show(observed)}`,
    error: ({ error: want }, observed) => {
      const got = observed.error;
      if (kind(got) !== "object" || got.kind !== want.kind) {
        return `expected error ${show(want.kind)}, got ${show(observed)}`;
      }
      if ("where" in want && got.where !== want.where) return `error where: expected ${show(want.where)}, got ${show(got.where)}`;
      return null;
    },
    evaluations: (want, observed) => {
      const counts = kind(observed.evaluations) === "object" ? observed.evaluations : {};
      for (const [id, n] of Object.entries(want.evaluations)) {
        if (counts[id] !== n) return `${id} evaluated: expected ${n}, got ${show(counts[id])}`;
      }
      if ("changes" in want && observed.changes !== want.changes) {
        return `changes: expected ${want.changes}, got ${show(observed.changes)}`;
      }
      return null;
    },
    "log-view": (want, observed) => {
      for (const key of ["log", "requests"]) {
        const items = key === "log" ? observed.log : (observed.requests ?? []);
        if (!Array.isArray(items) || !items.every((x) => kind(x) === "object")) {
          return `${key} must be a list of objects, got ${show(items)}`;
        }
      }
      const view = logView(observed, comparison.logView);
      if ("types" in want) {
        const types = view.log.map((e) => e.type);
        if (!jsonValue(want.types, types)) return `types: expected ${show(want.types)}, got ${show(types)}`;
      }
      if ("log" in want) {
        const problem = compareList("event", want.log, view.log);
        if (problem) return problem;
      }
      if ("tail" in want) {
        const last = view.log.slice(Math.max(0, view.log.length - want.tail.length));
        const problem = compareList("last event", want.tail, last);
        if (problem) return problem;
      }
      if ("requests" in want) {
        const partial = want.requests.slice(0, view.requests.length).map((w, i) =>
          Object.fromEntries(
            Object.keys(w).map((k) => [k, Object.hasOwn(view.requests[i], k) ? view.requests[i][k] : ABSENT]),
          ),
        );
        return compareList("request", want.requests, partial, view.requests.length);
      }
      return null;
    },
    ...WIRE,
  };
}

// The requests a case's expectations fix (COMPARISON.md, "Expected requests"), against the
// viewed requests of the observe op they belong to.
function compareFixedRequests(fixed, observed, logViewConstants) {
  if (kind(observed) !== "object" || !Array.isArray(observed.log)) {
    return `expected a log observation, got ${show(observed)}`;
  }
  const requests = observed.requests ?? [];
  if (!Array.isArray(requests) || !requests.every((x) => kind(x) === "object")) {
    return `requests must be a list of objects, got ${show(requests)}`;
  }
  const viewed = logView(observed, logViewConstants).requests;
  for (let i = 0; i < Math.min(fixed.length, viewed.length); i++) {
    const { dispatchSeq, ...got } = viewed[i];
    if (dispatchSeq !== fixed[i].dispatchSeq) {
      return `request #${i}: dispatched at view position ${dispatchSeq}, the expected log fixes ${fixed[i].dispatchSeq}`;
    }
    const want = fixed[i].request;
    if (!matches(want, got)) {
      const keys = [...new Set([...Object.keys(want), ...Object.keys(got)])].filter(
        (k) => !Object.hasOwn(want, k) || !Object.hasOwn(got, k) || !matches(want[k], got[k]),
      );
      return `request #${i} differs in ${keys.join(", ")}: sent ${show(got)}, the expected log derives ${show(want)}`;
    }
  }
  return fixed.length === viewed.length ? null : `expected ${fixed.length} requests, got ${viewed.length}`;
}

function judge(entry, observed, table) {
  if (entry === null) return null;
  if (entry.rule === "final-observe") {
    return kind(observed) === "object" && Array.isArray(observed.log) && Array.isArray(observed.requests)
      ? null
      : `expected {sessionId, log, requests}, got ${show(observed)}`;
  }
  if (kind(observed) !== "object") return `expected ${show(entry.value)}, got ${show(observed)}`;
  if (Object.hasOwn(observed, "error") && !Object.hasOwn(entry.value, "error")) {
    return `expected ${show(entry.value)}, got error ${show(observed.error)}`;
  }
  return table[entry.rule](entry.value, observed);
}

// -- the harness -----------------------------------------------------------------------------

class Harness {
  constructor(command, timeoutMs) {
    this.timeoutMs = timeoutMs;
    this.child = spawn(command, { shell: true, stdio: ["pipe", "pipe", "inherit"] });
    this.lines = [];
    this.waiting = null;
    this.closed = false;
    this.child.stdin.on("error", () => {});
    const lines = createInterface({ input: this.child.stdout });
    lines.on("line", (line) => this.#deliver(line));
    lines.on("close", () => {
      this.closed = true;
      this.#deliver(null);
    });
  }

  #deliver(line) {
    if (line !== null) this.lines.push(line);
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = null;
      resolve();
    }
  }

  async request(message) {
    this.child.stdin.write(`${sent(message)}\n`);
    const deadline = Date.now() + this.timeoutMs;
    while (this.lines.length === 0) {
      if (this.closed) throw new Error("the harness closed its standard output");
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no answer within ${this.timeoutMs / 1000} s`);
      await new Promise((resolve) => {
        this.waiting = resolve;
        setTimeout(resolve, left);
      });
    }
    const line = this.lines.shift();
    try {
      return JSON.parse(line);
    } catch {
      throw new Error(`the answer is not JSON: ${line.slice(0, 200)}`);
    }
  }

  stop() {
    this.child.stdin.end(`${JSON.stringify({ type: "stop" })}\n`);
    setTimeout(() => this.child.kill(), 2000).unref();
  }
}

// -- main ------------------------------------------------------------------------------------

// An export file, or one line naming the file and what is wrong with it (exit 2).
function readJson(path) {
  let text;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    usage(`${path}: cannot read it (${error.code ?? error.message})`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    usage(`${path}: not JSON (${error.message})`);
  }
}

async function main(argv) {
  const args = [...argv];
  let timeout = 10;
  const at = args.indexOf("--timeout");
  if (at >= 0) {
    timeout = Number(args[at + 1]);
    args.splice(at, 2);
  }
  if (args.length !== 2 || !(timeout > 0)) usage("usage: node runner.mjs EXPORT_DIR 'HARNESS COMMAND' [--timeout SECONDS]");
  const [dir, command] = args;
  const index = readJson(join(dir, "index.json"));
  const comparison = index.comparison;
  if (index.format !== FORMAT) usage(`${dir}: export format ${index.format}, this runner reads ${FORMAT}`);
  if (comparison.version !== COMPARISON_VERSION) {
    usage(`${dir}: comparison rules version ${comparison.version}, this runner knows ${COMPARISON_VERSION}`);
  }
  ABSENT = comparison.logView.absent;
  ANY_TEXT = comparison.logView.anyText;
  const table = rules(comparison);
  const unknown = [
    ...comparison.rules.filter((rule) => !(rule in table)),
    ...Object.values(comparison.fieldRules).filter((rule) => !(rule in FIELD_RULES)),
  ];
  if (unknown.length) usage(`${dir}: unknown comparison rules ${unknown.join(", ")}`);

  const harness = new Harness(command, timeout * 1000);
  const counts = { passed: 0, failed: 0, errored: 0, skipped: 0, "not applicable": 0 };
  let suiteOnly = 0;
  let requestsCompared = 0;
  let capabilities;
  try {
    const started = await harness.request({ type: "start", protocol: index.protocol });
    if (started.type !== "started" || started.protocol !== index.protocol) {
      throw new Error(`bad handshake: ${show(started)}`);
    }
    capabilities = new Set(started.capabilities);
  } catch (error) {
    process.stdout.write(`the handshake failed: ${error.message}\n`);
    harness.stop();
    return 1;
  }
  for (const entry of index.cases) {
    const testCase = readJson(join(dir, entry.file));
    if (!testCase.requires.every((c) => capabilities.has(c))) {
      counts["not applicable"]++;
      continue;
    }
    let answer;
    try {
      answer = await harness.request(testCase.run);
    } catch (error) {
      counts.errored++;
      process.stdout.write(`ERRORED ${testCase.id}: ${error.message}\n`);
      break;
    }
    if (answer.type === "skipped") {
      counts.skipped++;
      continue;
    }
    if (answer.type !== "observed" || answer.case !== testCase.id || !Array.isArray(answer.observations)) {
      counts.errored++;
      process.stdout.write(`ERRORED ${testCase.id}: ${show(answer)}\n`);
      continue;
    }
    const observations = answer.observations;
    const problems = [];
    if (observations.length !== testCase.expected.length) {
      problems.push(`expected ${testCase.expected.length} observations, got ${observations.length}`);
    } else {
      testCase.expected.forEach((expected, i) => {
        const problem = judge(expected, observations[i], table);
        if (problem) problems.push(`op #${i} (${testCase.run.scenario.ops[i].op}): ${problem}`);
      });
    }
    for (const check of testCase.suiteChecks) {
      suiteOnly++;
      if (observations.length !== testCase.expected.length || !check.expectedRequests?.length) continue;
      requestsCompared++;
      for (const { op, requests } of check.expectedRequests) {
        const problem = compareFixedRequests(requests, observations[op], comparison.logView);
        if (problem) problems.push(`op #${op} (observe): expected requests (${check.check}): ${problem}`);
      }
    }
    if (problems.length) {
      counts.failed++;
      process.stdout.write(`FAILED ${testCase.id} [${testCase.contracts.join(", ")}]\n`);
      for (const problem of problems) process.stdout.write(`  - ${problem}\n`);
    } else {
      counts.passed++;
    }
  }
  harness.stop();
  if (suiteOnly) {
    process.stdout.write(
      `${suiteOnly} suite checks (log-fold, request-invariant) not checked: they need the suite's own fold ` +
        `(the expected requests of ${requestsCompared} cases compared)\n`,
    );
  }
  process.stdout.write(
    `${Object.entries(counts).map(([name, n]) => `${n} ${name}`).join(", ")}\n`,
  );
  return counts.failed || counts.errored ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));
