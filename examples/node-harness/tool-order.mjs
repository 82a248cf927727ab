// PROMPT-TOOL-ORDER: the canonical order of tool schemas.
//
// "Without `toolOrder`: schemas sort by name in UTF-16 code-unit order, locale-independent." That
// is what JavaScript's `<` on strings compares, and `Array.prototype.sort` is stable, which keeps
// schemas sharing a name in collection order. "With `toolOrder`: every listed name other than the
// marker must be in the union of all providers' `knownNames` (else `tool-order-unknown-name`, at
// assembly); a known name that is absent in this scope is simply skipped; listed tools appear
// at their listed positions and every unlisted visible tool appears at the marker, in code-unit
// order."

import { ContractError } from "./render.mjs";

export const REST_MARKER = "<unlisted-tools>";

/** Check a configured `toolOrder` when the configuration is loaded (`tool-order-invalid`). */
export function checkToolOrder(toolOrder) {
  const seen = new Set();
  for (const name of toolOrder) {
    if (seen.has(name)) {
      throw new ContractError("tool-order-invalid", "toolOrder", `${name} is listed twice`);
    }
    seen.add(name);
  }
  if (!seen.has(REST_MARKER)) {
    throw new ContractError("tool-order-invalid", "toolOrder", `no ${REST_MARKER} marker`);
  }
}

const byCodeUnits = (a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** Order the schemas of one assembly; `knownNames` is the union of every provider's. */
export function orderTools(schemas, knownNames, toolOrder) {
  if (schemas.some((schema) => schema.name === REST_MARKER)) {
    throw new ContractError("reserved-tool-name", REST_MARKER, "a schema is named like the marker");
  }
  const sorted = [...schemas].sort(byCodeUnits);
  if (toolOrder === null) return sorted;
  for (const name of toolOrder) {
    if (name !== REST_MARKER && !knownNames.has(name)) {
      throw new ContractError("tool-order-unknown-name", name, `no provider knows ${name}`);
    }
  }
  const listed = new Set(toolOrder);
  return toolOrder.flatMap((name) =>
    name === REST_MARKER
      ? sorted.filter((schema) => !listed.has(schema.name))
      : schemas.filter((schema) => schema.name === name),
  );
}
