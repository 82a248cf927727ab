// A small prompt registry: just what PROMPT-STRICT-RENDER and PROMPT-TOOL-ORDER need around them.
//
// Layers (the global one and named scopes), sections, contexts, variables and tool providers,
// the configuration (identity and persona sections, `toolOrder`), an assembly that evaluates them
// and runs waterfall listeners that edit after `next`. Providers are synchronous (no
// `async-providers`); anything this example does not model throws `Unsupported`, which the
// harness answers as `errored`, never as a pass.

import { ContractError } from "./render.mjs";
import { checkToolOrder, orderTools } from "./tool-order.mjs";

export class Unsupported extends Error {}

const IDENTITY = {
  name: "harness:identity",
  order: -100,
  text: "You are an AI agent powered by DeepSeek Harness.",
};
const NAME = /^[a-z][a-z0-9_]*$/;
const NON_FINITE = { NaN: Number.NaN, Infinity: Infinity, "-Infinity": -Infinity };

/** Configuration: "A field given as `null` means absent"; a field of the wrong type is rejected. */
function loadConfig(config) {
  const given = (key, type) => {
    const value = config[key] ?? null;
    if (value !== null && typeof value !== type) {
      throw new ContractError("config-invalid", key, `${key} must be a ${type}`);
    }
    return value;
  };
  const identity = given("includeHarnessIdentity", "boolean") ?? true;
  if (given("includeRuntimeContext", "boolean") === false) {
    throw new Unsupported("includeRuntimeContext: false (a suppressor) is not modelled");
  }
  const persona = given("persona", "string") ?? "";
  const toolOrder = config.toolOrder ?? null;
  if (toolOrder !== null) {
    if (!Array.isArray(toolOrder) || toolOrder.some((name) => typeof name !== "string")) {
      throw new ContractError("config-invalid", "toolOrder", "toolOrder must list strings");
    }
    checkToolOrder(toolOrder);
  }
  return { identity, persona, toolOrder };
}

export class Registry {
  constructor(config = {}) {
    const { identity, persona, toolOrder } = loadConfig(config);
    this.toolOrder = toolOrder;
    this.layers = new Map([[null, []]]); // layer name -> registrations, in registration order
    this.parents = new Map(); // scope -> parent scope (null: the global layer)
    this.listeners = [];
    this.evaluations = new Map(); // id -> calls, for `counts`
    this.calls = new Map(); // provider object -> calls, for `sequence`
    this.changes = 0;
    if (identity) this.register(null, { kind: "section", ...IDENTITY });
    this.register(null, { kind: "section", name: "deployment:persona", order: 0, text: persona });
    this.changes = 0; // counting starts after the configuration's own registrations
  }

  addScope(name, parent = null) {
    this.parents.set(name, parent);
    this.layers.set(name, []);
  }

  /** The global layer, then the scope's chain from its farthest ancestor to itself. */
  chain(scope) {
    const chain = [];
    for (let at = scope; at !== null; at = this.parents.get(at)) chain.unshift(at);
    return [null, ...chain];
  }

  register(layer, registration) {
    const { kind, name } = registration;
    const entries = this.layers.get(layer);
    if (kind === "section" || kind === "context") {
      if (registration.complete !== undefined) throw new Unsupported("complete sections");
      const order = NON_FINITE[registration.order] ?? registration.order;
      if (!Number.isFinite(order)) throw new ContractError("invalid-order", name, "not finite");
      registration = { ...registration, order };
    } else if (kind === "variable") {
      if (!NAME.test(name)) throw new ContractError("invalid-variable-name", name, "bad name");
    } else if (kind !== "tools") {
      throw new Unsupported(`registrations of kind ${kind}`);
    }
    if (kind !== "tools" && entries.some((e) => e.kind === kind && e.name === name)) {
      throw new ContractError("duplicate-registration", name, `${name} is already registered`);
    }
    this.track(registration.text);
    this.track(registration.provider);
    entries.push(registration);
    this.changes += 1;
    return () => this.release(layer, registration);
  }

