#!/usr/bin/env node
// A runner for the exported conformance cases, written from COMPARISON.md and PROTOCOL.md alone:
// the proof that the export is enough for a project in another language. Node 20, no dependencies.
//
//   node runner.mjs EXPORT_DIR 'HARNESS COMMAND' [--timeout SECONDS]
//   node runner.mjs --final EXPORT_DIR < observations.jsonl   (the fold and invariant, as data)
//
// Exit status: 0 when nothing failed or errored, 1 otherwise, 2 for a usage error or an export
// this runner does not know (another format or comparison version, an unknown rule).
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const FORMAT = 4;
const COMPARISON_VERSION = 2;
// PROTOCOL.md, "Failures of the implementation itself": the longest answer line, the deepest
// nesting of an answer.
const MAX_LINE_BYTES = 8 * 1024 * 1024;
const MAX_NESTING = 100;

function usage(message) {
  process.stderr.write(`runner.mjs: ${message}\n`);
  process.exit(2);
}

// -- value equalities ------------------------------------------------------------------------

const kind = (v) => (v === null ? "null" : Array.isArray(v) ? "array" : typeof v);
const isObject = (v) => kind(v) === "object";
const has = (o, k) => isObject(o) && Object.hasOwn(o, k);

function jsonValue(a, b) {
  if (kind(a) !== kind(b)) return false;
  if (Array.isArray(a)) return a.length === b.length && a.every((x, i) => jsonValue(x, b[i]));
  if (isObject(a)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && jsonValue(a[k], b[k]));
  }
  return a === b;
}

// JSON.parse already lists integer-like keys first, ascending, as JSON.stringify prints them:
// the key lists of two parsed objects compare exactly as json-text says.
function jsonText(a, b) {
  if (kind(a) !== kind(b)) return false;
  if (Array.isArray(a)) return a.length === b.length && a.every((x, i) => jsonText(x, b[i]));
  if (isObject(a)) {
    const keys = Object.keys(a);
    const other = Object.keys(b);
    return keys.length === other.length && keys.every((k, i) => k === other[i] && jsonText(a[k], b[k]));
  }
  return a === b;
}

// "ordered" differs from json-text only for integer-like keys, which no wire body has; JSON.parse
// has already put them first, so their original order is not observable here.
const ordered = jsonText;

const integerLike = (key) => /^(0|[1-9][0-9]*)$/.test(key) && Number(key) < 2 ** 32 - 1;

