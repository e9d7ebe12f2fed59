// Baselines of bench/http.ts, each a bare Deno.serve handler with no framework, no logging,
// no validation and no headers beyond Content-Type. Prints "listening <port>" on stdout.
//
//   deno run --allow-net bench/http_bare.ts [port]
//     reads the request body (if any) and answers a fixed small JSON object;
//   deno run --allow-net --allow-read bench/http_bare.ts <port> <key file>
//     the least a server can do to answer POST /verify: JSON.parse the body, verify its
//     `proof_json` with verifyProofImpl, answer the result. Its rate is the ceiling any Deno
//     HTTP server verifying this record on the same cores could reach.
import { verifyProofImpl } from "../src/ops/verify_proof.ts";

const port = Number(Deno.args[0] ?? 0);
const keyFile = Deno.args[1];
const key = keyFile === undefined ? undefined : await Deno.readFile(keyFile);
const body = '{"status":"ok"}';
const decoder = new TextDecoder();
const json = { headers: { "content-type": "application/json" } };

Deno.serve({
  hostname: "127.0.0.1",
  port,
  onListen: ({ port }) => console.log(`listening ${port}`),
}, async (req) => {
  if (key !== undefined && req.method === "POST") {
    const envelope = JSON.parse(decoder.decode(await req.arrayBuffer()));
    return new Response(JSON.stringify(await verifyProofImpl(envelope.proof_json, { key })), json);
  }
  if (req.body) await req.arrayBuffer();
  return new Response(body, json);
});
