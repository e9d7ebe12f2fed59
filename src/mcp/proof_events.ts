/**
 * "Proofs were added" for the MCP server's subscribers: fired when a run of this server stores
 * a record, and found by polling the store's index (cheap: one COUNT) while anyone listens, so
 * records that other processes add (the CLI, another server on the same store) are announced
 * too.
 *
 * @module
 */
import { invoke, type OpHost, readProofIndexOp } from "../ops/mod.ts";

/** How often the store is polled while someone listens (ms). */
export const PROOF_POLL_MS = 2000;

/**
 * A small event source with a store poller that runs only while it has listeners.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { ProofEvents } from "./proof_events.ts";
 * import { createOpHost } from "../ops/mod.ts";
 * import { denoOpsEnvironment } from "../ops/deno_env.ts";
 * const host = createOpHost({ caller: "local", env: await denoOpsEnvironment() });
 * const events = new ProofEvents(host, 0);
 * let seen = 0;
 * const off = events.listen(() => seen++);
 * events.added();
 * off();
 * events.added();
 * assert.equal(seen, 1);
 * ```
 */
export class ProofEvents {
  #host: OpHost;
  #pollMs: number;
  #listeners = new Set<() => void>();
  #timer: ReturnType<typeof setInterval> | undefined;
  #lastTotal: number | undefined;
  #polling = false;

  /** `pollMs` 0: no polling (only {@link added} announces). */
  constructor(host: OpHost, pollMs = PROOF_POLL_MS) {
    this.#host = host;
    this.#pollMs = pollMs;
  }

  /** Call `f` whenever proofs are added; returns the function that stops it. */
  listen(f: () => void): () => void {
    this.#listeners.add(f);
    this.#startPolling();
    return () => {
      this.#listeners.delete(f);
      if (this.#listeners.size === 0) this.#stopPolling();
    };
  }

  /** Announce that proofs were added (and note the new count, so the poller stays quiet). */
  added(): void {
    this.#lastTotal = undefined;
    for (const f of [...this.#listeners]) {
      try {
        f();
      } catch {
        // a listener whose connection is gone
      }
    }
    void this.#count().then((n) => (this.#lastTotal = n ?? this.#lastTotal));
  }

  /** Stop polling and forget every listener. */
  close(): void {
    this.#listeners.clear();
    this.#stopPolling();
  }

  #startPolling(): void {
    if (this.#timer !== undefined || this.#pollMs <= 0 || !this.#host.storeLocation) return;
    this.#timer = setInterval(() => void this.#poll(), this.#pollMs);
    Deno.unrefTimer(this.#timer);
  }

  #stopPolling(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#lastTotal = undefined;
  }

  async #count(): Promise<number | undefined> {
    try {
      return (await invoke(readProofIndexOp, { limit: 1 }, this.#host)).total ?? undefined;
    } catch {
      return undefined; // no usable store: nothing to announce
    }
  }

  async #poll(): Promise<void> {
    if (this.#polling) return;
    this.#polling = true;
    try {
      const n = await this.#count();
      if (n === undefined) return;
      const before = this.#lastTotal;
      this.#lastTotal = n;
      if (before !== undefined && n > before) {
        for (const f of [...this.#listeners]) {
          try {
            f();
          } catch {
            // a listener whose connection is gone
          }
        }
      }
    } finally {
      this.#polling = false;
    }
  }
}