function keyOrder(value) {
  if (Array.isArray(value)) return value.map(keyOrder);
  if (!isObject(value)) return null;
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

const show = (v) => {
  const text = JSON.stringify(v) ?? "undefined";
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
};

// -- the answer schema (COMPARISON.md, "Answers") ---------------------------------------------

// The JSON Schema 2020-12 keywords protocol.schema.json uses, and nothing else: a schema with
// another keyword is refused when it is loaded, never half-checked.
const ANNOTATIONS = new Set(["$schema", "$id", "$comment", "$defs", "title", "description"]);
const ASSERTIONS = new Set([
  "$ref", "type", "const", "enum", "properties", "additionalProperties", "required",
  "dependentRequired", "minProperties", "maxProperties", "items", "prefixItems", "minItems",
  "uniqueItems", "minLength", "pattern", "minimum", "maximum", "exclusiveMinimum", "allOf",
  "anyOf", "oneOf", "not", "if", "then", "else",
]);

function schemaValidator(root) {
  const check = (schema, where) => {
    if (typeof schema === "boolean") return;
    if (!isObject(schema)) throw new Error(`${where}: not a schema`);
    for (const [key, value] of Object.entries(schema)) {
      if (!ASSERTIONS.has(key) && !ANNOTATIONS.has(key)) throw new Error(`${where}: unknown keyword ${key}`);
      if (["properties", "$defs"].includes(key)) {
        for (const [name, inner] of Object.entries(value)) check(inner, `${where}/${key}/${name}`);
      } else if (["allOf", "anyOf", "oneOf", "prefixItems"].includes(key)) {
        value.forEach((inner, i) => check(inner, `${where}/${key}/${i}`));
      } else if (["additionalProperties", "items", "not", "if", "then", "else"].includes(key)) {
        check(value, `${where}/${key}`);
      }
    }
  };
  check(root, "#");
  const resolve = (ref) => {
    if (!ref.startsWith("#/")) throw new Error(`only local $ref is supported, got ${ref}`);
    return ref
      .slice(2)
      .split("/")
      .map((part) => part.replaceAll("~1", "/").replaceAll("~0", "~"))
      .reduce((node, part) => node[part], root);
  };
  const typeOk = (type, v) =>
    type === "integer" ? typeof v === "number" && Number.isInteger(v)
    : type === "object" ? isObject(v)
    : type === "array" ? Array.isArray(v)
    : type === "null" ? v === null
    : typeof v === type;
  // The JSON pointer and reason of the first place `value` breaks `schema`, or null.
  const error = (schema, v, path) => {
    if (schema === true) return null;
    if (schema === false) return [path, "nothing is allowed here"];
    const sub = (inner, value, at = path) => error(inner, value, at);
    if (schema.$ref !== undefined) {
      const found = sub(resolve(schema.$ref), v);
      if (found) return found;
    }
    if (schema.type !== undefined) {
      const types = [schema.type].flat();
      if (!types.some((t) => typeOk(t, v))) return [path, `${show(v)} is not of type ${types.join(" or ")}`];
    }
    if ("const" in schema && !jsonValue(schema.const, v)) return [path, `${show(v)} is not ${show(schema.const)}`];
    if (schema.enum && !schema.enum.some((e) => jsonValue(e, v))) return [path, `${show(v)} is not one of ${show(schema.enum)}`];
    if (isObject(v)) {
      const keys = Object.keys(v);
      for (const name of schema.required ?? []) if (!Object.hasOwn(v, name)) return [path, `${name} is a required property`];
      for (const [name, needs] of Object.entries(schema.dependentRequired ?? {})) {
        if (Object.hasOwn(v, name)) for (const other of needs) if (!Object.hasOwn(v, other)) return [path, `${other} is required with ${name}`];
      }
      if (schema.minProperties !== undefined && keys.length < schema.minProperties) return [path, "too few properties"];
      if (schema.maxProperties !== undefined && keys.length > schema.maxProperties) return [path, "too many properties"];
      const properties = schema.properties ?? {};
      for (const key of keys) {
        const inner = Object.hasOwn(properties, key) ? properties[key] : schema.additionalProperties;
        if (inner === undefined) continue;
        if (inner === false && !Object.hasOwn(properties, key)) return [path, `additional property ${show(key)} is not allowed`];
        const found = sub(inner, v[key], `${path}/${key}`);
        if (found) return found;
      }
    }
    if (Array.isArray(v)) {
      if (schema.minItems !== undefined && v.length < schema.minItems) return [path, `fewer than ${schema.minItems} items`];
      const prefix = schema.prefixItems ?? [];
      for (const [i, item] of v.entries()) {
        const inner = i < prefix.length ? prefix[i] : schema.items;
        const found = inner === undefined ? null : sub(inner, item, `${path}/${i}`);
        if (found) return found;
      }
      if (schema.uniqueItems && v.some((x, i) => v.slice(0, i).some((y) => jsonValue(x, y)))) return [path, "items are not unique"];
    }
    if (typeof v === "string") {
      if (schema.minLength !== undefined && [...v].length < schema.minLength) return [path, `${show(v)} is too short`];
      if (schema.pattern !== undefined && !new RegExp(schema.pattern, "u").test(v)) return [path, `${show(v)} does not match ${schema.pattern}`];
    }
    if (typeof v === "number") {
      if (schema.minimum !== undefined && v < schema.minimum) return [path, `${v} is below ${schema.minimum}`];
      if (schema.maximum !== undefined && v > schema.maximum) return [path, `${v} is above ${schema.maximum}`];
      if (schema.exclusiveMinimum !== undefined && v <= schema.exclusiveMinimum) return [path, `${v} is not above ${schema.exclusiveMinimum}`];
    }
    for (const inner of schema.allOf ?? []) {
      const found = sub(inner, v);
      if (found) return found;
    }
    if (schema.anyOf && schema.anyOf.every((inner) => sub(inner, v))) return [path, "matches none of anyOf"];
    if (schema.oneOf) {
      const results = schema.oneOf.map((inner) => sub(inner, v));
      const matching = results.filter((r) => r === null).length;
      if (matching !== 1) {
        // The branch that came deepest names the place, as a reader wants it.
        const deepest = results.filter(Boolean).sort((a, b) => b[0].length - a[0].length)[0];
        return matching === 0 ? deepest ?? [path, "matches no branch of oneOf"] : [path, `matches ${matching} branches of oneOf`];
      }
    }
    if (schema.not !== undefined && sub(schema.not, v) === null) return [path, "matches a schema it must not"];
    if (schema.if !== undefined) {
      const branch = sub(schema.if, v) === null ? schema.then : schema.else;
      const found = branch === undefined ? null : sub(branch, v);
      if (found) return found;
    }
    return null;
  };
  // The problem of an answer of kind `definition` (a $defs name), or null.
  return (definition, value) => {
    const found = error({ $ref: `#/$defs/${definition}` }, value, "");
    return found && `${found[0] || "the top level"}: ${found[1]}`;
  };
}

// -- field rules -----------------------------------------------------------------------------

let ABSENT = "<absent>";
const UNDEFINED_IS_NULL = new Set(["header", "null-or-absent"]);
let ANY_TEXT = "<any text>";

const sameTools = (want, got) =>
  jsonValue(want, got) && Array.isArray(got) && want.every((tool, i) => jsonValue(keyOrder(tool.parameters), keyOrder(got[i].parameters)));

const FIELD_RULES = {
  "json-value": jsonValue,
  "json-text": jsonText,
  tools: sameTools,
  header: (want, got) => {
    if (want === null || got === null) return want === got;
    if (!isObject(got)) return false;
    const { tools: wantTools, ...wantRest } = want;
    const { tools: gotTools, ...gotRest } = got;
    return jsonValue(wantRest, gotRest) && jsonText(wantTools ?? null, gotTools ?? null);
  },
  "events-without-time": (want, got) =>
    Array.isArray(got) &&
    got.length === want.length &&
    got.every((event, i) => {
      if (!isObject(event)) return false;
      const { time, ...rest } = event;
      return jsonValue(want[i], rest);
    }),
  "null-or-absent": jsonValue,
  "calls-on-given-keys": (want, got) =>
    Array.isArray(got) &&
    got.length === want.length &&
    want.every((call, i) => isObject(got[i]) && Object.entries(call).every(([key, value]) => Object.hasOwn(got[i], key) && jsonValue(value, got[i][key]))),
  "named-variables": (want, got) =>
    isObject(got) &&
    Object.entries(want).every(([name, value]) => (value === ABSENT ? !Object.hasOwn(got, name) : Object.hasOwn(got, name) && jsonValue(value, got[name]))),
};

function compareFields(expected, observed, comparison, prefix = "") {
  if (!isObject(observed)) return `${prefix}expected an object, got ${show(observed)}`;
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

function logView(observed, constants) {
  const core = new Set(constants.coreTypes);
  const kept = observed.log.filter((event) => core.has(event.type));
  const positions = new Map(kept.map((event, i) => [event.seq, i]));
  const names = new Map();
  for (const event of kept) {
    const data = event.data;
    let messages = [];
    if (isObject(data)) {
      if (event.type === "user/message") messages = [data];
      if (event.type === "assistant/message" || event.type === "tool/result") messages = [data.message];
    }
    for (const message of messages) {
      if (isObject(message) && typeof message.id === "string" && !names.has(message.id)) names.set(message.id, `#${names.size + 1}`);
    }
  }
  const position = (seq) => (positions.has(seq) ? positions.get(seq) : `?${seq}`);
  const replaced = (value) => {
    if (Array.isArray(value)) return value.map(replaced);
    if (!isObject(value)) return value;
    const copy = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replaced(v)]));
    const isMessage = ["role", "content", "id"].every((k) => Object.hasOwn(value, k));
    if (isMessage && typeof value.id === "string") copy.id = names.get(value.id) ?? `?${value.id}`;
    if (Object.hasOwn(value, "sessionId")) copy.sessionId = value.sessionId === observed.sessionId ? constants.session : value.sessionId;
    return copy;
  };
  const log = kept.map((event) => {
    const view = { type: event.type, data: replaced(event.data) };
    let op = event.surfaceOp;
    if (isObject(op)) op = { ...op, start: position(op.start), end: position(op.end) };
    if (op !== undefined && op !== null) view.surfaceOp = op;
    if (Object.hasOwn(event, "sourceEventSeqs")) view.sourceEventSeqs = event.sourceEventSeqs.map(position);
    return view;
  });
  // The view of a request entry: ONE object, the request's keys with ids replaced, and
  // `dispatchSeq` (a view position) added.
  const requests = (observed.requests ?? []).map((entry) => ({
    dispatchSeq: kept.filter((event) => typeof event.seq === "number" && event.seq < entry.dispatchSeq).length,
    ...replaced(isObject(entry.request) ? entry.request : {}),
  }));
  return { log, requests };
}

// json-value, except that ANY_TEXT anywhere in the expected value matches any string.
function matches(want, have) {
  if (want === ANY_TEXT) return typeof have === "string";
  if (Array.isArray(want)) return Array.isArray(have) && have.length === want.length && want.every((w, i) => matches(w, have[i]));
  if (isObject(want)) {
    if (!isObject(have)) return false;
    const keys = Object.keys(want);
    return keys.length === Object.keys(have).length && keys.every((k) => Object.hasOwn(have, k) && matches(want[k], have[k]));
  }
  return jsonValue(want, have);
}

function compareList(what, expected, got, count = got.length) {
  for (let i = 0; i < Math.min(expected.length, got.length); i++) {
    if (!matches(expected[i], got[i])) return `${what} #${i}: expected ${show(expected[i])}, got ${show(got[i])}`;
  }
  return expected.length === count ? null : `expected ${expected.length} ${what}s, got ${count}`;
}

// -- the log fold (COMPARISON.md, "The log fold") ----------------------------------------------

const SURFACE_ELIGIBLE = ["user/message", "assistant/message", "tool/result"];
const ENVELOPE_REQUIRED = ["type", "seq", "time", "data"];
const ENVELOPE_OPTIONAL = ["surfaceOp", "sourceEventSeqs", "ignorable"];
const END_SEED = "session/end-seed";
const MODEL_OUTPUT = ["assistant/chunk", "assistant/message"];
const PAYLOAD_KEYS = {
  "turn/start": ["turn"],
  "turn/end": ["turn", "reason"],
  "step/start": ["turn", "step"],
  "step/end": ["turn", "step"],
  "assistant/chunk": ["turn", "step", "chunk"],
  "assistant/message": ["turn", "step", "message"],
  "tool/result": ["turn", "step", "message"],
  "request/header": ["header", "reason"],
  "request/context": ["provider", "model"],
};
const PAYLOAD_OPTIONAL = {
  "assistant/message": ["usage", "interrupted"],
  "tool/result": ["error", "meta"],
  "request/context": ["contextWindow"],
};
const COMPARED_CONFIG = ["provider", "model", "reasoningEffort", "temperature", "maxTokens", "stop"];
const MARKERS = ["reasoningEffort", "maxTokens"];
const HEADER_REASONS = ["initial", "resume", "change"];

