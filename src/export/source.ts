/**
 * The default CloudEvents `source` of events empiric's CLI sends (a module of its own: the CLI
 * shows it in `--help` without loading the exporters).
 *
 * @module
 */

/** Default CloudEvents `source`. */
export const DEFAULT_EVENT_SOURCE = "urn:empiric:cli";
