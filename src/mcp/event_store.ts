/**
 * Resumability of Streamable HTTP event streams (2025-era sessions): every message sent on an
 * SSE stream gets an event id and is kept, so a client that loses its stream reconnects with
 * `Last-Event-ID` and receives what it missed. Bounded: the oldest events are dropped beyond
 * {@link MAX_EVENTS} per session.
 *
 * @module
 */
import type { EventStore, JSONRPCMessage } from "@modelcontextprotocol/server";

/** Events kept per session. */
export const MAX_EVENTS = 1000;

/** Milliseconds a client is told to wait before it reconnects (the SSE `retry` field). */
export const SSE_RETRY_MS = 1000;

/**
 * An in-memory event store for one session.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { BoundedEventStore } from "./event_store.ts";
 * const store = new BoundedEventStore(10);
 * const a = await store.storeEvent("s1", { jsonrpc: "2.0", method: "a" });
 * await store.storeEvent("s1", { jsonrpc: "2.0", method: "b" });
 * await store.storeEvent("s2", { jsonrpc: "2.0", method: "c" });
 * const replayed: string[] = [];
 * const stream = await store.replayEventsAfter(a, {
 *   send: (_id, m) => Promise.resolve(void replayed.push((m as { method: string }).method)),
 * });
 * assert.equal(stream, "s1");
 * assert.deepEqual(replayed, ["b"]);
 * ```
 */
export class BoundedEventStore implements EventStore {
  #events = new Map<string, { streamId: string; message: JSONRPCMessage }>();
  #next = 0;
  #max: number;

  constructor(max = MAX_EVENTS) {
    this.#max = max;
  }

  storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const id = `${streamId}_${++this.#next}`;
    this.#events.set(id, { streamId, message });
    while (this.#events.size > this.#max) {
      this.#events.delete(this.#events.keys().next().value!);
    }
    return Promise.resolve(id);
  }

  getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return Promise.resolve(
      this.#events.get(eventId)?.streamId ?? eventId.slice(0, eventId.lastIndexOf("_")),
    );
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const streamId = this.#events.get(lastEventId)?.streamId ??
      lastEventId.slice(0, lastEventId.lastIndexOf("_"));
    const seq = Number(lastEventId.slice(lastEventId.lastIndexOf("_") + 1));
    for (const [id, e] of this.#events) {
      if (e.streamId !== streamId) continue;
      if (Number(id.slice(id.lastIndexOf("_") + 1)) <= seq) continue;
      await send(id, e.message);
    }
    return streamId;
  }
}