class Broken extends Error {
  constructor(rule, message) {
    super(message);
    this.rule = rule;
  }
}

// A non-negative integer as a JSON number carries it (2.0 is 2), else null.
const asSeq = (v) => (typeof v === "number" && Number.isInteger(v) && v >= 0 ? v + 0 : null);
const nonEmptyString = (v) => typeof v === "string" && v !== "";
// Python's truth, which the suite's fold applies: null, false, 0, "", [] and {} are false.
const truthy = (v) => !(v === null || v === undefined || v === false || v === 0 || v === "" || (Array.isArray(v) && !v.length) || (isObject(v) && !Object.keys(v).length));
const clone = (v) => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));

// Where a parsed JSON value is not lossless JSON: a non-finite number or a negative zero.
function losslessProblem(value, path) {
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return `${path} is ${value}`;
    return Object.is(value, -0) ? `${path} is -0` : null;
  }
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = losslessProblem(item, `${path}[${i}]`);
      if (found) return found;
    }
  } else if (isObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      const found = losslessProblem(item, `${path}.${key}`);
      if (found) return found;
    }
  }
  return null;
}

// PROMPT-HEADER-CANONICAL.
const marked = (header, marker) => isObject(header.adapterDefaults) && header.adapterDefaults[marker] === true;

function canonical(header) {
  const result = { config: clone(header.config) };
  if (MARKERS.some((m) => marked(header, m))) result.adapterDefaults = clone(header.adapterDefaults);
  if (truthy(header.system)) result.system = header.system;
  if (truthy(header.tools)) result.tools = clone(header.tools);
  return result;
}

function headerDifferences(first, second) {
  const a = canonical(first);
  const b = canonical(second);
  const found = COMPARED_CONFIG.filter((field) => {
    const inA = has(a.config, field);
    const inB = has(b.config, field);
    return inA !== inB || (inA && !jsonValue(a.config[field], b.config[field]));
  }).map((field) => `config.${field}`);
  found.push(...MARKERS.filter((m) => marked(a, m) !== marked(b, m)).map((m) => `adapterDefaults.${m}`));
  if (Object.hasOwn(a, "system") !== Object.hasOwn(b, "system") || (Object.hasOwn(a, "system") && !jsonValue(a.system, b.system))) found.push("system");
  const toolsA = a.tools ?? [];
  const toolsB = b.tools ?? [];
  if (toolsA.length !== toolsB.length || !toolsA.every((tool, i) => jsonText(tool, toolsB[i]))) found.push("tools");
  return found;
}

function snapshotProblem(header) {
  if (!isObject(header) || !isObject(header.config)) return "the header must be an object with a `config` object";
  const config = header.config;
  const unknown = Object.keys(header).filter((k) => !["config", "adapterDefaults", "system", "tools"].includes(k));
  if (unknown.length) return `the header has unknown field(s) ${show(unknown.sort())}`;
  for (const field of ["provider", "model"]) if (!nonEmptyString(config[field])) return `config.${field} must be a non-empty string`;
  if (Object.hasOwn(config, "reasoningEffort") && !nonEmptyString(config.reasoningEffort)) return "config.reasoningEffort must be a non-empty string";
  const stop = Object.hasOwn(config, "stop") ? config.stop : [];
  if (!Array.isArray(stop) || !stop.every((s) => typeof s === "string")) return "config.stop must be a list of strings";
  const markers = Object.hasOwn(header, "adapterDefaults") ? header.adapterDefaults : {};
  if (!isObject(markers) || !Object.keys(markers).every((k) => MARKERS.includes(k))) return "adapterDefaults may hold only reasoningEffort and maxTokens";
  for (const [marker, value] of Object.entries(markers)) {
    if (value !== true) return `adapterDefaults.${marker} is ${show(value)}; a marker is only ever true`;
    if (!Object.hasOwn(config, marker)) return `adapterDefaults marks ${marker}, which config does not hold`;
  }
  if (Object.hasOwn(header, "system") && typeof header.system !== "string") return "system must be a string";
  const tools = Object.hasOwn(header, "tools") ? header.tools : [];
  if (!Array.isArray(tools) || !tools.every(isObject)) return "tools must be a list of tool schema objects";
  return null;
}

// The upstream's message checks (`upstream/loop-and-session.md` §1.6).
function messageProblem(message, role, type = "user/message") {
  if (!isObject(message)) return "the message must be an object";
  const source = message.source;
  if (!nonEmptyString(message.id)) return "the message needs a non-empty string id";
  if (message.role !== role) return `the message role must be ${show(role)}`;
  if (!isObject(source) || !nonEmptyString(source.kind)) return "the message source needs a non-empty string kind";
  const content = message.content;
  if (!Array.isArray(content)) return "the message content must be a list";
  if (type === "assistant/message" && (source.kind !== "model" || !nonEmptyString(source.provider) || !nonEmptyString(source.model))) {
    return "an assistant message's source is {kind: 'model', provider, model}";
  }
  if (type === "tool/result") {
    const call = source.callId;
    if (source.kind !== "tool" || !nonEmptyString(call)) return "a tool result's source is {kind: 'tool', callId}";
    const block = content.length === 1 ? content[0] : null;
    if (!(isObject(block) && block.type === "tool-result" && block.toolCallId === call)) return "a tool result's content is one tool-result block for its callId";
  }
  return null;
}

function payloadProblem(type, data) {
  if (type === "user/message") return messageProblem(data, "user");
  const keys = PAYLOAD_KEYS[type];
  if (keys === undefined) return null;
  if (!isObject(data) || !keys.every((k) => Object.hasOwn(data, k))) return `data must be an object with ${keys.join(", ")}`;
  if (type === "assistant/message" || type === "tool/result") {
    return messageProblem(data.message, type === "assistant/message" ? "assistant" : "user", type);
  }
  return null;
}

function seededPayloadProblem(type, data) {
  if (type === "user/message") return messageProblem(data, "user");
  if (type === "assistant/message" || type === "tool/result") {
    if (!has(data, "message")) return "data must be an object with message";
    return messageProblem(data.message, type === "assistant/message" ? "assistant" : "user", type);
  }
  if (type === "request/header" && !has(data, "header")) return "data must be an object with header";
  return null;
}

function singleText(message) {
  const content = message.content;
  if (Array.isArray(content) && content.length === 1 && isObject(content[0])) {
    const block = content[0];
    if (block.type === "text" && typeof block.text === "string") return block.text;
  }
  return null;
}

function withoutBlockContent(data) {
  const copied = clone(data);
  delete copied.message.content[0].content;
  return copied;
}

const stepKey = (data) => JSON.stringify([asSeq(data.turn), asSeq(data.step)]);

function seededLength(log) {
  let found = 0;
  log.forEach((event, seq) => {
    if (isObject(event) && event.type === END_SEED) found = seq + 1;
  });
  return found;
}

class LogFold {
  constructor(seeded, constants) {
    this.seeded = seeded;
    this.owner = constants.runtimeContext.owner;
    this.preamble = constants.runtimeContext.preamble;
    this.cleared = constants.runtimeContext.cleared;
    this.events = [];
    this.admitted = [];
    this.surface = [];
    this.header = null;
    this.context = null;
    this.violations = [];
    this.instanceStarts = [0];
    this.instanceHasHeader = false;
    this.openSteps = new Set();
    this.retained = "never-seen";
  }

