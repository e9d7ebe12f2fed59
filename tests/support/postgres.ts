// A real PostgreSQL server for tests, from Debian's `postgresql` package: initdb into a
// temporary directory as an unprivileged user (`postgres` when the tests run as root),
// listening on 127.0.0.1 only, on a free port, with password (SCRAM) authentication. Each test
// gets its own database. Missing locally: the tests are ignored with the install command; in
// CI (EMPIRIC_REQUIRE_ALL=1) that is a failure.
import postgres from "postgres";
import { peer } from "./peers.ts";

/** The install command printed when PostgreSQL is missing. */
export const POSTGRES_INSTALL = "apt-get install -y postgresql";

const PASSWORD = "empiric-test-password";
const USER = "empiric";

/** Directory holding initdb, pg_ctl and postgres (Debian: /usr/lib/postgresql/<n>/bin). */
export async function postgresBinDir(): Promise<string | undefined> {
  const fromEnv = Deno.env.get("EMPIRIC_PG_BIN");
  const candidates: string[] = fromEnv ? [fromEnv] : [];
  try {
    const versions = [...Deno.readDirSync("/usr/lib/postgresql")].map((e) => e.name)
      .filter((n) => /^\d+$/.test(n)).sort((a, b) => Number(b) - Number(a));
    for (const v of versions) candidates.push(`/usr/lib/postgresql/${v}/bin`);
  } catch {
    // not Debian's layout
  }
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) if (dir) candidates.push(dir);
  for (const dir of candidates) {
    const ok = await Promise.all(
      ["initdb", "pg_ctl", "postgres"].map((b) =>
        Deno.stat(`${dir}/${b}`).then((s) => s.isFile, () => false)
      ),
    );
    if (ok.every(Boolean)) return dir;
  }
  return undefined;
}

/** The user the server runs as when the tests run as root. */
async function serverUser(): Promise<{ name: string; uid: number; gid: number } | undefined> {
  if (Deno.uid() !== 0) return undefined;
  const id = async (flag: string) => {
    const out = await new Deno.Command("id", { args: [flag, "postgres"], stderr: "null" })
      .output();
    return out.success ? Number(new TextDecoder().decode(out.stdout).trim()) : NaN;
  };
  const uid = await id("-u"), gid = await id("-g");
  if (!Number.isFinite(uid)) {
    throw new Error("running as root and no `postgres` user to run the server as");
  }
  return { name: "postgres", uid, gid };
}

/** Whether the PostgreSQL server binaries are installed (a peer: see tests/support/peers.ts). */
export function postgresAvailable(): Promise<boolean> {
  return peer(
    "PostgreSQL (initdb, pg_ctl, postgres)",
    async () =>
      (await postgresBinDir()) !== undefined &&
      (Deno.uid() !== 0 ||
        (await new Deno.Command("id", { args: ["-u", "postgres"], stdout: "null", stderr: "null" })
          .output()).success),
    POSTGRES_INSTALL,
  );
}

/** A running test server. */
export interface PgServer {
  port: number;
  dir: string;
  /** URL of a database on this server (with the password). */
  url(database?: string, query?: string): string;
  /** Create a fresh database and return its URL. */
  database(query?: string): Promise<string>;
  /** Run SQL against a database (the admin connection). */
  sql(database?: string): postgres.Sql;
  /** The server log so far. */
  log(): Promise<string>;
  stop(): Promise<void>;
}