  release(layer, registration) {
    const entries = this.layers.get(layer);
    const index = entries.indexOf(registration);
    if (index === -1) return; // released already: "a no-op the second time"
    entries.splice(index, 1);
    this.changes += 1;
  }

  listen(scope, listener) {
    if (listener.waitFor || listener.before || listener.callNext === false) {
      throw new Unsupported("listeners that wait, edit before `next` or skip it");
    }
    this.track(listener);
    this.listeners.push({ scope, listener });
  }

  /** List a provider or listener with an `id` under `counts`, with no call yet. */
  track(provider) {
    if (provider?.id !== undefined) this.evaluations.set(provider.id, 0);
  }

  /** Count one call of a provider or listener: under its `id` for `counts`, and its own. */
  count(provider) {
    const calls = (this.calls.get(provider) ?? 0) + 1;
    this.calls.set(provider, calls);
    if (provider.id !== undefined) {
      this.evaluations.set(provider.id, this.evaluations.get(provider.id) + 1);
    }
    return calls;
  }

  /** A provider's value: `returns`, the n-th of `sequence`, or the `fails` error. */
  evaluate(provider) {
    if (typeof provider === "string") return provider; // static text is never "evaluated"
    if (provider.effects || provider.waitFor) throw new Unsupported("provider effects and waits");
    const calls = this.count(provider);
    if (provider.fails !== undefined) {
      throw new ContractError("scripted-failure", undefined, provider.fails);
    }
    if (provider.sequence) return provider.sequence[Math.min(calls, provider.sequence.length) - 1];
    return provider.returns;
  }

  /** PROMPT-ASSEMBLY-PIPELINE's steps, in order, for one scope (null: global). */
  assemble(scope) {
    const layers = this.chain(scope).map((name) => this.layers.get(name));
    const entries = (kind) => layers.flatMap((layer) => layer.filter((e) => e.kind === kind));
    // 1. variables: every provider runs, the nearest layer's value wins.
    const variables = new Map();
    for (const v of entries("variable")) variables.set(v.name, this.evaluate(v.provider));
    // 2. effective maps: a shadowing entry takes the position of the one it shadows.
    const effective = (kind) => [...new Map(entries(kind).map((e) => [e.name, e])).values()];
    // 3. tool providers, each evaluated once; only three fields of a schema are kept.
    const schemas = [];
    const known = new Set();
    for (const provider of entries("tools")) {
      const toolset = this.evaluate(provider.provider);
      for (const { name, description, parameters } of toolset.schemas) {
        schemas.push({ name, description, parameters: structuredClone(parameters) });
      }
      for (const name of toolset.knownNames ?? toolset.schemas.map((s) => s.name)) known.add(name);
    }
    // 4-6. sort sections and contexts by order (a stable sort) and evaluate their texts.
    const texts = (kind) =>
      effective(kind)
        .sort((a, b) => a.order - b.order)
        .map((e) => ({ name: e.name, text: this.evaluate(e.text) }));
    const sections = texts("section");
    const contexts = texts("context");
    // 7. order the tools, before the waterfall.
    const tools = orderTools(schemas, known, this.toolOrder);
    // 8. the waterfall: every listener of this scope or an ancestor, each editing after `next`.
    const payload = { sections, contexts, tools, variables };
    for (const { scope: at, listener } of this.listeners.toReversed()) {
      if (at !== null && !this.chain(scope).includes(at)) continue;
      this.count(listener);
      for (const edit of listener.edits ?? []) applyEdit(payload, edit);
    }
    return payload;
  }
}

/** A listener's edit of the payload (PROTOCOL.md, LISTENER); only those this example needs. */
function applyEdit(payload, edit) {
  if (edit.append) payload[edit.append].push(edit.item);
  else if (edit.remove) {
    payload[edit.remove] = payload[edit.remove].filter((e) => e.name !== edit.name);
  }
  else if (edit.reverse) payload[edit.reverse].reverse();
  else if (edit.replace) payload[edit.replace] = edit.items;
  else throw new Unsupported(`listener edit ${JSON.stringify(edit)}`);
}