  add(event) {
    const seq = this.events.length;
    if (this.instanceStarts.at(-1) === seq) this.#startInstance();
    const found = [];
    const written = seq >= this.seeded;
    let admitted = true;
    try {
      this.#envelope(event, seq);
      this.#content(event, written);
      if (SURFACE_ELIGIBLE.includes(event.type)) this.#surfaceOp(event, seq);
    } catch (broken) {
      if (!(broken instanceof Broken)) throw broken;
      found.push({ seq, rule: broken.rule, message: broken.message });
      admitted = false;
    }
    this.events.push(event);
    this.admitted.push(admitted);
    if (admitted && !written) {
      this.#followSeeded(event);
    } else if (admitted) {
      for (const rule of [this.#optionalFields, this.#requests, this.#steps, this.#runtimeContext]) {
        try {
          rule.call(this, event);
        } catch (broken) {
          if (!(broken instanceof Broken)) throw broken;
          found.push({ seq, rule: broken.rule, message: broken.message });
        }
      }
    }
    if (admitted) {
      this.#followProjection(event, seq);
      if (event.type === END_SEED) this.instanceStarts.push(seq + 1);
    }
    this.violations.push(...found);
  }

  // The derived messages of the surface as it is now.
  messages() {
    return this.surface
      .map((seq) => {
        const { type, data } = this.events[seq];
        if (type === "user/message") return data;
        if (type === "tool/result" || (type === "assistant/message" && data.message.content.length)) return data.message;
        return null;
      })
      .filter((message) => message !== null);
  }

  #envelope(event, seq) {
    if (!isObject(event)) throw new Broken("envelope", `an event is a JSON object, got ${show(event)}`);
    const keys = Object.keys(event);
    const unknown = keys.filter((k) => !ENVELOPE_REQUIRED.includes(k) && !ENVELOPE_OPTIONAL.includes(k));
    const missing = ENVELOPE_REQUIRED.filter((k) => !Object.hasOwn(event, k));
    const nulls = ENVELOPE_OPTIONAL.filter((k) => Object.hasOwn(event, k) && event[k] === null);
    if (unknown.length || missing.length || nulls.length) {
      const parts = [];
      if (unknown.length) parts.push(`unknown key(s) ${show(unknown.sort())}`);
      if (missing.length) parts.push(`missing key(s) ${show(missing)}`);
      if (nulls.length) parts.push(`${show(nulls)} written as null (an absent field is omitted)`);
      throw new Broken("envelope", parts.join("; "));
    }
    if (asSeq(event.seq) !== seq) throw new Broken("seq-not-contiguous", `seq is ${show(event.seq)}, expected ${seq}`);
    if (!nonEmptyString(event.type)) throw new Broken("envelope", "type must be a non-empty string");
    if (typeof event.time !== "number") throw new Broken("envelope", `time must be a number, got ${show(event.time)}`);
    if (Object.hasOwn(event, "ignorable") && event.ignorable !== true) throw new Broken("envelope", "ignorable, when present, is true");
  }

  #content(event, written) {
    for (const key of ["time", "data", "surfaceOp", "sourceEventSeqs"]) {
      const problem = losslessProblem(event[key], key);
      if (problem) throw new Broken("session-non-json", `not lossless JSON: ${problem}`);
    }
    const { type, data } = event;
    if (type === "request/header-delta" || (type === "request/header" && isObject(data) && data.reason === "fallback")) {
      throw new Broken("session-legacy-header", `${type} in the legacy header format`);
    }
    const problem = written ? payloadProblem(type, data) : seededPayloadProblem(type, data);
    if (problem) throw new Broken("payload-shape", `${type}: ${problem}`);
    if (type === "request/header") {
      if (written && !HEADER_REASONS.includes(data.reason)) throw new Broken("header-snapshot", `unknown reason ${show(data.reason)}`);
      const snapshot = snapshotProblem(data.header);
      if (snapshot) throw new Broken("header-snapshot", snapshot);
    }
    if (!SURFACE_ELIGIBLE.includes(type)) {
      const present = ["surfaceOp", "sourceEventSeqs"].filter((k) => Object.hasOwn(event, k));
      if (present.length) throw new Broken("surface-op-forbidden", `${type} is not surface-eligible but carries ${show(present)}`);
    } else if (!Object.hasOwn(event, "surfaceOp")) {
      throw new Broken("surface-op-required", `${type} is surface-eligible: surfaceOp needed`);
    }
  }

  #optionalFields(event) {
    const optional = PAYLOAD_OPTIONAL[event.type];
    if (optional === undefined) return;
    const nulls = optional.filter((k) => Object.hasOwn(event.data, k) && event.data[k] === null);
    if (nulls.length) throw new Broken("payload-shape", `${event.type}: ${show(nulls)} written as null (an absent field is omitted)`);
  }

  #surfaceOp(event, seq) {
    const op = event.surfaceOp;
    const isReplace =
      isObject(op) &&
      Object.keys(op).length === 3 &&
      ["op", "start", "end"].every((k) => Object.hasOwn(op, k)) &&
      op.op === "replace" &&
      asSeq(op.start) !== null &&
      asSeq(op.end) !== null;
    if (op !== "append" && !isReplace) throw new Broken("surface-replace-invalid", `surfaceOp ${show(op)} is neither 'append' nor {op: 'replace', start, end}`);
    const cited = this.#citations(event, seq);
    if (op === "append") {
      this.surface.push(seq);
      return;
    }
    const start = asSeq(op.start);
    const end = asSeq(op.end);
    if (!this.surface.includes(start) || !this.surface.includes(end)) {
      throw new Broken("surface-replace-invalid", `replace ${start}..${end}: both must be on the surface ${show(this.surface)}`);
    }
    const first = this.surface.indexOf(start);
    const last = this.surface.indexOf(end);
    if (first > last) throw new Broken("surface-replace-invalid", `replace ${start}..${end}: start after end`);
    const shadowed = this.surface.slice(first, last + 1);
    const missing = shadowed.filter((node) => !cited.includes(node));
    if (missing.length) throw new Broken("source-seqs-invalid", `a replace must cite every shadowed node; missing ${show(missing)}`);
    if (event.type === "tool/result") {
      if (shadowed.length !== 1 || this.events[shadowed[0]].type !== "tool/result") {
        throw new Broken("tool-result-replace-invalid", `a tool/result replacement must shadow exactly one tool/result, not ${show(shadowed)}`);
      }
      if (!jsonValue(withoutBlockContent(this.events[shadowed[0]].data), withoutBlockContent(event.data))) {
        throw new Broken("tool-result-replace-invalid", `only the tool-result block's content may change; the rest must equal seq ${shadowed[0]}'s`);
      }
    }
    this.surface.splice(first, last - first + 1, seq);
  }

  #citations(event, seq) {
    if (!Object.hasOwn(event, "sourceEventSeqs")) return [];
    const cited = event.sourceEventSeqs;
    if (!Array.isArray(cited)) throw new Broken("source-seqs-invalid", `sourceEventSeqs ${show(cited)} is not a list`);
    if (!cited.length && event.type !== "assistant/message") throw new Broken("source-seqs-invalid", "empty sourceEventSeqs (assistant/message only)");
    const seqs = cited.map(asSeq);
    if (seqs.some((v) => v === null || v >= seq)) throw new Broken("source-seqs-invalid", `sourceEventSeqs ${show(cited)} must be non-negative integers below ${seq}`);
    if (new Set(seqs).size !== seqs.length) throw new Broken("source-seqs-invalid", `sourceEventSeqs ${show(cited)} repeats a seq`);
    return seqs;
  }

  #followSeeded(event) {
    if (event.type === "request/header") this.header = canonical(event.data.header);
    else if (event.type === "request/context") this.context = isObject(event.data) ? clone(event.data) : null;
  }

  #requests(event) {
    const { type, data } = event;
    if (type === "request/header") {
      this.#headerWritten(data);
    } else if (type === "request/context") {
      const last = this.context;
      this.context = clone(data);
      const field = (o, k) => (Object.hasOwn(o, k) ? o[k] : null);
      if (last !== null && ["provider", "model", "contextWindow"].every((k) => jsonValue(field(last, k), field(data, k)))) {
        throw new Broken("context-unchanged", "equal to the last request/context");
      }
    } else if (MODEL_OUTPUT.includes(type) && !this.instanceHasHeader) {
      throw new Broken(
        "request-header-missing",
        `${type} shows a request was sent, but this loop instance (from seq ${this.instanceStarts.at(-1)}) logged no request/header before it`,
      );
    }
  }

  #headerWritten(data) {
    const folded = this.header;
    const firstOfInstance = !this.instanceHasHeader;
    this.header = canonical(data.header);
    this.instanceHasHeader = true;
    if (firstOfInstance) {
      const expected = folded === null ? "initial" : "resume";
      if (data.reason !== expected) throw new Broken("header-reason", `a loop instance's first header is '${expected}', not ${show(data.reason)}`);
      return;
    }
    if (data.reason !== "change") throw new Broken("header-reason", `a later header of a loop instance is 'change', not ${show(data.reason)}`);
    if (folded !== null && !headerDifferences(folded, data.header).length) throw new Broken("header-unchanged", "a 'change' header equal to the folded header");
  }

  #steps(event) {
    const { type, data } = event;
    if (type === "step/start") this.openSteps.add(stepKey(data));
    else if (type === "step/end") this.openSteps.delete(stepKey(data));
    else if (MODEL_OUTPUT.includes(type) && !this.openSteps.has(stepKey(data))) {
      throw new Broken("step-not-open", `${type} of turn ${show(data.turn)} step ${show(data.step)}, which is not open`);
    }
  }

  #owned(event) {
    if (!isObject(event) || event.type !== "user/message") return false;
    const source = isObject(event.data) ? event.data.source : undefined;
    return isObject(source) && source.kind === this.owner.kind && source.plugin === this.owner.plugin;
  }

  #startInstance() {
    this.instanceHasHeader = false;
    const visible = new Set(this.surface);
    this.retained = "never-seen";
    for (let seq = this.events.length - 1; seq >= 0; seq--) {
      if (this.admitted[seq] && this.#owned(this.events[seq])) {
        if (visible.has(seq)) {
          this.retained = { seq, text: singleText(this.events[seq].data) };
          return;
        }
        this.retained = "none-retained";
      }
    }
  }

  #runtimeContext(event) {
    if (!this.#owned(event)) return;
    const message = event.data;
    const text = singleText(message);
    const source = message.source;
    if (!Object.hasOwn(source, "form") && !Object.hasOwn(source, "sections")) {
      if (text !== this.cleared) throw new Broken("runtime-context-message", "an owned message without form is the cleared marker, as one text block");
    } else {
      const problem = this.#snapshotMessageProblem(text, source);
      if (problem) throw new Broken("runtime-context-message", problem);
    }
    if (event.surfaceOp !== "append") return;
    const retained = this.retained;
    if (retained === "never-seen" && text === this.cleared) {
      throw new Broken("runtime-context-unchanged", "the cleared marker, though no runtime-context snapshot was ever seen");
    }
    if (isObject(retained) && retained.text !== null && retained.text === text) {
      throw new Broken("runtime-context-unchanged", `the same text as the retained runtime-context message (seq ${retained.seq})`);
    }
  }

  #snapshotMessageProblem(text, source) {
    const sections = source.sections;
    if (source.form !== "snapshot") return `an owned message with sections has form 'snapshot', not ${show(source.form)}`;
    const wellFormed = (entry) =>
      isObject(entry) && Object.keys(entry).length === 2 && typeof entry.name === "string" && nonEmptyString(entry.text);
    if (!Array.isArray(sections) || !sections.length || !sections.every(wellFormed)) {
      return "an owned snapshot's sections are a non-empty list of {name, text} with texts";
    }
    const expected = `${this.preamble}\n\n${sections.map((entry) => entry.text).join("\n\n")}`;
    if (text !== expected) {
      return `an owned snapshot is one text block: the preamble, then its sections' texts joined by blank lines; expected ${show(expected)}, got ${show(text)}`;
    }
    return null;
  }

  #followProjection(event, seq) {
    if (this.#owned(event)) {
      this.retained = { seq, text: singleText(event.data) };
    } else if (isObject(this.retained) && isObject(event.surfaceOp) && (event.sourceEventSeqs ?? []).includes(this.retained.seq)) {
      this.retained = "none-retained";
    }
  }
}

