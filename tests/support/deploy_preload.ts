/**
 * Deno Deploy around a local process: preloaded before deploy.ts
 * (`deno run -A --preload tests/support/deploy_preload.ts deploy.ts`), it gives the program what
 * Deploy gives it and takes away what Deploy does not offer. tests/support/deploy_host.ts starts
 * such processes on demand, as Deploy starts isolates.
 *
 * - `Deno.openKv()` without an argument opens the file named by `DEPLOY_TEST_KV` (Deploy: the
 *   app's assigned database); calls with an argument are unchanged.
 * - No KV queue and no watch (tests/support/no_kv_queues.ts), and no raw TCP to 443, 25, 465 or
 *   587 (tests/support/refuse_raw_connect.ts: `Deno.connect` there throws
 *   `Deno.errors.PermissionDenied`).
 * - `Deno.serve` listens on 127.0.0.1 and the port in `DEPLOY_TEST_PORT`, whatever the program
 *   asks for (Deploy ignores the port too), and says so on stderr
 *   (`deploy-emulation: listening <port>`).
 * - `fetch("http://cache.localhost/invalidate/http", { body: '{"tags":[…]}' })`, Deploy's CDN
 *   purge, becomes `PURGE /` with `xkey-purge: <tags>` to the Varnish at
 *   `DEPLOY_TEST_VARNISH_URL`; the program gets Varnish's status, and a 200 is logged as
 *   `deploy-emulation: purge acknowledged <tags> <epoch ms>`. Without a Varnish it is
 *   acknowledged at once (200), as a CDN that holds nothing.
 * - `Deno.cron` is registered with the runtime (which checks the name and schedule as Deploy
 *   does) but its wall-clock ticks are ignored: ticks come from the host. On SIGUSR1, and once
 *   after the entry module has run when `DEPLOY_TEST_CRON_AT_START=1`, every registered handler
 *   runs once; each logs `deploy-emulation: cron tick done <name> <epoch ms>` when it resolves
 *   (`… cron tick failed <name> <epoch ms> <error>` when it throws).
 * - With `DEPLOY_TEST_PROBE_CONNECT=1`, once the entry module has run, it tries `Deno.connect` to
 *   127.0.0.1 on each refused port and logs `deploy-emulation: connect probe <port> refused` (or
 *   `… not refused <error>`), so a test sees the refusal is in force in the process it runs.
 *
 * Every line it writes goes to stderr and starts with `deploy-emulation: `.
 */
import "./no_kv_queues.ts";
import "./refuse_raw_connect.ts";

const PREFIX = "deploy-emulation:";
const log = (line: string) => console.error(`${PREFIX} ${line}`);
const deno = Deno as unknown as Record<string, unknown>;

/** Replaces `Deno[name]` (a plain property on Deno 2.5, a lazy getter on later versions). */
function replace(name: string, value: unknown) {
  Object.defineProperty(Deno, name, { value, writable: true, configurable: true });
}

// The assigned database.
const openKv = Deno.openKv;
replace("openKv", (path?: string) => {
  const assigned = Deno.env.get("DEPLOY_TEST_KV");
  if (path === undefined && !assigned) {
    throw new Error("DEPLOY_TEST_KV must name the file of the app's database");
  }
  return openKv(path ?? assigned);
});

// The address Deploy routes to.
const serve = deno.serve as (...args: unknown[]) => Deno.HttpServer;
replace("serve", (...args: unknown[]) => {
  const port = Number(Deno.env.get("DEPLOY_TEST_PORT"));
  if (!Number.isInteger(port) || port <= 0) throw new Error("DEPLOY_TEST_PORT must be a port");
  let options: Record<string, unknown>;
  let handler: unknown;
  if (typeof args[0] === "function") {
    options = {};
    handler = args[0];
  } else {
    options = { ...(args[0] as Record<string, unknown>) };
    handler = args[1] ?? options.handler;
  }
  const onListen = options.onListen as ((addr: Deno.NetAddr) => void) | undefined;
  return serve({
    ...options,
    handler,
    hostname: "127.0.0.1",
    port,
    onListen(addr: Deno.NetAddr) {
      log(`listening ${addr.port}`);
      if (onListen) onListen(addr);
      else console.log(`Listening on http://${addr.hostname}:${addr.port}/`);
    },
  });
});

