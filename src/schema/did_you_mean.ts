/**
 * "Did you mean" suggestions for misspelt names (an unknown scenario field, say): the closest
 * candidate by edit distance, when it is close enough to be a likely typo.
 *
 * @module
 */

/**
 * The optimal string alignment distance (Levenshtein plus adjacent transpositions).
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { editDistance } from "./did_you_mean.ts";
 * equal(editDistance("versoin", "version"), 1);
 * equal(editDistance("kitten", "sitting"), 3);
 * ```
 */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.length][b.length];
}

/**
 * The candidate closest to `word` when at most a third of its letters differ (and at most
 * three), else undefined; ties go to the first candidate.
 *
 * @example
 * ```ts
 * import { equal } from "node:assert/strict";
 * import { didYouMean } from "./did_you_mean.ts";
 * equal(didYouMean("treshold", ["threshold", "metric"]), "threshold");
 * equal(didYouMean("colour", ["threshold", "metric"]), undefined);
 * ```
 */
export function didYouMean(word: string, candidates: Iterable<string>): string | undefined {
  const limit = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const distance = editDistance(word.toLowerCase(), c.toLowerCase());
    if (distance <= limit && distance < bestDistance) {
      best = c;
      bestDistance = distance;
    }
  }
  return best;
}
