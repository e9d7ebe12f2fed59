/**
 * Store locations as the surfaces need to handle them before a store is opened: whether a
 * location names a database (so it is not a path to resolve), and how to show it (no password).
 *
 * @module
 */
export { isDatabaseLocation, redact as shownStoreLocation } from "../store/pg_config.ts";
