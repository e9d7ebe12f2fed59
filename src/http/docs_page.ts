/**
 * `GET /docs`: Swagger UI for `/openapi.json`, with every script and style sheet served by the
 * server itself (embedded in the binary) and a Content-Security-Policy that allows nothing
 * from any other origin, so the page works offline and loads nothing from third parties.
 *
 * @module
 */
import { DOCS_ASSETS, SWAGGER_UI_VERSION } from "./docs_assets.ts";
import { decodeAsset, DOCS_ASSET_NAMES, fromBase64 } from "./docs_assets_codec.ts";

/** Name of the page's own start-up script (inline scripts are forbidden by the CSP). */
export const DOCS_INIT_SCRIPT = "empiric-docs.js";

/** The Content-Security-Policy of the documentation page. */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** The page. Paths are relative, so the API also works behind a path-prefixing proxy. */
export const DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>empiric HTTP API</title>
<link rel="stylesheet" href="docs/assets/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="docs/assets/swagger-ui-bundle.js"></script>
<script src="docs/assets/${DOCS_INIT_SCRIPT}"></script>
</body>
</html>
`;

/** Start-up script: Swagger UI on this server's document, no external validator badge. */
export const DOCS_INIT_JS = `"use strict";
window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null,
    tryItOutEnabled: false,
    presets: [SwaggerUIBundle.presets.apis],
  });
});
`;

const TYPES: Record<string, string> = {
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "swagger-ui.css": "text/css; charset=utf-8",
};

interface Asset {
  gzip: Uint8Array<ArrayBuffer>;
  raw?: Uint8Array<ArrayBuffer>;
}

const cache = new Map<string, Asset>();

/** True when the client accepts gzip (a q=0 refusal counts as not accepting). */
function acceptsGzip(acceptEncoding: string | undefined): boolean {
  if (!acceptEncoding) return false;
  for (const part of acceptEncoding.split(",")) {
    const [coding, ...params] = part.trim().toLowerCase().split(";");
    if (coding !== "gzip" && coding !== "*") continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    return q === undefined || Number(q.slice(2)) > 0;
  }
  return false;
}

/** The response for `/docs/assets/<name>`, or undefined when there is no such file. */
export async function docsAssetResponse(
  name: string,
  acceptEncoding: string | undefined,
): Promise<Response | undefined> {
  const common = {
    "cache-control": "public, max-age=86400",
    "vary": "accept-encoding",
  };
  if (name === DOCS_INIT_SCRIPT) {
    return new Response(DOCS_INIT_JS, {
      headers: { ...common, "content-type": "text/javascript; charset=utf-8" },
    });
  }
  if (!(DOCS_ASSET_NAMES as readonly string[]).includes(name)) return undefined;
  let asset = cache.get(name);
  if (!asset) {
    asset = { gzip: fromBase64(DOCS_ASSETS[name].gzipBase64) };
    cache.set(name, asset);
  }
  const headers: Record<string, string> = {
    ...common,
    "content-type": TYPES[name],
    "etag": `"swagger-ui-dist@${SWAGGER_UI_VERSION}/${DOCS_ASSETS[name].sha256.slice(0, 16)}"`,
  };
  if (acceptsGzip(acceptEncoding)) {
    return new Response(asset.gzip, { headers: { ...headers, "content-encoding": "gzip" } });
  }
  asset.raw ??= await decodeAsset(DOCS_ASSETS[name].gzipBase64);
  return new Response(asset.raw, { headers });
}
