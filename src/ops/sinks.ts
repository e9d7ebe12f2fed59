/**
 * Where records can be sent (CloudEvents sinks: HTTP or NATS JetStream), as the surfaces check
 * the URLs they are given before anything runs.
 *
 * @module
 */
export { checkEventsUrl, checkEventsUrlAsync } from "../export/sink.ts";
