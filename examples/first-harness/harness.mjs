#!/usr/bin/env node
// A first harness: the handshake, and the cases made of `assemble` ops alone.
//
// It models a registry that holds nothing but what the default configuration registers, the
// identity and persona sections (CONTRACTS.md, "Literal constants"), so the only scenarios it can
// run honestly are those that assemble in the global scope and do nothing else. Every other case
// is answered `skipped`, saying why: the suite reports it, and never counts it as a pass. An op
// the protocol does not have is a scenario it cannot execute: that is `errored`, not a skip.

import { createInterface } from "node:readline";

const REGISTRY_OPS = new Set(["configure", "scope", "register", "release", "dispose",
  "change-observer", "listen", "assemble", "await", "open", "abort", "render", "render-context",
  "mutate", "counts", "received"]);
const BUILT_IN = [
  { name: "harness:identity", text: "You are an AI agent powered by DeepSeek Harness." },
  { name: "deployment:persona", text: "" },
];

function answer(message) {
  if (message.type === "start") {
    return {
      type: "started",
      protocol: 1,
      implementation: { name: "first-harness", version: "0.1.0", language: "javascript" },
      capabilities: ["registry"],
    };
  }
  const { case: id, scenario } = message;
  const unknown = scenario.ops.find((op) => !REGISTRY_OPS.has(op.op));
  if (unknown) return { type: "errored", case: id, context: `no op ${unknown.op}` };
  if (!scenario.ops.every((op) => op.op === "assemble" && op.scope === null)) {
    return { type: "skipped", case: id, reason: "only `assemble` in the global scope so far" };
  }
  const assembly = { sections: BUILT_IN, contexts: [], tools: [], variables: {} };
  return { type: "observed", case: id, observations: scenario.ops.map(() => ({ assembly })) };
}

for await (const line of createInterface({ input: process.stdin })) {
  const message = JSON.parse(line);
  if (message.type === "stop") break;
  process.stdout.write(`${JSON.stringify(answer(message))}\n`);
}