/** Options of {@link startPostgres}. */
export interface StartOptions {
  /** Serve TLS with this certificate and key (PEM text). */
  tls?: { cert: string; key: string };
  /** Extra `-c name=value` settings. */
  settings?: Record<string, string>;
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

async function run(
  cmd: string,
  args: string[],
  user: { name: string } | undefined,
  cwd: string,
): Promise<{ ok: boolean; text: string }> {
  const [program, argv] = user ? ["runuser", ["-u", user.name, "--", cmd, ...args]] : [cmd, args];
  const out = await new Deno.Command(program, {
    args: argv,
    cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const d = new TextDecoder();
  return { ok: out.success, text: d.decode(out.stdout) + d.decode(out.stderr) };
}

let counter = 0;

/** Start a fresh server (initdb + pg_ctl start); `stop()` it when done. */
export async function startPostgres(options: StartOptions = {}): Promise<PgServer> {
  const bin = await postgresBinDir();
  if (!bin) throw new Error(`PostgreSQL is not installed (${POSTGRES_INSTALL})`);
  const user = await serverUser();
  const dir = await Deno.makeTempDir({ prefix: "empiric-pg-" });
  const own = async (path: string) => {
    if (user) await Deno.chown(path, user.uid, user.gid);
  };
  await own(dir);
  await Deno.writeTextFile(`${dir}/pw`, PASSWORD + "\n");
  await own(`${dir}/pw`);
  const init = await run(
    `${bin}/initdb`,
    [
      "-D",
      `${dir}/data`,
      "-U",
      USER,
      "-A",
      "scram-sha-256",
      `--pwfile=${dir}/pw`,
      "-E",
      "UTF8",
      "--locale=C",
      "--no-sync",
      "--no-instructions",
    ],
    user,
    dir,
  );
  if (!init.ok) throw new Error(`initdb failed: ${init.text}`);
  const settings: Record<string, string> = {
    listen_addresses: "127.0.0.1",
    unix_socket_directories: dir,
    fsync: "off",
    synchronous_commit: "off",
    full_page_writes: "off",
    max_connections: "300",
    ...options.settings,
  };
  if (options.tls) {
    await Deno.writeTextFile(`${dir}/server.crt`, options.tls.cert);
    await Deno.writeTextFile(`${dir}/server.key`, options.tls.key);
    await Deno.chmod(`${dir}/server.key`, 0o600);
    await own(`${dir}/server.crt`);
    await own(`${dir}/server.key`);
    // Only TLS connections are accepted over TCP, so a connection that works is encrypted.
    await Deno.writeTextFile(
      `${dir}/data/pg_hba.conf`,
      "local all all trust\n" +
        "hostssl all all 127.0.0.1/32 scram-sha-256\n" +
        "hostnossl all all 127.0.0.1/32 reject\n",
    );
    await own(`${dir}/data/pg_hba.conf`);
    settings.ssl = "on";
    settings.ssl_cert_file = `${dir}/server.crt`;
    settings.ssl_key_file = `${dir}/server.key`;
  }
  let port = 0;
  let started = false;
  let why = "";
  for (let attempt = 0; attempt < 5 && !started; attempt++) {
    port = freePort();
    const opts = Object.entries({ ...settings, port: String(port) })
      .map(([k, v]) => `-c ${k}=${v}`).join(" ");
    const r = await run(
      `${bin}/pg_ctl`,
      [
        "-D",
        `${dir}/data`,
        "-l",
        `${dir}/log`,
        "-w",
        "-t",
        "60",
        "-o",
        opts,
        "start",
      ],
      user,
      dir,
    );
    started = r.ok;
    why = r.text + await Deno.readTextFile(`${dir}/log`).catch(() => "");
  }
  if (!started) throw new Error(`pg_ctl start failed: ${why}`);
  const stopSync = () => {
    const full = user ? ["runuser", "-u", user.name, "--", `${bin}/pg_ctl`] : [`${bin}/pg_ctl`];
    try {
      new Deno.Command(full[0], {
        args: [...full.slice(1), "-D", `${dir}/data`, "-m", "immediate", "-w", "stop"],
        stdout: "null",
        stderr: "null",
      }).outputSync();
    } catch {
      // already stopped
    }
    try {
      Deno.removeSync(dir, { recursive: true });
    } catch {
      // gone
    }
  };
  // A test process that ends without stop() (a failed assertion before it) stops its server.
  globalThis.addEventListener("unload", stopSync);
  const url = (database = "postgres", query = "") =>
    `postgresql://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}${query ? `?${query}` : ""}`;
  const admins: postgres.Sql[] = [];
  const sql = (database = "postgres") => {
    const s = postgres(url(database), {
      max: 2,
      onnotice: () => {},
      ssl: options.tls ? "require" : false,
    });
    admins.push(s);
    return s;
  };
  const admin = sql();
  return {
    port,
    dir,
    url,
    sql,
    async database(query = "") {
      const name = `t${Date.now().toString(36)}_${++counter}`;
      await admin.unsafe(`CREATE DATABASE ${name}`);
      return url(name, query);
    },
    log: () => Deno.readTextFile(`${dir}/log`).catch(() => ""),
    async stop() {
      for (const s of admins) await s.end({ timeout: 1 }).catch(() => {});
      globalThis.removeEventListener("unload", stopSync);
      stopSync();
    },
  };
}

/** Run `f` with a fresh server, stopped afterwards whatever happens. */
export async function withPostgres<T>(
  f: (pg: PgServer) => Promise<T>,
  options: StartOptions = {},
): Promise<T> {
  const pg = await startPostgres(options);
  try {
    return await f(pg);
  } finally {
    await pg.stop();
  }
}
