/**
 * Where a proof event goes, by URL: an HTTP CloudEvents sink (`http://`, `https://`; the HTTP
 * protocol binding) or a NATS JetStream subject (`nats://host:port/subject`; the NATS protocol
 * binding). The NATS client is loaded only for `nats://` URLs.
 *
 * @module
 */
import { UsageError } from "../errors/errors.ts";
// Types only: the CloudEvents SDK and the NATS client load when an event is sent (CLI start-up).
import type { HttpMode, ProofEvent } from "./cloudevents.ts";

/** What a sink answered. */
export type CloudEventDelivery =
  | { readonly transport: "http"; readonly url: string; readonly status: number }
  | {
    readonly transport: "nats";
    readonly url: string;
    readonly stream: string;
    readonly seq: number;
    readonly duplicate: boolean;
  };

/**
 * {@link checkEventsUrl}, and for `nats://` URLs also the server and subject (a missing or
 * wildcard subject is a `usage_error` naming `option`).
 */
export async function checkEventsUrlAsync(url: string, option: string): Promise<"http" | "nats"> {
  const kind = checkEventsUrl(url, option);
  if (kind === "nats") {
    const { parseNatsUrl } = await import("./nats.ts");
    try {
      parseNatsUrl(url);
    } catch (e) {
      throw new UsageError(`${option}: ${(e as Error).message}`);
    }
  }
  return kind;
}

/**
 * The transport of a sink URL: `http` for http(s), `nats` for `nats://`; anything else is a
 * `usage_error` naming `option`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { checkEventsUrl } from "./sink.ts";
 * assert.equal(checkEventsUrl("nats://127.0.0.1:4222/empiric.proofs", "--events-url"), "nats");
 * assert.equal(checkEventsUrl("https://sink.example/events", "--events-url"), "http");
 * assert.throws(() => checkEventsUrl("kafka://broker/topic", "--events-url"));
 * ```
 */
export function checkEventsUrl(url: string, option: string): "http" | "nats" {
  let u: URL | undefined;
  try {
    u = new URL(url);
  } catch {
    // fall through
  }
  if (u?.protocol === "http:" || u?.protocol === "https:") return "http";
  if (u?.protocol === "nats:") return "nats";
  throw new UsageError(
    `${option} needs an http(s) URL or nats://host:port/subject, got ${JSON.stringify(url)}`,
  );
}

/**
 * Send a proof event to the sink of `url` in a content mode (default structured): POST over HTTP,
 * or publish to NATS JetStream and wait for the stream's acknowledgement. Failures are
 * `io_error`s.
 */
export async function sendCloudEvent(
  url: string,
  event: ProofEvent,
  options: { mode?: HttpMode; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<CloudEventDelivery> {
  if (checkEventsUrl(url, "the events URL") === "nats") {
    const { publishNatsCloudEvent, parseNatsUrl } = await import("./nats.ts");
    const ack = await publishNatsCloudEvent(url, event, options);
    return { transport: "nats", url: parseNatsUrl(url).display, ...ack };
  }
  const { postCloudEvent } = await import("./cloudevents.ts");
  const status = await postCloudEvent(url, event, options);
  return { transport: "http", url, status };
}