// -- the request invariant (COMPARISON.md, "The request invariant") -------------------------

// Where attempts start: an assistant/chunk right after anything but an unfinished chunk, or an
// assistant/message with sourceEventSeqs [] and no true `interrupted`. Events outside the core
// vocabulary end no attempt ("an implementation may log [them] at any time").
function attemptStarts(log, core) {
  const starts = [];
  let inside = false;
  log.forEach((event, seq) => {
    const type = isObject(event) ? event.type : undefined;
    if (!core.has(type)) return;
    const data = isObject(event) ? event.data : undefined;
    if (type === "assistant/chunk") {
      if (!inside) starts.push(seq);
      const chunk = isObject(data) ? data.chunk : undefined;
      inside = !(isObject(chunk) && chunk.type === "finish");
      return;
    }
    inside = false;
    const cited = isObject(event) ? event.sourceEventSeqs : undefined;
    if (type === "assistant/message" && Array.isArray(cited) && !cited.length && isObject(data) && !truthy(data.interrupted)) starts.push(seq);
  });
  return starts;
}

// Whether the request dispatched at `seq` may have left no event: the turn logs no model output
// from `seq` on and has not ended yet, or ends aborted before the next request's dispatch.
function cancelledBeforeAChunk(log, seq, next) {
  for (let end = seq; end < log.length; end++) {
    const event = log[end];
    const type = isObject(event) ? event.type : undefined;
    if (MODEL_OUTPUT.includes(type)) return false;
    if (type === "turn/end") {
      const reason = isObject(event.data) ? event.data.reason : undefined;
      return isObject(reason) && reason.kind === "aborted" && (next === null || (Number.isInteger(next) && next > end));
    }
  }
  return next === null;
}

