#!/usr/bin/env node
// A conformance harness in JavaScript:
//   dsh-conformance --impl "node examples/node-harness/harness.mjs"
//
// It speaks dsh_conformance/PROTOCOL.md over standard input and output, one JSON message per line:
// `start` is answered with the capabilities it declares, each `run` with one observation per op
// (or `skipped`, or `errored`), and `stop` ends the process. It runs the cases of two contracts,
// PROMPT-STRICT-RENDER and PROMPT-TOOL-ORDER, and answers every other case `skipped`, saying why.

import { createInterface } from "node:readline";
import { Registry, Unsupported } from "./registry.mjs";
import { ContractError, renderContext, renderPrompt } from "./render.mjs";

const STARTED = {
  type: "started",
  protocol: 1,
  implementation: { name: "node-example", version: "0.1.0", language: "javascript" },
  capabilities: ["registry"],
};

// The cases this example answers, by id: those of its two contracts (`dsh-conformance --list
// --contract PROMPT-STRICT-RENDER --contract PROMPT-TOOL-ORDER` lists them) and the smoke
// lines it can run.
const ANSWERED = [
  /^render\//,
  /^tool-order\//,
  /^property\/(render|tool-order)-/,
  /^registry\/config-tool-?order-/i,
  /^variables\/empty-string-is-a-value$/,
  /^variables\/nearest-no-value-overrides-farther-value$/,
  /^variables\/evaluated-once-per-assembly$/,
  /^smoke\/(render|errors|scopes-tools-listener|unknown-op)$/,
];

/** The answer to one message (undefined for `stop`). */
export function handle(message) {
  switch (message.type) {
    case "start":
      return STARTED;
    case "run":
      if (!ANSWERED.some((pattern) => pattern.test(message.case))) {
        const reason = "this example implements PROMPT-STRICT-RENDER and PROMPT-TOOL-ORDER only";
        return { type: "skipped", case: message.case, reason };
      }
      try {
        return { type: "observed", case: message.case, observations: run(message.scenario.ops) };
      } catch (error) {
        // An op it does not know, or a feature it does not model: never a pass.
        return { type: "errored", case: message.case, context: String(error?.stack ?? error) };
      }
    default:
      return undefined;
  }
}

/** Run a scenario's ops in order on a fresh registry: one observation per op. */
function run(ops) {
  let registry = new Registry();
  const handles = new Map();
  const assemblies = new Map();
  const observe = (op) => {
    switch (op.op) {
      case "configure":
        registry = new Registry(op.config);
        return { ok: true };
      case "scope":
        registry.addScope(op.scope, op.parent ?? null);
        return { ok: true };
      case "register": {
        const { op: _, handle, layer, scope, ...registration } = op;
        handles.set(handle, registry.register(layer ?? scope ?? null, registration));
        return { ok: true };
      }
      case "release":
        handles.get(op.handle)?.();
        return { ok: true };
      case "listen":
        registry.listen(op.scope, op.listener);
        return { ok: true };
      case "assemble":
      case "await": {
        if (op.op === "assemble") {
          assemblies.set(op.assembly, attempt(() => registry.assemble(op.scope)));
        }
        const result = assemblies.get(op.assembly);
        return result.error ? result : { assembly: assemblyJson(result.value) };
      }
      case "render":
        return { text: renderPrompt(assemblies.get(op.assembly).value) };
      case "render-context":
        return renderContext(assemblies.get(op.assembly).value);
      case "counts":
        return { evaluations: Object.fromEntries(registry.evaluations), changes: registry.changes };
      default:
        throw new Unsupported(`op ${op.op}`);
    }
  };
  return ops.map((op) => {
    const result = attempt(() => observe(op));
    return result.value ?? result;
  });
}

/** Run `action`: `{value}`, or `{error: ERROR}` when it failed with a contract's error kind. */
function attempt(action) {
  try {
    return { value: action() };
  } catch (error) {
    if (!(error instanceof ContractError)) throw error;
    const found = { kind: error.kind, message: error.message };
    if (error.where !== undefined) found.where = error.where;
    return { error: found };
  }
}

/** An ASSEMBLY observation: `variables` as an object, `null` kept for "no value". */
function assemblyJson({ sections, contexts, tools, variables }) {
  return { sections, contexts, tools, variables: Object.fromEntries(variables) };
}

// The protocol loop: one answer line per request line, written before the next is read.
const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  const answer = handle(JSON.parse(line));
  if (answer === undefined) break;
  process.stdout.write(`${JSON.stringify(answer)}\n`);
}
process.exit(0);
