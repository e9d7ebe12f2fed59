/**
 * Build stamp. The release workflow rewrites this file with the commit being built, so a
 * compiled binary knows its `empiric_git_commit` without git. Empty in source checkouts, where
 * the commit is read with git at run time.
 *
 * @module
 */

/** The commit a release binary was built from ("" when running from source). */
export const BUILD_COMMIT: string = "";
