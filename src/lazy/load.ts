/**
 * Loading a module on first use. `import("./x.ts")` with a literal specifier makes Deno load and
 * prepare `x.ts` and everything it imports before the program starts; a specifier computed at run
 * time does not, so the modules behind a command, an operation or an exporter cost nothing until
 * they are needed (`bench/startup.ts` measures it: `empiric --version` went from 5.6 to 1.4 times
 * an empty Deno script). `deno compile --include src` (deno.json) puts them in the binary.
 *
 * @module
 */

/**
 * Import `specifier`, resolved against `base` (pass `import.meta.url`), when called.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { loadModule } from "./load.ts";
 * const m = await loadModule<typeof import("../version.ts")>("../version.ts", import.meta.url);
 * assert.match(m.EMPIRIC_VERSION, /^\d+\.\d+\.\d+/);
 * ```
 */
export function loadModule<T>(specifier: string, base: string): Promise<T> {
  return import(new URL(specifier, base).href) as Promise<T>;
}
