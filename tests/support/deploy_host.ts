/**
 * Deno Deploy, emulated on this machine for end-to-end tests. A front door on 127.0.0.1 (a TCP
 * relay, optionally behind the shipped Varnish as the CDN) starts `deno run -A --preload
 * tests/support/deploy_preload.ts deploy.ts` on Deno 2.5.0 (Deploy's runtime, from `npx --yes
 * deno@2.5.0`) when a connection arrives and none runs, relays to it, and stops it as Deploy
 * does: SIGINT after `idleMs` (5 s) without traffic, SIGKILL `killAfterMs` (5 s) later if it is
 * still alive. `tick()` is a cron tick: SIGUSR1 to the running process, or a fresh process that
 * runs the cron once it has loaded. The processes share one KV file, the app's database.
 *
 * Traffic is what the relay sees: a process is busy while a connection has sent bytes it has
 * not answered yet (HTTP/1.1, one request at a time per connection) or a tick runs in it.
 */
import { clockEnv } from "./process.ts";
import { startVarnish, type TestVarnish } from "./varnish.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const PRELOAD = "tests/support/deploy_preload.ts";
/** Deno Deploy's runtime. */
export const DEPLOY_DENO_VERSION = "2.5.0";
/** The Deno the README pins (`npx --yes deno@2.9.6 task start`). */
export const README_DENO_VERSION = "2.9.6";
/**
 * What a child may inherit from the test's environment: only what finds Deno and its caches (and
 * the test's clock when it runs moved, clockEnv).
 */
const PASSED_ENV = [
  "PATH",
  "HOME",
  "TMPDIR",
  "DENO_DIR",
  "XDG_CACHE_HOME",
  "NPM_CONFIG_REGISTRY",
  "DENO_CERT",
  "DENO_TLS_CA_STORE",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
];

const executables = new Map<string, Promise<string>>();

/**
 * The Deno executable of `version`: this test's own when it is that version, else the binary
 * `npx --yes deno@<version>` runs (resolved once; this also warms npx's cache). The binary is
 * spawned directly so that signals reach Deno, not npx's Node.js.
 */
export function denoExecutable(version: string): Promise<string> {
  if (version === Deno.version.deno) return Promise.resolve(Deno.execPath());
  let found = executables.get(version);
  if (!found) {
    found = (async () => {
      const out = await new Deno.Command("npx", {
        args: ["--yes", `deno@${version}`, "eval", "console.log(Deno.execPath())"],
        stdout: "piped",
        stderr: "piped",
      }).output();
      const path = new TextDecoder().decode(out.stdout).trim().split("\n").at(-1) ?? "";
      if (!out.success || !path) {
        throw new Error(
          `npx --yes deno@${version} failed: ${new TextDecoder().decode(out.stderr)}`,
        );
      }
      return path;
    })();
    executables.set(version, found);
    found.catch(() => executables.delete(version));
  }
  return found;
}

/** One process the host started (an isolate, on Deploy). */
export interface DeployProcess {
  index: number;
  pid: number;
  /** The port it listens on (DEPLOY_TEST_PORT). */
  port: number;
  /** Whether it was started for a cron tick (DEPLOY_TEST_CRON_AT_START=1). */
  forCron: boolean;
  /** Its stdout and stderr, line by line, in arrival order. */
  lines: string[];
  startedAt: number;
  listeningAt?: number;
  sigintAt?: number;
  sigkillAt?: number;
  exitedAt?: number;
  status?: Deno.CommandStatus;
}

export interface DeployHostOptions {
  /** The Deno that runs deploy.ts (default 2.5.0). */
  denoVersion?: string;
  /** Put the shipped Varnish in front as the CDN (BASE_URL and purges go to it). */
  varnish?: boolean;
  /** BASE_URL; default the CDN's URL (or the front door's); null leaves it unset. */
  baseUrl?: string | null;
  /** More environment for every process (DENO_* are set here). */
  env?: Record<string, string>;
  /** Idle time before SIGINT (default 5 s). */
  idleMs?: number;
  /** Time from SIGINT to SIGKILL (default 5 s). */
  killAfterMs?: number;
  /** Longest start, from spawn to listening (default 60 s). */
  startTimeoutMs?: number;
}