// Deploy's CDN purge API, answered by Varnish.
const PURGE_URL = "http://cache.localhost/invalidate/http";
const realFetch = globalThis.fetch;
globalThis.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
  const url = input instanceof Request ? input.url : String(input);
  if (url !== PURGE_URL) return realFetch(input, init);
  const body = input instanceof Request ? await input.text() : String(init?.body ?? "");
  const method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
  let tags: string[];
  try {
    tags = (JSON.parse(body) as { tags: unknown }).tags as string[];
    if (method !== "POST" || !Array.isArray(tags) || tags.some((t) => typeof t !== "string")) {
      throw new Error("not a purge");
    }
  } catch {
    log(`purge refused (${method} ${body.slice(0, 200)})`);
    return Response.json({ error: 'expected POST {"tags": [...]}' }, { status: 400 });
  }
  const varnish = Deno.env.get("DEPLOY_TEST_VARNISH_URL");
  let status = 200;
  if (varnish) {
    const res = await realFetch(`${varnish}/`, {
      method: "PURGE",
      headers: { "xkey-purge": tags.join(" ") },
    });
    await res.body?.cancel();
    status = res.status;
  }
  if (status === 200) log(`purge acknowledged ${tags.join(",")} ${Date.now()}`);
  else log(`purge failed ${status} ${tags.join(",")} ${Date.now()}`);
  return Response.json({}, { status });
};

// Cron: the runtime validates; the host ticks.
const crons: Array<{ name: string; handler: () => unknown }> = [];
const cron = deno.cron as (...args: unknown[]) => Promise<void>;
replace("cron", (name: string, schedule: unknown, ...rest: unknown[]) => {
  const handler = rest.at(-1) as () => unknown;
  const options = rest.length > 1 ? [rest[0]] : [];
  const registered = cron(name, schedule, ...options, () => {
    log(`local cron tick ignored ${name}`);
  });
  crons.push({ name, handler });
  log(`cron registered ${name}`);
  return registered;
});

/** Runs every handler once; a tick asked for while one runs follows it. */
let ticks = Promise.resolve();
function tick() {
  ticks = ticks.then(async () => {
    log(`cron tick start ${crons.length} ${Date.now()}`);
    await Promise.all(crons.map(async ({ name, handler }) => {
      try {
        await handler();
        log(`cron tick done ${name} ${Date.now()}`);
      } catch (error) {
        log(`cron tick failed ${name} ${Date.now()} ${String(error).split("\n")[0]}`);
      }
    }));
  });
}

Deno.addSignalListener("SIGUSR1", tick);
if (Deno.env.get("DEPLOY_TEST_CRON_AT_START") === "1") {
  // The entry module's top level (its awaits included) has run when `load` fires.
  addEventListener("load", tick);
}

/** The ports Deploy refuses raw TCP to (tests/support/refuse_raw_connect.ts's default list). */
const REFUSED_PORTS = [443, 25, 465, 587];

if (Deno.env.get("DEPLOY_TEST_PROBE_CONNECT") === "1") {
  addEventListener("load", async () => {
    for (const port of REFUSED_PORTS) {
      try {
        const conn = await Deno.connect({ hostname: "127.0.0.1", port });
        conn.close();
        log(`connect probe ${port} not refused (connected)`);
      } catch (error) {
        if (error instanceof Deno.errors.PermissionDenied) log(`connect probe ${port} refused`);
        else log(`connect probe ${port} not refused ${String(error).split("\n")[0]}`);
      }
    }
  });
}
