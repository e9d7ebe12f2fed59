/**
 * Object layouts for the parser: records repeat the same objects again and again (every
 * evidence entry, every PROV entity, every record's sections), always with the same keys in the
 * same order. A layout seen twice at one nesting depth gets a template: the parser then checks
 * each key against the source text without slicing it out, collects the values, and builds the
 * object with its final shape in one step through a small generated constructor.
 *
 * The cache is bounded (a few layouts per depth, a cap on generated constructors per parse and in
 * all), holds only keys of printable ASCII without `"` or `\` (so equal source characters mean an
 * equal key, and the generated code cannot be anything but an object literal), and never holds
 * `__proto__`. Where code generation is forbidden (a Content Security Policy in a browser) the
 * parser simply goes member by member.
 *
 * Member-by-member parsing is the reference: `tests/json/layout_test.ts` checks that templates
 * never change a parsed value or an error. `bench/json_tricks.ts` (2026-11-23, 2 shared cores):
 * with templates `parseJson` runs at 1.74x its member-by-member speed on a 6 KB record, 1.49x on
 * a 1 MB record.
 *
 * @module
 */
import { RecentByDepth } from "./recent.ts";
import type { JsonObject, JsonValue } from "./value.ts";

/** A key sequence and, once it has repeated, the constructor that builds such objects. */
export interface Layout {
  /** The keys, in source order (distinct). */
  readonly keys: readonly string[];
  /** Builds the object from values in key order; absent until the layout has repeated. */
  build: ((values: readonly JsonValue[]) => JsonObject) | undefined;
  /** Times this layout was learned (seen member by member). */
  seen: number;
}

/** Objects with more keys than this get no template (their key sequence is not collected). */
export const LAYOUT_MAX_KEYS = 32;
const MAX_BUILDERS_PER_PARSE = 16;
const MAX_BUILDERS = 4096;
const TEMPLATE_KEY = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

const layouts = new RecentByDepth<Layout>(8);
let enabled = true;
let builtThisParse = 0;
let builtInAll = 0;

function compile(
  keys: readonly string[],
): ((values: readonly JsonValue[]) => JsonObject) | undefined {
  if (!enabled || builtThisParse >= MAX_BUILDERS_PER_PARSE || builtInAll >= MAX_BUILDERS) {
    return undefined;
  }
  try {
    // Keys are printable ASCII without quote or backslash: JSON.stringify quotes them as plain
    // string literals, so the body is one object literal of `v[i]` reads.
    const members = keys.map((k, i) => `${JSON.stringify(k)}:v[${i}]`).join(",");
    const build = new Function("v", `return {${members}};`) as (
      values: readonly JsonValue[],
    ) => JsonObject;
    builtThisParse++;
    builtInAll++;
    return build;
  } catch {
    enabled = false; // no code generation here
    return undefined;
  }
}

/**
 * Turn templates off (`false`) or back on; off, the parser reads every object member by member.
 * For tests and differential checks.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { useLayouts } from "./layout.ts";
 * import { parseJson } from "./parse.ts";
 * const text = '[{"a":1,"b":2},{"a":3,"b":4},{"a":5,"b":6}]';
 * useLayouts(false);
 * const plain = parseJson(text);
 * useLayouts(true);
 * assert.deepEqual(parseJson(text), plain);
 * ```
 */
export function useLayouts(on: boolean): void {
  enabled = on;
  layouts.clear();
}

/** Start of one parse: resets the per-parse budget of generated constructors. */
export function beginParse(): void {
  builtThisParse = 0;
}

/**
 * The templates to try for an object at `depth`, most recent first (slot `way`); undefined past
 * the last one.
 */
export function layoutAt(depth: number, way: number): Layout | undefined {
  return layouts.at(depth, way);
}

/**
 * Note the key sequence of an object parsed member by member at `depth`. The second time a
 * sequence is seen there, it gets a constructor.
 */
export function learnLayout(keys: readonly string[], depth: number): void {
  if (keys.length === 0 || keys.length > LAYOUT_MAX_KEYS || !enabled) return;
  const known = layouts.find(depth, keys);
  if (known !== undefined) {
    if (known.build === undefined && ++known.seen >= 2) known.build = compile(known.keys);
    return;
  }
  for (const k of keys) if (k === "__proto__" || !TEMPLATE_KEY.test(k)) return;
  layouts.add(depth, { keys, build: undefined, seen: 1 });
}
