// Baseline of bench/http.ts: a bare Deno.serve handler that only reads the request body and
// answers a fixed small JSON object. Prints "listening <port>" on stdout.
//
//   deno run --allow-net bench/http_bare.ts [port]
const port = Number(Deno.args[0] ?? 0);
const body = '{"status":"ok"}';
Deno.serve({
  hostname: "127.0.0.1",
  port,
  onListen: ({ port }) => console.log(`listening ${port}`),
}, async (req) => {
  if (req.body) await req.arrayBuffer();
  return new Response(body, { headers: { "content-type": "application/json" } });
});