function requestProblems(fold, request, sessionId) {
  if (!isObject(request)) return [["request", "a request is a JSON object", "LOGGEDLOOP-REQUEST-INVARIANT"]];
  const problems = [];
  const fail = (field, message, contract = "LOGGEDLOOP-REQUEST-INVARIANT") => problems.push([field, message, contract]);
  if (!fold.openSteps.size) fail("step", "no step is open at dispatch (its step/start logged, its step/end not)");
  const derived = fold.messages();
  if (!jsonText(request.messages, derived)) {
    const sent = request.messages;
    let why = `${Array.isArray(sent) ? sent.length : "no list of"} message(s) sent, the log derives ${derived.length}`;
    if (Array.isArray(sent)) {
      const at = sent.findIndex((m, i) => i < derived.length && !jsonText(m, derived[i]));
      if (at >= 0) why = `message #${at} differs from the log's derived message: sent ${show(sent[at])}, derived ${show(derived[at])}`;
    }
    fail("messages", why);
  }
  const header = fold.header;
  const instanceStarted = fold.instanceStarts.at(-1) < fold.events.length;
  if (header === null || !(fold.instanceHasHeader && instanceStarted)) {
    fail("header", "no request/header of this loop instance before it", "ROOT-MODEL");
  } else {
    for (const field of ["system", "tools"]) {
      const value = request[field];
      if (Object.hasOwn(request, field) && (value === null || value === "" || (Array.isArray(value) && !value.length))) {
        fail(field, `${JSON.stringify(value)} where the field must be absent`);
      }
    }
    const asHeader = { config: Object.fromEntries(COMPARED_CONFIG.filter((k) => Object.hasOwn(request, k)).map((k) => [k, request[k]])) };
    for (const field of ["system", "tools"]) if (Object.hasOwn(request, field)) asHeader[field] = request[field];
    if (Object.hasOwn(header, "adapterDefaults")) asHeader.adapterDefaults = header.adapterDefaults;
    for (const field of headerDifferences(header, asHeader)) fail(field, "the request differs from the folded header");
    const allowed = new Set(["messages", "system", "tools", "sessionId", ...Object.keys(header.config)]);
    const extra = Object.keys(request).filter((k) => !allowed.has(k));
    const missing = Object.keys(header.config).filter((k) => !Object.hasOwn(request, k));
    if (extra.length || missing.length) {
      fail("fields", `not exactly {...config, messages, system?, tools?, sessionId}: extra ${show(extra)}, missing config fields ${show(missing)}`);
    }
  }
  const sent = Object.hasOwn(request, "sessionId") ? request.sessionId : null;
  if (!jsonValue(sent, sessionId)) fail("sessionId", `${show(sent)}, the session is ${show(sessionId)}`);
  return problems;
}

// Every violation of LOGGEDLOOP-REQUEST-INVARIANT (and ROOT-MODEL's header anchoring) by the
// reported requests against the reported log: {index (-1: an attempt without a request), seq,
// field, contract, message}.
function checkRequests(log, requests, sessionId, constants) {
  const found = [];
  const violation = (index, seq, field, message, contract = "LOGGEDLOOP-REQUEST-INVARIANT") => found.push({ index, seq, field, contract, message });
  const live = seededLength(log);
  const fold = new LogFold(live, constants);
  const core = new Set(constants.coreTypes);
  let last = live;
  const dispatchOf = (entry) => {
    const seq = isObject(entry) ? entry.dispatchSeq : undefined;
    return Number.isInteger(seq) ? seq : null;
  };
  requests.forEach((entry, index) => {
    const seq = dispatchOf(entry);
    if (seq === null || seq < last || seq > log.length) {
      violation(index, isObject(entry) ? entry.dispatchSeq ?? null : null, "dispatchSeq", `must be a log length from ${last} to ${log.length}`);
      return;
    }
    last = seq;
    while (fold.events.length < seq) fold.add(log[fold.events.length]);
    for (const [field, message, contract] of requestProblems(fold, entry.request, sessionId)) violation(index, seq, field, message, contract);
  });
  // The pairing: each request with the attempt starting at its dispatchSeq, or after events
  // outside the core vocabulary only (ROOT-MODEL).
  const attempts = attemptStarts(log, core).filter((seq) => seq >= live);
  const unrequested = (seq, why) => violation(-1, seq, "attempt", `the attempt starting at seq ${seq} has no reported request (${why})`);
  requests.forEach((entry, index) => {
    const seq = dispatchOf(entry);
    if (seq === null) return;
    while (attempts.length && attempts[0] < seq) unrequested(attempts.shift(), `request #${index} is dispatched at ${seq}`);
    const following = requests[index + 1];
    const next = isObject(following) && following.dispatchSeq !== undefined ? following.dispatchSeq : null;
    if (attempts.length && log.slice(seq, attempts[0]).every((event) => isObject(event) && !core.has(event.type))) {
      attempts.shift();
    } else if (!cancelledBeforeAChunk(log, seq, next)) {
      const after = attempts.length ? `the next attempt starts at seq ${attempts[0]}` : "none follows";
      violation(
        index,
        seq,
        "attempt",
        `no attempt starts at its dispatchSeq (${after}); only the last request of a turn that ends aborted before that request's first chunk may leave no event`,
      );
    }
  });
  for (const seq of attempts) unrequested(seq, "no request is dispatched there");
  return found;
}

const describeViolation = (v) =>
  `${v.index < 0 ? "" : `request #${v.index} (dispatchSeq ${show(v.seq)}): `}${v.field} (${v.contract}): ${v.message}`;

// The log fold's violations of one final observation and the request invariant's.
function finalViolations(observed, constants) {
  const fold = new LogFold(seededLength(observed.log), constants);
  for (const event of observed.log) fold.add(event);
  return { fold: fold.violations, invariant: checkRequests(observed.log, observed.requests, Object.hasOwn(observed, "sessionId") ? observed.sessionId : null, constants) };
}

// -- the wire --------------------------------------------------------------------------------

const DELTAS = {
  "text-delta": ["text", "text"],
  "reasoning-delta": ["reasoning", "text"],
  "tool-call-delta": ["tool-call", "argumentsDelta"],
};
const FAILURE_FIELDS = ["message", "code", "status", "providerRetryAfterMs", "requestId"];
const HTTP_FACTS = ["status", "providerRetryAfterMs", "requestId"];

function streamStructure(chunks) {
  const kinds = chunks.map((c) => c.type);
  if (kinds.filter((k) => k === "finish").length !== 1 || kinds.at(-1) !== "finish") return `expected exactly one finish chunk, last; got ${show(kinds)}`;
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
    if (!["block-start", "block-end", ...Object.keys(DELTAS)].includes(chunk.type)) return `${where}: not a stream chunk type`;
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
      if (ended.length && index < ended.at(-1)) return `${where}: its index is below the previous block-end's (block ends come in opening order)`;
      const block = chunk.block;
      const type = opened.get(index);
      if (!isObject(block) || block.type !== type) return `${where}: expected a ${type} block, got ${show(block)}`;
      const content = type === "tool-call" ? block.arguments : block.text;
      if (content !== assembled.get(index)) return `${where}: the block holds ${show(content)}, its deltas ${show(assembled.get(index))}`;
      ended.push(index);
      continue;
    }
    const [blockType, field] = DELTAS[chunk.type];
    if (opened.get(index) !== blockType) return `${where}: a delta for a ${opened.get(index)} block`;
    if (chunk.type === "tool-call-delta" && (typeof chunk.id !== "string" || (Object.hasOwn(chunk, "name") && typeof chunk.name !== "string"))) {
      return `${where}: not {index, id, name?, argumentsDelta} with string id and name`;
    }
    assembled.set(index, assembled.get(index) + String(chunk[field] ?? ""));
  }
  const firstUsage = kinds.indexOf("usage");
  if (firstUsage >= 0 && kinds.slice(firstUsage).includes("block-end")) return "a usage chunk came before a block-end";
  return null;
}

// wire-failure (version 2): the code (or any of a list of codes); for an HTTP failure (the
// expectation has `status`) status, providerRetryAfterMs and requestId each present exactly when
// expected, with the expected value.
function failureProblems(want, got) {
  const problems = [];
  const codes = [want.code].flat();
  if (!Object.hasOwn(got, "code") || !codes.some((c) => jsonValue(c, got.code))) problems.push(`code: expected ${show(want.code)}, got ${show(got.code)}`);
  if (Object.hasOwn(want, "status")) {
    for (const key of HTTP_FACTS) {
      const expected = Object.hasOwn(want, key) ? want[key] : ABSENT;
      const observed = Object.hasOwn(got, key) ? got[key] : ABSENT;
      if (!jsonValue(expected, observed)) problems.push(`${key}: expected ${show(expected)}, got ${show(observed)}`);
    }
  }
  return problems;
}

