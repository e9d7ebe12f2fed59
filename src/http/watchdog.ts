/**
 * Deadlines for many concurrent operations on one timer: a request body read registers a
 * deadline and unregisters it when done, a few object operations, instead of a timer and a
 * promise race per request (measured at 2 to 5 µs on the `/verify` path). When a deadline
 * passes, its callback runs (the body reader is cancelled, which wakes the read). The one timer
 * is armed for the earliest deadline, and keeps the process alive only while a deadline is
 * pending.
 *
 * @module
 */

/** The clock and timer a {@link Watchdog} uses (injectable for tests). */
export interface WatchdogClock {
  /** Milliseconds on a monotonic clock. */
  now(): number;
  /** Call `fn` after `ms` milliseconds; returns a handle. The call must not keep the process alive. */
  schedule(fn: () => void, ms: number): unknown;
  /** Cancel a scheduled call. */
  cancel(handle: unknown): void;
  /** Whether a scheduled call keeps the process alive. */
  keepAlive(handle: unknown, yes: boolean): void;
}

const systemClock: WatchdogClock = {
  now: () => performance.now(),
  schedule(fn, ms) {
    const timer = setTimeout(fn, ms);
    Deno.unrefTimer(timer);
    return timer;
  },
  cancel: (handle) => clearTimeout(handle as number),
  keepAlive: (handle, yes) =>
    yes ? Deno.refTimer(handle as number) : Deno.unrefTimer(handle as number),
};

/** A registered deadline. */
export interface Watch {
  /** Whether the deadline passed (and its callback ran) before `done`. */
  readonly expired: boolean;
  /** The operation finished: forget the deadline. */
  done(): void;
}

interface Entry extends Watch {
  due: number;
  expired: boolean;
  onExpire(): void;
}

/**
 * Many deadlines, one timer.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { Watchdog } from "./watchdog.ts";
 * const dog = new Watchdog();
 * const stream = new ReadableStream({ pull: () => new Promise<void>(() => {}) }); // never sends
 * const reader = stream.getReader();
 * const watch = dog.watch(20, () => void reader.cancel());
 * try {
 *   const { done } = await reader.read(); // woken by the cancel
 *   assert.ok(done);
 *   assert.ok(watch.expired);
 * } finally {
 *   watch.done();
 * }
 * ```
 */
export class Watchdog {
  readonly #clock: WatchdogClock;
  readonly #pending = new Set<Entry>();
  #timer: unknown;
  #armedFor = Infinity;

  constructor(clock: WatchdogClock = systemClock) {
    this.#clock = clock;
  }

  /** How many deadlines are pending. */
  get pending(): number {
    return this.#pending.size;
  }

  /**
   * Register a deadline `ms` from now. When it passes first, `expired` turns true and
   * `onExpire` runs (e.g. cancelling the read it watches, so the reader wakes up).
   */
  watch(ms: number, onExpire: () => void): Watch {
    const entry: Entry = {
      due: this.#clock.now() + ms,
      expired: false,
      onExpire,
      done: () => this.#forget(entry),
    };
    this.#pending.add(entry);
    if (entry.due < this.#armedFor) this.#arm(entry.due);
    else if (this.#pending.size === 1) this.#clock.keepAlive(this.#timer, true);
    return entry;
  }

  #forget(entry: Entry): void {
    const pending = this.#pending;
    if (pending.delete(entry) && pending.size === 0 && this.#timer !== undefined) {
      // Nothing to wait for: the timer may still fire (and find nothing) but holds nobody up.
      this.#clock.keepAlive(this.#timer, false);
    }
  }

  #arm(due: number): void {
    if (this.#timer !== undefined) this.#clock.cancel(this.#timer);
    this.#armedFor = due;
    this.#timer = this.#clock.schedule(
      () => this.#fire(),
      Math.max(1, Math.ceil(due - this.#clock.now())),
    );
    this.#clock.keepAlive(this.#timer, true);
  }

  #fire(): void {
    this.#timer = undefined;
    this.#armedFor = Infinity;
    const now = this.#clock.now();
    let next = Infinity;
    for (const entry of this.#pending) {
      if (entry.due <= now) {
        this.#pending.delete(entry);
        entry.expired = true;
        entry.onExpire();
      } else if (entry.due < next) {
        next = entry.due;
      }
    }
    if (next !== Infinity) this.#arm(next);
  }
}
