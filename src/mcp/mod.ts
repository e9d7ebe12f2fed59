/**
 * The empiric MCP tool server (`empiric mcp serve`, docs/mcp.md): six tools and two resource
 * templates over the shared operations, served over stdio, Streamable HTTP or HTTP+SSE to
 * clients of MCP revision 2026-07-28 and of the 2025 revisions.
 *
 * @module
 */
export { createMcpContext, type McpContext, type McpContextOptions } from "./context.ts";
export { createEmpiricMcpServer, empiricServerFactory, SERVER_INFO } from "./server.ts";
export { registerTools } from "./tools.ts";
export { proofUri, registerResources, scenarioUri } from "./resources.ts";
export {
  createMcpHttpHandler,
  type HttpTransportKind,
  MCP_PATH,
  type McpHttpOptions,
  SSE_MESSAGES_PATH,
  SSE_PATH,
} from "./http.ts";
export { SseServerTransport } from "./sse.ts";
export { serveMcpStdio, type StdioServing } from "./serve.ts";
export {
  type HttpServeOptions,
  type HttpServing,
  isLoopbackHost,
  serveMcpHttp,
} from "./serve_http.ts";