const WIRE = {
  "wire-request": ({ request: want }, observed) => {
    const got = observed.request;
    if (!isObject(got)) return `expected a request, got ${show(observed)}`;
    for (const key of ["method", "url"]) {
      if (key in want && got[key] !== want[key]) return `${key}: expected ${show(want[key])}, got ${show(got[key])}`;
    }
    if (!isObject(got.headers)) return `headers: expected an object, got ${show(got.headers)}`;
    for (const [name, value] of Object.entries(want.headers ?? {})) {
      const sent = Object.entries(got.headers).filter(([k]) => k.toLowerCase() === name);
      if (sent.length !== 1 || sent[0][1] !== value) return `header ${name}: expected ${show(value)} once, got ${show(sent)}`;
    }
    if ("body" in want && !ordered(want.body, got.body)) return `body: expected ${show(want.body)}, got ${show(got.body)}`;
    return null;
  },
  "wire-stream": ({ stream: want }, observed) => {
    const chunks = observed.chunks;
    if (!Array.isArray(chunks) || !chunks.every(isObject)) return `expected a list of chunks, got ${show(observed)}`;
    const problem = streamStructure(chunks);
    if (problem) return problem;
    const blocks = chunks.filter((c) => c.type === "block-end").map((c) => c.block);
    if (!jsonValue(want.blocks, blocks)) return `blocks: expected ${show(want.blocks)}, got ${show(blocks)}`;
    const usages = chunks.filter((c) => c.type === "usage").map((c) => c.usage);
    const wantUsage = want.usage === null || want.usage === undefined ? [] : [want.usage];
    if (!jsonValue(wantUsage, usages)) return `usage: expected ${show(wantUsage)}, got ${show(usages)}`;
    const reason = chunks.at(-1).reason;
    if (!isObject(reason) || reason.kind !== want.finish.kind) return `finish: expected ${show(want.finish)}, got ${show(reason)}`;
    if (!Object.hasOwn(want.finish, "failure")) return null;
    const failure = reason.failure;
    if (!isObject(failure)) return `finish: expected a failure, got ${show(reason)}`;
    const problems = failureProblems(want.finish.failure, failure);
    if (typeof failure.message !== "string" || !Object.keys(failure).every((k) => FAILURE_FIELDS.includes(k))) {
      problems.push(`not an LLM_FAILURE {message, code, status?, providerRetryAfterMs?, requestId?}: ${show(failure)}`);
    }
    return problems.length ? `finish failure: ${problems.join("; ")}` : null;
  },
  "wire-failure": ({ failure: want }, observed) => {
    const got = observed.failure;
    if (!isObject(got)) return `expected a failure, got ${show(observed)}`;
    const problems = failureProblems(want, got);
    return problems.length ? problems.join("; ") : null;
  },
};

// -- the rules -------------------------------------------------------------------------------

function rules(comparison) {
  const constants = { ...comparison.logView, ...comparison.logFold };
  return {
    fields: (want, observed) => compareFields(want, observed, comparison),
    assembly: (want, observed) =>
      Object.hasOwn(observed, "assembly") ? compareFields(want.assembly, observed.assembly, comparison, "assembly.") : `expected an assembly, got ${show(observed)}`,
    error: ({ error: want }, observed) => {
      const got = observed.error;
      if (!isObject(got) || got.kind !== want.kind) return `expected error ${show(want.kind)}, got ${show(observed)}`;
      if ("where" in want && got.where !== want.where) return `error where: expected ${show(want.where)}, got ${show(got.where)}`;
      return null;
    },
    evaluations: (want, observed) => {
      const counts = isObject(observed.evaluations) ? observed.evaluations : {};
      for (const [id, n] of Object.entries(want.evaluations)) {
        if (counts[id] !== n) return `${id} evaluated: expected ${n}, got ${show(counts[id])}`;
      }
      if ("changes" in want && observed.changes !== want.changes) return `changes: expected ${want.changes}, got ${show(observed.changes)}`;
      return null;
    },
    "log-view": (want, observed) => {
      if (!Array.isArray(observed.log)) return `expected a log observation, got ${show(observed)}`;
      for (const key of ["log", "requests"]) {
        const items = key === "log" ? observed.log : (observed.requests ?? []);
        if (!Array.isArray(items) || !items.every(isObject)) return `${key} must be a list of objects, got ${show(items)}`;
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
        const partial = want.requests
          .slice(0, view.requests.length)
          .map((w, i) => Object.fromEntries(Object.keys(w).map((k) => [k, Object.hasOwn(view.requests[i], k) ? view.requests[i][k] : ABSENT])));
        return compareList("request", want.requests, partial, view.requests.length);
      }
      return null;
    },
    // The observe op appended for each agent: the log fold and the request invariant.
    "final-observe": (want, observed) => {
      if (!Array.isArray(observed.log) || !Array.isArray(observed.requests)) return `expected {sessionId, log, requests}, got ${show(observed)}`;
      const contracts = new Set(want.foldContracts);
      const found = finalViolations(observed, constants);
      const problems = found.fold
        .filter((v) => contracts.has(constants.rules[v.rule]))
        .map((v) => `the log fold: seq ${v.seq}: ${v.rule} (${constants.rules[v.rule]}): ${v.message}`);
      problems.push(...found.invariant.map((v) => `the request invariant: ${describeViolation(v)}`));
      return problems.length ? problems.join("\n      ") : null;
    },
    ...WIRE,
  };
}

// The requests a case's expectations fix (COMPARISON.md, "Expected requests"), against the
// viewed requests of the observe op they belong to.
function compareFixedRequests(fixed, observed, constants) {
  if (!isObject(observed) || !Array.isArray(observed.log)) return `expected a log observation, got ${show(observed)}`;
  const requests = observed.requests ?? [];
  if (!Array.isArray(requests) || !requests.every(isObject)) return `requests must be a list of objects, got ${show(requests)}`;
  const viewed = logView(observed, constants).requests;
  for (let i = 0; i < Math.min(fixed.length, viewed.length); i++) {
    const { dispatchSeq, ...got } = viewed[i];
    if (dispatchSeq !== fixed[i].dispatchSeq) return `request #${i}: dispatched at view position ${dispatchSeq}, the expected log fixes ${fixed[i].dispatchSeq}`;
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
  if (!isObject(observed)) return `expected ${show(entry.value)}, got ${show(observed)}`;
  const value = entry.value ?? {};
  if (!Object.hasOwn(table, entry.rule)) return `the case uses rule ${show(entry.rule)}, which index.json's comparison.rules does not list`;
  if (Object.hasOwn(observed, "error") && !Object.hasOwn(value, "error")) return `expected ${show(entry.value)}, got error ${show(observed.error)}`;
  return table[entry.rule](value, observed);
}

// -- the harness -----------------------------------------------------------------------------

// How deeply a JSON text nests (PROTOCOL.md: at most 100 levels), its strings left out.
function depth(text) {
  let deepest = 0;
  let level = 0;
  for (const c of text.replace(/"(?:[^"\\]|\\.)*"/gs, "")) {
    if (c === "[" || c === "{") deepest = Math.max(deepest, ++level);
    else if (c === "]" || c === "}") level--;
  }
  return deepest;
}

class Harness {
  constructor(command, timeoutMs, environment) {
    this.timeoutMs = timeoutMs;
    // Its own process group (PROTOCOL.md), and the environment the suite gives a harness.
    this.child = spawn(command, { shell: true, detached: true, stdio: ["pipe", "pipe", "inherit"], env: { ...process.env, ...environment } });
    this.buffer = Buffer.alloc(0);
    this.lines = [];
    this.waiting = null;
    this.closed = false;
    this.child.stdin.on("error", () => {});
    this.child.stdout.on("data", (data) => {
      this.buffer = Buffer.concat([this.buffer, data]);
      let end;
      while ((end = this.buffer.indexOf(10)) >= 0) {
        this.lines.push(this.buffer.subarray(0, end));
        this.buffer = this.buffer.subarray(end + 1);
      }
      if (this.buffer.length > MAX_LINE_BYTES) {
        this.lines.push(this.buffer);
        this.buffer = Buffer.alloc(0);
      }
      this.#wake();
    });
    this.child.stdout.on("close", () => {
      this.closed = true;
      this.#wake();
    });
  }

