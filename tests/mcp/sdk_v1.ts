// The 1.x SDK client (the generation most deployed agents embed: 2025-11-25 `initialize`
// handshake), typed through the extensionless subpaths (the `.js` subpaths type as `any` under
// Deno; typescript-sdk issue #2701).
// @ts-types="@modelcontextprotocol/sdk/client"
export { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
export { StdioClientTransport as StdioClientTransportV1 } from "@modelcontextprotocol/sdk/client/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/client/sse"
export { SSEClientTransport as SSEClientTransportV1 } from "@modelcontextprotocol/sdk/client/sse.js";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
export { StreamableHTTPClientTransport as StreamableHTTPClientTransportV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
export { LATEST_PROTOCOL_VERSION as V1_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
