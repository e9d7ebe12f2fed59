// The request logger: JSON lines, batched into writes that each end a line and stay within
// PIPE_BUF (so workers sharing one pipe never interleave inside a line).
import assert from "node:assert/strict";
import { jsonLineLogger, MAX_WRITE_BYTES } from "../../src/http/log.ts";

const decoder = new TextDecoder();

function recording() {
  const writes: Uint8Array[] = [];
  return { writes, write: (b: Uint8Array) => void writes.push(b.slice()) };
}

Deno.test("log: unbatched entries are written at once, with ts and level", () => {
  const r = recording();
  const log = jsonLineLogger(r.write, { batch: false, fields: { worker: 2 } });
  log.log({ msg: "hello", n: 1 });
  assert.equal(r.writes.length, 1);
  const entry = JSON.parse(decoder.decode(r.writes[0]));
  assert.equal(entry.msg, "hello");
  assert.equal(entry.level, "info");
  assert.equal(entry.worker, 2);
  assert.match(entry.ts, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
});

Deno.test("log: batched lines come out whole, in order, each write within PIPE_BUF", () => {
  const r = recording();
  const log = jsonLineLogger(r.write);
  // Multi-byte text: three bytes per "€", so counting UTF-16 units would overrun the limit.
  const lines: string[] = [];
  for (let i = 0; i < 200; i++) {
    const line = JSON.stringify({ msg: "request", i, note: "€".repeat(i % 37) });
    lines.push(line);
    log.line(line);
  }
  assert.equal(r.writes.length, 0, "nothing written before a flush");
  log.flush();
  assert.ok(r.writes.length > 1);
  for (const w of r.writes) {
    assert.ok(w.length <= MAX_WRITE_BYTES, `a write of ${w.length} bytes`);
    assert.equal(w[w.length - 1], 10, "each write ends a line");
  }
  assert.deepEqual(r.writes.map((w) => decoder.decode(w)).join("").split("\n"), [...lines, ""]);
  const count = r.writes.length;
  log.flush();
  assert.equal(r.writes.length, count, "an empty flush writes nothing");
});

Deno.test("log: a line longer than PIPE_BUF is written on its own, whole", () => {
  const r = recording();
  const log = jsonLineLogger(r.write);
  const long = JSON.stringify({ msg: "x".repeat(3 * MAX_WRITE_BYTES) });
  log.line('{"msg":"a"}');
  log.line(long);
  log.line('{"msg":"b"}');
  log.flush();
  const text = r.writes.map((w) => decoder.decode(w));
  assert.deepEqual(text, ['{"msg":"a"}\n', `${long}\n`, '{"msg":"b"}\n']);
});

Deno.test("log: 256 pending lines are written without waiting for the timer", () => {
  const r = recording();
  const log = jsonLineLogger(r.write);
  for (let i = 0; i < 256; i++) log.line(`{"msg":"m","i":${i}}`);
  const n = r.writes.reduce((s, w) => s + decoder.decode(w).split("\n").length - 1, 0);
  assert.equal(n, 256);
});

Deno.test("log: a closed standard error loses the lines quietly", () => {
  const log = jsonLineLogger(() => {
    throw new Error("closed");
  }, { batch: false });
  log.log({ msg: "lost" });
});
