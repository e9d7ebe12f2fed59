/**
 * The version of empiric.
 *
 * @module
 */

/** Version of this build of empiric (semver). */
export const EMPIRIC_VERSION = "0.1.0";
