/**
 * Call deadlines on one timer. Arming and clearing a timer for every call costs a substrate call
 * about 0.15 ms of latency in Deno (measured by bench/run.ts against a plain pipe driver); here a
 * single timer is armed for the earliest deadline and re-armed only when it fires, so a run of
 * sequential calls touches the timer about once per timeout period.
 *
 * @module
 */

interface Entry {
  deadline: number;
  fire: () => void;
}

/** Deadlines sharing one timer; `now` is the caller's monotonic clock in milliseconds. */
export class Deadlines {
  #entries = new Set<Entry>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  #armedFor = Infinity;
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  /**
   * Call `fire` once `ms` milliseconds have passed, unless the returned function is called first.
   *
   * @example
   * ```ts
   * import { Deadlines } from "./deadlines.ts";
   * import assert from "node:assert/strict";
   * const d = new Deadlines(() => performance.now());
   * let fired = 0;
   * const cancel = d.add(5, () => fired++);
   * d.add(10, () => fired++);
   * cancel();
   * await new Promise((r) => setTimeout(r, 40));
   * assert.equal(fired, 1);
   * d.close();
   * ```
   */
  add(ms: number, fire: () => void): () => void {
    const e: Entry = { deadline: this.#now() + ms, fire };
    this.#entries.add(e);
    if (e.deadline < this.#armedFor) this.#arm(e.deadline);
    return () => {
      this.#entries.delete(e);
    };
  }

  #arm(at: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#armedFor = at;
    this.#timer = setTimeout(() => this.#tick(), Math.max(0, at - this.#now()));
  }

  #tick(): void {
    this.#timer = undefined;
    this.#armedFor = Infinity;
    const t = this.#now();
    let next = Infinity;
    for (const e of [...this.#entries]) {
      if (e.deadline <= t) {
        this.#entries.delete(e);
        e.fire();
      } else if (e.deadline < next) next = e.deadline;
    }
    if (next < Infinity) this.#arm(next);
  }

  /** Drop every deadline and the timer. */
  close(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#armedFor = Infinity;
    this.#entries.clear();
  }
}