export interface DeployHost {
  /** The URL clients use: the CDN's when there is one, else the front door's. */
  url: string;
  /** The front door's URL (Varnish's backend). */
  originUrl: string;
  varnish: TestVarnish | null;
  /** The KV file every process opens as its default database. */
  kvPath: string;
  /** Every process started so far. */
  processes: DeployProcess[];
  /** Every line of every process, in arrival order. */
  lines: string[];
  readonly starts: number;
  readonly sigints: number;
  readonly sigkills: number;
  /** The processes neither signalled nor exited. */
  running(): DeployProcess[];
  /** The first line (from index `from` of `lines`) matching `pattern`, waiting up to `timeoutMs`. */
  waitFor(pattern: RegExp, options?: { from?: number; timeoutMs?: number }): Promise<string>;
  /** Runs the cron once; resolves with the process it ran in and its `cron tick …` lines. */
  tick(): Promise<{ process: DeployProcess; lines: string[] }>;
  /** Ends the idle wait now: SIGINT to every running process; resolves when all have exited. */
  idleNow(): Promise<void>;
  /** Resolves when no process is alive (bounded by `timeoutMs`). */
  allStopped(timeoutMs?: number): Promise<void>;
  /** Stops everything: processes (SIGKILL), the front door, Varnish, the KV directory. */
  stop(): Promise<void>;
  [Symbol.asyncDispose](): Promise<void>;
}

interface Link {
  client: Deno.Conn;
  upstream: Deno.Conn;
  /** The client sent bytes that have not been answered yet. */
  pending: boolean;
}

interface Live {
  info: DeployProcess;
  child: Deno.ChildProcess;
  ready: Promise<void>;
  exited: Promise<void>;
  links: Set<Link>;
  lastActivity: number;
  ticking: number;
  waiters: Set<() => void>;
}

function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** Waits (bounded) until `lines` from `from` holds a line matching `pattern`. */
function waitForLine(
  lines: string[],
  waiters: Set<() => void>,
  pattern: RegExp,
  from: number,
  timeoutMs: number,
  gone?: () => boolean,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const line = lines.slice(from).find((l) => pattern.test(l));
      if (line !== undefined) {
        done();
        resolve(line);
      } else if (gone?.()) {
        done();
        reject(new Error(`The process ended before ${pattern}:\n${lines.join("\n")}`));
      }
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`Timed out waiting for ${pattern}:\n${lines.slice(-60).join("\n")}`));
    }, timeoutMs);
    const done = () => {
      clearTimeout(timer);
      waiters.delete(check);
    };
    waiters.add(check);
    check();
  });
}

