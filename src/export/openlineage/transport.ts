/**
 * Sending OpenLineage events to a lineage collector over HTTP, one POST per event.
 *
 * @module
 */
import { tracedFetch } from "../../telemetry/http.ts";
import { IoError } from "../../errors/errors.ts";
import { type OpenLineageEvent, openLineageEventJson } from "./builders.ts";

/** Options of {@link postOpenLineageEvent}. */
export interface LineagePostOptions {
  fetch?: typeof fetch;
  /** Sent as `Authorization: Bearer <apiKey>` (as the OpenLineage clients do). */
  apiKey?: string;
  headers?: Record<string, string>;
  /** Give up after this many milliseconds (default 10 000). */
  timeoutMs?: number;
}

/**
 * POST one event as JSON to a collector (for Marquez: `http://host:5000/api/v1/lineage`; the
 * URL is used as given). Resolves with the status; non-2xx or no answer is an `io_error`.
 * The request is made in an OpenTelemetry CLIENT span whose W3C `traceparent` it carries
 * (docs/telemetry.md).
 */
export async function postOpenLineageEvent(
  url: string,
  event: OpenLineageEvent,
  options: LineagePostOptions = {},
): Promise<number> {
  let res: Response;
  try {
    res = await tracedFetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
        ...options.headers,
      },
      body: openLineageEventJson(event),
      signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
    }, {
      fetch: options.fetch,
      attributes: {
        "openlineage.event_type": event.eventType,
        "openlineage.run_id": event.run.runId,
      },
    });
  } catch (e) {
    throw new IoError(
      "io_error",
      `cannot POST the OpenLineage ${event.eventType} event to ${url}: ${(e as Error).message}`,
      { cause: e },
    );
  }
  await res.body?.cancel();
  if (!res.ok) {
    throw new IoError(
      "io_error",
      `the lineage collector ${url} answered ${res.status} to the ${event.eventType} event`,
    );
  }
  return res.status;
}
