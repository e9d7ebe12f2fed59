/**
 * Reference substrates shipped with empiric, so that built-in scenarios run offline.
 *
 * - `builtin:echo`: returns the input with its canonical SHA-256 (real hashing work per call).
 * - `builtin:calculator`: evaluates `{expression}` exactly (+ - * / and parentheses over ints).
 * - `builtin:keyword-sentiment`: labels `{text}` positive or negative by counting keywords; it
 *   ignores negation, which is why the `sentiment-accuracy` claim is refuted.
 *
 * @module
 */
import { canonicalize } from "../json/canonical.ts";
import { isJsonObject, type JsonValue } from "../json/value.ts";
import { sha256Hex } from "../crypto/hash.ts";
import { statelessLanes, type Substrate, SubstrateCallError } from "./types.ts";

type Handler = (input: JsonValue) => JsonValue | Promise<JsonValue>;

const encoder = new TextEncoder();

/** Exact rational arithmetic over bigints. */
interface Rational {
  n: bigint;
  d: bigint;
}

function gcd(a: bigint, b: bigint): bigint {
  a = a < 0n ? -a : a;
  b = b < 0n ? -b : b;
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

function norm(n: bigint, d: bigint): Rational {
  if (d === 0n) throw new SubstrateCallError("error", "division by zero");
  if (d < 0n) [n, d] = [-n, -d];
  const g = gcd(n, d) || 1n;
  return { n: n / g, d: d / g };
}

/**
 * Evaluate an arithmetic expression exactly; an int when the result is whole, else a float.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { evaluateExpression } from "./builtin.ts";
 * assert.equal(evaluateExpression("(7 - 2) * 3"), 15n);
 * assert.equal(evaluateExpression("1 / 4"), 0.25);
 * ```
 */
export function evaluateExpression(expr: string): bigint | number {
  const tokens = expr.match(/\d+|[-+*/()]|\S/g) ?? [];
  let i = 0;
  const peek = () => tokens[i];
  const expect = (t: string) => {
    if (tokens[i] !== t) throw new SubstrateCallError("error", `expected '${t}' at token ${i + 1}`);
    i++;
  };
  const primary = (): Rational => {
    const t = tokens[i++];
    if (t === undefined) throw new SubstrateCallError("error", "unexpected end of expression");
    if (t === "(") {
      const v = sum();
      expect(")");
      return v;
    }
    if (t === "-") {
      const v = primary();
      return { n: -v.n, d: v.d };
    }
    if (/^\d+$/.test(t)) return { n: BigInt(t), d: 1n };
    throw new SubstrateCallError("error", `unexpected '${t}'`);
  };
  const product = (): Rational => {
    let v = primary();
    while (peek() === "*" || peek() === "/") {
      const op = tokens[i++];
      const r = primary();
      v = op === "*" ? norm(v.n * r.n, v.d * r.d) : norm(v.n * r.d, v.d * r.n);
    }
    return v;
  };
  const sum = (): Rational => {
    let v = product();
    while (peek() === "+" || peek() === "-") {
      const op = tokens[i++];
      const r = product();
      v = norm(op === "+" ? v.n * r.d + r.n * v.d : v.n * r.d - r.n * v.d, v.d * r.d);
    }
    return v;
  };
  const v = sum();
  if (i !== tokens.length) throw new SubstrateCallError("error", `unexpected '${tokens[i]}'`);
  return v.d === 1n ? v.n : Number(v.n) / Number(v.d);
}

const POSITIVE = new Set([
  "great",
  "excellent",
  "love",
  "perfect",
  "reliable",
  "fast",
  "happy",
  "recommend",
  "sturdy",
  "delightful",
  "good",
]);
const NEGATIVE = new Set([
  "terrible",
  "broken",
  "slow",
  "refund",
  "disappointed",
  "awful",
  "poor",
  "waste",
  "flimsy",
  "useless",
  "bad",
]);

/**
 * Keyword sentiment: more positive than negative keywords (ties included) is `positive`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { keywordSentiment } from "./builtin.ts";
 * assert.equal(keywordSentiment("This kettle is awful and broken."), "negative");
 * ```
 */
export function keywordSentiment(text: string): "positive" | "negative" {
  let score = 0;
  for (const w of text.toLowerCase().match(/[a-z]+/g) ?? []) {
    if (POSITIVE.has(w)) score++;
    else if (NEGATIVE.has(w)) score--;
  }
  return score >= 0 ? "positive" : "negative";
}

function field(input: JsonValue, name: string): string {
  if (!isJsonObject(input) || typeof input[name] !== "string") {
    throw new SubstrateCallError("error", `input must be an object with a string "${name}"`);
  }
  return input[name] as string;
}

const HANDLERS: Record<string, { description: string; handler: Handler }> = {
  echo: {
    description: "returns {echo: input, sha256: SHA-256 of the input's canonical form}",
    handler: async (input) => ({
      echo: input,
      sha256: await sha256Hex(encoder.encode(canonicalize(input))),
    }),
  },
  calculator: {
    description: "evaluates {expression} exactly: {answer}",
    handler: (input) => ({ answer: evaluateExpression(field(input, "expression")) }),
  },
  "keyword-sentiment": {
    description: "labels {text} positive or negative by keywords: {label}",
    handler: (input) => ({ label: keywordSentiment(field(input, "text")) }),
  },
};

/** Names and descriptions of the built-in substrates. */
export function builtinSubstrates(): { name: string; description: string }[] {
  return Object.entries(HANDLERS).map(([name, h]) => ({ name, description: h.description }));
}

/** Open `builtin:<name>`; undefined if there is no such built-in. */
export function openBuiltinSubstrate(name: string): Substrate | undefined {
  const h = HANDLERS[name];
  if (!h) return undefined;
  return {
    spec: `builtin:${name}`,
    defaultName: name,
    lanes: (n) => statelessLanes(n, async (input) => await h.handler(input)),
    close: () => Promise.resolve(),
  };
}
