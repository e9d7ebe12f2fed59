/**
 * `http://` and `https://` substrates: each input is POSTed as JSON; the JSON response body is
 * the result.
 *
 * @module
 */
import { canonicalize } from "../json/canonical.ts";
import { parseJson } from "../json/parse.ts";
import type { JsonValue } from "../json/value.ts";
import { statelessLanes, type Substrate, SubstrateCallError } from "./types.ts";

/** Open an HTTP substrate at `url`, using the given `fetch`. */
export function openHttpSubstrate(url: string, fetchImpl: typeof fetch = fetch): Substrate {
  const host = (() => {
    try {
      return new URL(url).host;
    } catch {
      return url;
    }
  })();
  return {
    spec: url,
    defaultName: host,
    lanes: (n) => statelessLanes(n, call),
    close: () => Promise.resolve(),
  };
  async function call(input: JsonValue, signal: AbortSignal): Promise<JsonValue> {
    let res: Response;
    try {
      res = await fetchImpl(url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: canonicalize(input),
        signal,
      });
    } catch (e) {
      if (signal.aborted) {
        throw new SubstrateCallError("timeout", "no response before the timeout");
      }
      throw new SubstrateCallError("error", `request failed: ${(e as Error).message}`);
    }
    const text = await res.text().catch(() => "");
    if (!res.ok) {
      throw new SubstrateCallError("http_error", `HTTP ${res.status} ${res.statusText}`.trim());
    }
    try {
      return parseJson(text);
    } catch (e) {
      throw new SubstrateCallError(
        "invalid_response",
        `response is not JSON: ${(e as Error).message}`,
      );
    }
  }
}
