// A real NATS server with JetStream (Debian's `nats-server`) for the CloudEvents stream tests:
// each test starts its own on 127.0.0.1 with a free port and a temporary store directory.
import { peer } from "./peers.ts";
import { freePort } from "./otelcol.ts";

/** Whether `nats-server` is installed (ignored with the install command when not; CI requires it). */
export function natsServerAvailable(): Promise<boolean> {
  return peer(
    "nats-server",
    async () => {
      try {
        return (await new Deno.Command("nats-server", {
          args: ["--version"],
          stdout: "null",
          stderr: "null",
        }).output()).success;
      } catch {
        return false;
      }
    },
    "apt-get install -y nats-server",
  );
}

/** A running NATS server. */
export interface NatsServer {
  /** `127.0.0.1:<port>`. */
  readonly server: string;
  readonly port: number;
  /** Stop it and remove its store. */
  close(): Promise<void>;
}

/** Start `nats-server -js` on a free loopback port (optionally with a user and password). */
export async function startNatsServer(auth?: { user: string; pass: string }): Promise<NatsServer> {
  const dir = await Deno.makeTempDir({ prefix: "empiric-nats-" });
  const port = freePort();
  const proc = new Deno.Command("nats-server", {
    args: [
      "-js",
      "-a",
      "127.0.0.1",
      "-p",
      String(port),
      "-sd",
      dir,
      ...(auth ? ["--user", auth.user, "--pass", auth.pass] : []),
    ],
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let log = "";
  const logDone = (async () => {
    const dec = new TextDecoder();
    for await (const c of proc.stderr) log += dec.decode(c, { stream: true });
  })();
  const close = async () => {
    try {
      proc.kill("SIGTERM");
    } catch { /* gone */ }
    await proc.status;
    await logDone;
    await Deno.remove(dir, { recursive: true }).catch(() => undefined);
  };
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      const c = await Deno.connect({ hostname: "127.0.0.1", port });
      c.close();
      break;
    } catch {
      if (Date.now() > deadline) {
        await close();
        throw new Error(`nats-server did not listen on 127.0.0.1:${port}:\n${log}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return { server: `127.0.0.1:${port}`, port, close };
}