  #wake() {
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = null;
      resolve();
    }
  }

  // Send one line of JSON text; the answer, parsed.
  async request(text) {
    this.child.stdin.write(`${text}\n`);
    const deadline = Date.now() + this.timeoutMs;
    while (this.lines.length === 0) {
      if (this.closed) throw new Error("the harness closed its standard output");
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no answer within ${this.timeoutMs / 1000} s`);
      // The timer goes when the answer comes: a pending one would keep Node running (idle) until
      // it fired, the whole timeout after the last answer.
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiting = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    const line = this.lines.shift();
    if (line.length > MAX_LINE_BYTES) throw new Error(`an answer line longer than ${MAX_LINE_BYTES} bytes`);
    const decoded = line.toString("utf8");
    if (depth(decoded) > MAX_NESTING) throw new Error(`an answer nested deeper than ${MAX_NESTING} levels`);
    try {
      return JSON.parse(decoded);
    } catch {
      throw new Error(`the answer is not JSON: ${decoded.slice(0, 200)}`);
    }
  }

  leftovers() {
    return this.lines.length;
  }

  stop() {
    this.child.stdin.end(`${JSON.stringify({ type: "stop" })}\n`);
    setTimeout(() => this.kill(), 2000).unref();
  }

  kill() {
    try {
      process.kill(-this.child.pid, "SIGKILL");
    } catch {
      // already gone
    }
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

// `--final EXPORT_DIR`: for each line of standard input (the answer to an `observe` op), one line
// of output: the log fold's and the request invariant's violations, as data (to compare this
// runner's fold with another one's).
async function finals(dir) {
  const comparison = readJson(join(dir, "index.json")).comparison;
  const constants = { ...comparison.logView, ...comparison.logFold };
  let text = "";
  for await (const data of process.stdin) text += data;
  for (const line of text.split("\n").filter(Boolean)) {
    const found = finalViolations(JSON.parse(line), constants);
    const fold = found.fold.map((v) => [v.seq, v.rule]);
    const invariant = found.invariant.map((v) => [v.index, v.seq, v.field, v.contract]);
    process.stdout.write(`${JSON.stringify({ fold, invariant })}\n`);
  }
  return 0;
}

async function main(argv) {
  if (argv[0] === "--final" && argv.length === 2) return finals(argv[1]);
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
  if (comparison.version !== COMPARISON_VERSION) usage(`${dir}: comparison rules version ${comparison.version}, this runner knows ${COMPARISON_VERSION}`);
  ABSENT = comparison.logView.absent;
  ANY_TEXT = comparison.logView.anyText;
  const table = rules(comparison);
  const unknown = [
    ...comparison.rules.filter((rule) => !(rule in table)),
    ...Object.values(comparison.fieldRules).filter((rule) => !(rule in FIELD_RULES)),
  ];
  if (unknown.length) usage(`${dir}: unknown comparison rules ${unknown.join(", ")}`);
  let answerProblem;
  try {
    answerProblem = schemaValidator(readJson(join(dir, index.answerSchema)));
  } catch (error) {
    usage(`${join(dir, index.answerSchema)}: ${error.message}`);
  }

  const counts = { passed: 0, failed: 0, errored: 0, skipped: 0, "not applicable": 0 };
  let harness = null;
  let capabilities;
  let handshake = null;
  // A (re)started harness and its handshake; after an errored case the suite starts a new one.
  const started = async () => {
    if (harness) return true;
    harness = new Harness(command, timeout * 1000, index.harness.environment);
    try {
      const answer = await harness.request(JSON.stringify({ type: "start", protocol: index.protocol }));
      const problem = answer?.type === "started" ? answerProblem("started", answer) : `not a started message: ${show(answer)}`;
      if (problem || answer.protocol !== index.protocol) throw new Error(problem ?? `protocol ${show(answer.protocol)}`);
      const now = { implementation: answer.implementation, capabilities: [...new Set(answer.capabilities)].sort() };
      if (handshake && !jsonValue(handshake, now)) throw new Error(`the restarted harness answered differently: ${show(answer)}`);
      handshake = now;
      capabilities = new Set(now.capabilities);
      return true;
    } catch (error) {
      process.stdout.write(`the handshake failed: ${error.message}\n`);
      harness.kill();
      return false;
    }
  };
  if (!(await started())) return 1;
  for (const entry of index.cases) {
    const testCase = readJson(join(dir, entry.file));
    if (!testCase.requires.every((c) => capabilities.has(c))) {
      counts["not applicable"]++;
      continue;
    }
    if (!harness && !(await started())) return 1;
    let answer;
    const ops = testCase.expected.length;
    try {
      answer = await harness.request(testCase.runText);
      if (!isObject(answer)) throw new Error(`not a JSON object: ${show(answer)}`);
      if (answer.type !== "errored" && answer.case !== testCase.id) throw new Error(`the answer names case ${show(answer.case)}`);
      if (answer.type === "observed" && Array.isArray(answer.observations) && answer.observations.length !== ops) {
        throw new Error(`answered ${answer.observations.length} observations to a scenario of ${ops} ops`);
      }
      const kind = ["observed", "skipped", "errored"].includes(answer.type) ? answer.type : null;
      const problem = kind ? answerProblem(kind, answer) : `an answer of type ${show(answer.type)}`;
      if (problem) throw new Error(`the answer does not fit protocol.schema.json at ${problem}`);
      if (harness.leftovers()) throw new Error("more than one answer line");
    } catch (error) {
      counts.errored++;
      process.stdout.write(`ERRORED ${testCase.id}: ${error.message}\n`);
      harness.kill();
      harness = null;
      continue;
    }
    if (answer.type === "skipped") {
      counts.skipped++;
      continue;
    }
    if (answer.type === "errored") {
      counts.errored++;
      process.stdout.write(`ERRORED ${testCase.id}: the harness answered errored: ${show(answer.context)}\n`);
      continue;
    }
    if (testCase.suiteChecks.length) {
      // Checks this runner cannot make (none in export format 4): never counted as passed.
      counts["not checked"] = (counts["not checked"] ?? 0) + 1;
      process.stdout.write(`NOT CHECKED ${testCase.id}: ${testCase.suiteChecks.map((c) => c.check).join(", ")}\n`);
      continue;
    }
    const observations = answer.observations;
    const problems = [];
    testCase.expected.forEach((expected, i) => {
      const problem = judge(expected, observations[i], table);
      if (problem) problems.push(`op #${i} (${testCase.run.scenario.ops[i].op}): ${problem}`);
    });
    for (const { op, requests } of testCase.expectedRequests ?? []) {
      const problem = compareFixedRequests(requests, observations[op], comparison.logView);
      if (problem) problems.push(`op #${op} (observe): expected requests: ${problem}`);
    }
    if (problems.length) {
      counts.failed++;
      process.stdout.write(`FAILED ${testCase.id} [${testCase.checks.join(", ")}]\n`);
      for (const problem of problems) process.stdout.write(`  - ${problem}\n`);
    } else {
      counts.passed++;
    }
  }
  harness?.stop();
  process.stdout.write(`${Object.entries(counts).map(([name, n]) => `${n} ${name}`).join(", ")}\n`);
  return counts.failed || counts.errored || counts["not checked"] ? 1 : 0;
}

process.exitCode = await main(process.argv.slice(2));