/** Starts the front door (and Varnish); no process runs until the first connection or tick. */
export async function startDeployHost(options: DeployHostOptions = {}): Promise<DeployHost> {
  const deno = await denoExecutable(options.denoVersion ?? DEPLOY_DENO_VERSION);
  const idleMs = options.idleMs ?? 5_000;
  const killAfterMs = options.killAfterMs ?? 5_000;
  const startTimeoutMs = options.startTimeoutMs ?? 60_000;
  const dir = await Deno.makeTempDir({ prefix: "deploy-host-" });
  const kvPath = `${dir}/kv.sqlite3`;
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const originUrl = `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`;
  let varnish: TestVarnish | null = null;
  try {
    if (options.varnish) {
      varnish = await startVarnish({ backendPort: (listener.addr as Deno.NetAddr).port });
    }
  } catch (error) {
    listener.close();
    await Deno.remove(dir, { recursive: true });
    throw error;
  }
  const url = varnish?.url ?? originUrl;
  const baseUrl = options.baseUrl === undefined ? url : options.baseUrl;
  const deploymentId = crypto.randomUUID().replaceAll("-", "").slice(0, 12);

  const processes: DeployProcess[] = [];
  const lines: string[] = [];
  const globalWaiters = new Set<() => void>();
  const lives: Live[] = [];
  let current: Live | null = null;
  let stopping = false;

  const alive = (live: Live) => live.info.exitedAt === undefined;
  const serving = (live: Live | null): live is Live =>
    live !== null && alive(live) && live.info.sigintAt === undefined;

  function spawn(forCron: boolean): Live {
    const port = freePort();
    const env: Record<string, string> = {};
    for (const name of PASSED_ENV) {
      const value = Deno.env.get(name);
      if (value !== undefined) env[name] = value;
    }
    Object.assign(env, {
      NO_COLOR: "1",
      DENO_DEPLOY: "true",
      DENO_TIMELINE: "production",
      DENO_DEPLOYMENT_ID: deploymentId,
      DEPLOY_TEST_KV: kvPath,
      DEPLOY_TEST_PORT: String(port),
      ...(varnish ? { DEPLOY_TEST_VARNISH_URL: varnish.url } : {}),
      ...(forCron ? { DEPLOY_TEST_CRON_AT_START: "1" } : {}),
      ...(baseUrl === null ? {} : { BASE_URL: baseUrl }),
      // The emulated app has a database assigned (DEPLOY_TEST_KV) and its operator says so, as
      // the README's checklist asks; tests of the unproven case set it to "" (docs/deploy.md).
      KV_PERSISTENCE: "assigned",
      ...clockEnv(),
      ...options.env,
    });
    const child = new Deno.Command(deno, {
      args: ["run", "-A", "--preload", PRELOAD, "deploy.ts"],
      cwd: ROOT,
      clearEnv: true,
      env,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const info: DeployProcess = {
      index: processes.length,
      pid: child.pid,
      port,
      forCron,
      lines: [],
      startedAt: Date.now(),
    };
    processes.push(info);
    const waiters = new Set<() => void>();
    const notify = () => {
      waiters.forEach((w) => w());
      globalWaiters.forEach((w) => w());
    };
    const pump = async (stream: ReadableStream<Uint8Array>) => {
      let buffer = "";
      for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
        buffer += chunk;
        const parts = buffer.split("\n");
        buffer = parts.pop()!;
        info.lines.push(...parts);
        lines.push(...parts);
        notify();
      }
      if (buffer) {
        info.lines.push(buffer);
        lines.push(buffer);
      }
      notify();
    };
    const pumps = Promise.all([pump(child.stdout), pump(child.stderr)]);
    const live: Live = {
      info,
      child,
      links: new Set(),
      lastActivity: Date.now(),
      ticking: 0,
      waiters,
      ready: Promise.resolve(),
      exited: Promise.resolve(),
    };
    live.exited = (async () => {
      info.status = await child.status;
      info.exitedAt = Date.now();
      await pumps;
      for (const link of live.links) closeLink(link);
      notify();
    })();
    live.ready = waitForLine(
      info.lines,
      waiters,
      /^deploy-emulation: listening \d+/,
      0,
      startTimeoutMs,
      () => !alive(live),
    ).then(() => {
      info.listeningAt = Date.now();
      live.lastActivity = Date.now();
    });
    live.ready.catch(() => {});
    lives.push(live);
    return live;
  }

  function signal(live: Live, name: "SIGINT" | "SIGKILL") {
    if (!alive(live)) return;
    try {
      live.child.kill(name);
    } catch {
      // it has just exited
    }
  }

  /** Deploy's idle stop: SIGINT, then SIGKILL if it outlives `killAfterMs`. */
  function interrupt(live: Live) {
    if (live.info.sigintAt !== undefined || !alive(live)) return;
    live.info.sigintAt = Date.now();
    if (current === live) current = null;
    signal(live, "SIGINT");
    // Idle keep-alive connections would otherwise carry new requests to a stopping process.
    for (const link of live.links) if (!link.pending) closeLink(link);
    const timer = setTimeout(() => {
      if (alive(live)) {
        live.info.sigkillAt = Date.now();
        signal(live, "SIGKILL");
      }
    }, killAfterMs);
    live.exited.then(() => clearTimeout(timer));
  }

  const idleTimer = setInterval(() => {
    const now = Date.now();
    for (const live of lives) {
      if (!serving(live) || live.info.listeningAt === undefined) continue;
      const busy = live.ticking > 0 || [...live.links].some((l) => l.pending);
      if (busy) live.lastActivity = now;
      else if (now - live.lastActivity >= idleMs) interrupt(live);
    }
  }, 100);

  function closeLink(link: Link) {
    for (const conn of [link.client, link.upstream]) {
      try {
        conn.close();
      } catch {
        // already closed
      }
    }
  }

  async function relay(from: Deno.Conn, to: Deno.Conn, onData: () => void) {
    const buffer = new Uint8Array(64 * 1024);
    try {
      while (true) {
        const n = await from.read(buffer);
        if (n === null) break;
        onData();
        let written = 0;
        while (written < n) written += await to.write(buffer.subarray(written, n));
      }
    } catch {
      // a side closed
    }
  }

  /** The process new connections go to: the running one, or a fresh one. */
  async function serveWith(): Promise<Live> {
    if (!serving(current)) current = spawn(false);
    const live = current;
    await live.ready;
    return live;
  }

  async function handle(client: Deno.Conn) {
    let live: Live;
    let upstream: Deno.Conn;
    try {
      live = await serveWith();
      upstream = await Deno.connect({ hostname: "127.0.0.1", port: live.info.port });
    } catch {
      client.close();
      return;
    }
    const link: Link = { client, upstream, pending: false };
    live.links.add(link);
    const touch = () => live.lastActivity = Date.now();
    await Promise.race([
      relay(client, upstream, () => {
        link.pending = true;
        touch();
      }),
      relay(upstream, client, () => {
        link.pending = false;
        touch();
      }),
    ]);
    live.links.delete(link);
    closeLink(link);
  }

  const accepting = (async () => {
    try {
      for await (const conn of listener) {
        if (stopping) conn.close();
        else handle(conn);
      }
    } catch {
      // closed
    }
  })();

  async function tick() {
    let live = serving(current) ? current : null;
    let from = 0;
    if (live) {
      await live.ready;
      live.ticking++;
      from = live.info.lines.length;
      live.child.kill("SIGUSR1");
    } else {
      live = spawn(true);
      current = live;
      live.ticking++;
    }
    try {
      const start = await waitForLine(
        live.info.lines,
        live.waiters,
        /^deploy-emulation: cron tick start \d+/,
        from,
        startTimeoutMs,
        () => !alive(live!),
      );
      const count = Number(start.split(" ")[4]);
      const at = live.info.lines.indexOf(start, from) + 1;
      const ended = () =>
        live!.info.lines.slice(at).filter((l) =>
          /^deploy-emulation: cron tick (done|failed) /.test(l)
        );
      await waitForLine(
        live.info.lines,
        live.waiters,
        /^deploy-emulation: cron tick (done|failed) /,
        at,
        startTimeoutMs,
        () => !alive(live!),
      );
      const deadline = Date.now() + 120_000;
      while (ended().length < count && alive(live) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return { process: live.info, lines: ended() };
    } finally {
      live.ticking--;
      live.lastActivity = Date.now();
    }
  }

  async function allStopped(timeoutMs = 30_000) {
    const deadline = Date.now() + timeoutMs;
    while (lives.some(alive)) {
      if (Date.now() > deadline) throw new Error("A process is still alive");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  let stopped: Promise<void> | undefined;
  const stop = () => {
    stopped ??= (async () => {
      stopping = true;
      clearInterval(idleTimer);
      listener.close();
      await accepting;
      for (const live of lives) signal(live, "SIGKILL");
      await Promise.all(lives.map((live) => live.exited));
      await varnish?.stop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    })();
    return stopped;
  };

  return {
    url,
    originUrl,
    varnish,
    kvPath,
    processes,
    lines,
    get starts() {
      return processes.length;
    },
    get sigints() {
      return processes.filter((p) => p.sigintAt !== undefined).length;
    },
    get sigkills() {
      return processes.filter((p) => p.sigkillAt !== undefined).length;
    },
    running: () => lives.filter(serving).map((live) => live.info),
    waitFor: (pattern, opts = {}) =>
      waitForLine(lines, globalWaiters, pattern, opts.from ?? 0, opts.timeoutMs ?? 30_000),
    tick,
    async idleNow() {
      for (const live of lives) if (serving(live)) interrupt(live);
      await allStopped(killAfterMs + 5_000);
    },
    allStopped,
    stop,
    [Symbol.asyncDispose]: stop,
  };
}
