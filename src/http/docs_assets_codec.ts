/**
 * Names and decoding of the embedded Swagger UI files (see `scripts/embed_docs_assets.ts`).
 *
 * @module
 */

/** The files `GET /docs` loads, served under `/docs/assets/<name>`. */
export const DOCS_ASSET_NAMES = ["swagger-ui-bundle.js", "swagger-ui.css"] as const;

/** One embedded file's name. */
export type DocsAssetName = typeof DOCS_ASSET_NAMES[number];

/** Base64 text → bytes. */
export function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const s = atob(text);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

/** Gzip bytes → the original bytes. */
export async function gunzip(bytes: Uint8Array<ArrayBuffer>): Promise<Uint8Array<ArrayBuffer>> {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** An embedded file's base64 gzip text → its original bytes. */
export async function decodeAsset(gzipBase64: string): Promise<Uint8Array<ArrayBuffer>> {
  return await gunzip(fromBase64(gzipBase64));
}
