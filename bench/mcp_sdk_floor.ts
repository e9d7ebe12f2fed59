// The floor under `mcp serve → initialize` in bench/startup.ts: the MCP SDK alone (an McpServer
// with no tools, served over empiric's stdio transport) answering `initialize`. What empiric
// adds on top is the ratio between the two rows.
import { McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { LineTransport } from "../src/mcp/stdio.ts";

const transport = new LineTransport({
  input: Deno.stdin.readable,
  write: async (bytes) => {
    let off = 0;
    while (off < bytes.length) off += await Deno.stdout.write(bytes.subarray(off));
  },
  log: () => {},
});
serveStdio(() => new McpServer({ name: "floor", version: "1" }, { capabilities: { tools: {} } }), {
  transport,
});
await transport.closed;
