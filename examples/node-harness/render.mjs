// PROMPT-STRICT-RENDER: the `{{name}}` grammar, in one left-to-right pass.
//
// "Interpolation scans left to right for `{{`; at each one: if the text there matches `{{` + (no
// `{` or `}` characters) + `}}`, that is a group [...]; otherwise, if a `}}` occurs anywhere later
// in the text, fail `render-malformed-reference`; if not, the `{{` is literal text and scanning
// continues after it." The renderer must be linear in the text length, so whether a `}}` occurs
// later is one comparison with the position of the text's last `}}`, found once.

export const JOINER = "\n\n";
export const CONTEXT_PREAMBLE =
  "Current runtime context. This snapshot supersedes earlier runtime-context snapshots.";
const NAME = /^[a-z][a-z0-9_]*$/;

/** An error the protocol reports by its kind (PROTOCOL.md, "Error kinds"). */
export class ContractError extends Error {
  constructor(kind, where, message) {
    super(message);
    this.kind = kind;
    this.where = where;
  }
}

/** Interpolate one text; `variables` is a Map (own keys only: `constructor` is not registered). */
export function interpolate(text, variables, where) {
  const lastClose = text.lastIndexOf("}}");
  let out = "";
  let at = 0; // everything before `at` is handled
  for (let open = text.indexOf("{{"); open !== -1; open = text.indexOf("{{", at)) {
    out += text.slice(at, open);
    const inner = groupAt(text, open + 2);
    if (inner !== null) {
      out += valueOf(text.slice(open + 2, inner), variables, where);
      at = inner + 2;
    } else if (lastClose >= open + 2) {
      const message = `'{{' at ${open} opens no group, and a '}}' follows`;
      throw new ContractError("render-malformed-reference", where, message);
    } else {
      out += "{{";
      at = open + 2;
    }
  }
  return out + text.slice(at);
}

/** Where the group starting at `from` closes (the index of its `}}`), or null if none does. */
function groupAt(text, from) {
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (c === "}") return text[i + 1] === "}" ? i : null;
    if (c === "{") return null;
  }
  return null;
}

function valueOf(name, variables, where) {
  if (!NAME.test(name)) {
    throw new ContractError("render-malformed-reference", where, `{{${name}}} is not a name`);
  }
  if (!variables.has(name)) {
    throw new ContractError("render-unknown-variable", where, `{{${name}}} is not registered`);
  }
  const value = variables.get(name);
  if (value === null) {
    throw new ContractError("render-undefined-variable", where, `{{${name}}} has no value`);
  }
  return value;
}

/** The interpolated texts, those that render to '' dropped. */
export function renderTexts(entries, variables) {
  return entries
    .map(({ name, text }) => ({ name, text: interpolate(text, variables, name) }))
    .filter((entry) => entry.text !== "");
}

/** The system string: rendered non-empty sections joined by a blank line (all empty: ''). */
export function renderPrompt(assembly) {
  return renderTexts(assembly.sections, assembly.variables)
    .map((entry) => entry.text)
    .join(JOINER);
}

/** The runtime-context snapshot: its sections, and the preamble, joiner and body ('' if none). */
export function renderContext(assembly) {
  const sections = renderTexts(assembly.contexts, assembly.variables);
  const body = sections.map((entry) => entry.text).join(JOINER);
  return { sections, text: body === "" ? "" : CONTEXT_PREAMBLE + JOINER + body };
}
