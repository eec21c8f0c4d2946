/**
 * Entry point: load configuration, open stores, build the app, run the job worker, serve.
 * `deno task start` runs this file; on Deno Deploy, deploy.ts imports `start` and adds the
 * Deno.cron that drains due jobs while isolates sleep.
 */
import { createApp, createServices } from "./src/app.ts";
import { prepareFirstRun } from "./src/auth/builtin/setup.ts";
import { openBlobStore } from "./src/blobs/open.ts";
import { type Config, ConfigError, loadConfig } from "./src/config.ts";
import type { Services } from "./src/http/env.ts";
import { flushPageViews } from "./src/http/page_views.ts";
import { systemClock } from "./src/lib/clock.ts";
import { withKvRetry } from "./src/store/kv_retry.ts";
import { consoleLogger } from "./src/lib/log.ts";
import { createMailer } from "./src/mail/mod.ts";
import { upgradeFromKvQueue } from "./src/live/legacy_queue.ts";
import { liveStatus } from "./src/live/jobs_view.ts";
import { createKvPersistence, type PersistenceStatus } from "./src/store/kv_persistence.ts";
import { guardStorage } from "./src/http/storage_guard.ts";

async function openKv(path: string | undefined): Promise<Deno.Kv> {
  if (path && path !== ":memory:" && !/^https?:\/\//.test(path)) {
    const dir = path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : ".";
    await Deno.mkdir(dir || "/", { recursive: true });
  }
  // Several instances may share one KV file; SQLite's "database is locked" is retried.
  return withKvRetry(await Deno.openKv(path));
}

/** What to set for email where none is configured: what the host supports. */
function emailAdvice(config: Config): string {
  return config.onDeploy
    ? "set SES_REGION, SES_ACCESS_KEY_ID and SES_SECRET_ACCESS_KEY: Amazon SES over HTTPS, since a serverless host such as Deno Deploy may close the SMTP ports"
    : "set SMTP_URL, or SES_REGION with its keys for Amazon SES over HTTPS";
}

/** Which cache is purged, and why when `DENO_DEPLOY` alone did not choose Deploy's CDN. */
function purgeLine(config: Config): string {
  const { purge } = config.edge;
  if (purge === "deno") return "CDN purge: Deno Deploy's CDN (cache.localhost)";
  if (purge === "xkey") return `CDN purge: Varnish (xkey) at ${config.edge.purgeUrls.join(", ")}`;
  return config.onDeploy && config.deployRuntime === null
    ? "CDN purge: none: DENO_DEPLOY is set but DENO_DEPLOYMENT_ID and DENO_TIMELINE, which Deno Deploy sets, are not, so no Deploy CDN is here to purge (set CDN_PURGE to choose one)"
    : "CDN purge: none (no cache in front keeps pages longer than five minutes)";
}

/** The storage line: said only on Deploy's default database, where data may not persist. */
function storageLine(status: PersistenceStatus): string | null {
  if (status.state === "local") return null;
  if (status.state === "proven") {
    return `Storage: the app's Deno KV database, proven persistent (an isolate read another's marker at ${status.provenAt})`;
  }
  if (status.state === "acknowledged") return `Storage: ${status.action}`;
  return `Storage: NOT PERSISTENT (accounts and evidence refused with 503): ${status.action}`;
}

/** The start-up lines that say what runs: email, live work, where to go next. */
async function banner(
  services: Services,
  config: Config,
  setupUrl: string | null,
  storage: PersistenceStatus,
) {
  const lines = [
    config.mail
      ? `Email: sending through ${services.mailer.describe}`
      : `Email: not configured (${
        emailAdvice(config)
      }): subscriptions, access-request links and notifications cannot be sent`,
  ];
  const stored = storageLine(storage);
  if (stored) lines.push(stored);
  if (config.baseUrlNote) lines.push(config.baseUrlNote);
  lines.push(purgeLine(config));
  const live = await liveStatus(services);
  const oldest = live.oldestDueSeconds === null
    ? "no job is due"
    : `the oldest due job has waited ${live.oldestDueSeconds} s`;
  lines.push(
    `Live work: job worker ${
      live.worker.running ? "running" : "NOT running"
    } (${live.worker.mode}); ${oldest}; ${live.deadJobs} dead-lettered; readiness at ${config.baseUrl}/health/ready`,
  );
  if (setupUrl && storage.writable) {
    lines.push(
      `No account exists yet. Open this one-time link to create the first one:\n  ${setupUrl}`,
    );
  }
  lines.push(
    `Dashboard: ${config.baseUrl}/dashboard/   API description: ${config.baseUrl}/openapi.json`,
    `Public trust pages: ${config.trustPageBase}/trust/<project-slug>   Setup guide: ${config.baseUrl}/setup.md`,
  );
  return lines;
}

/** Whether this process runs on Deno Deploy, which sets `DENO_DEPLOY=true`. */
export function isDeploy(): boolean {
  return Deno.env.get("DENO_DEPLOY") === "true" || Deno.env.get("DENO_DEPLOYMENT_ID") !== undefined;
}

/** Starts the service; resolves with its services once it listens. */
export async function start(options: { onDeploy: boolean }): Promise<Services> {
  const config = loadConfig(Deno.env.toObject(), options);
  const kv = await openKv(config.kvPath);
  const blobs = openBlobStore(config, kv);
  const mailer = createMailer(config.mail);
  const storage = createKvPersistence(kv, config.kvPersistence);
  const deps = { config, kv, blobs, clock: systemClock, log: consoleLogger, mailer, storage };
  const services = await createServices(deps);
  const upgrade = await upgradeFromKvQueue(config.kvPath, services);
  if (upgrade.ran) {
    console.log(
      `Upgraded from the KV queue: ${upgrade.messages} messages and ${upgrade.rebuilt} deliveries became jobs; ${upgrade.projects} projects get a recompute`,
    );
  }
  const app = await createApp(deps, { worker: true, services });
  const setupUrl = await prepareFirstRun(kv, config);
  const lines = await banner(services, config, setupUrl, await storage.check());
  // On Deploy the address is the platform's: Deno.serve reads DENO_SERVE_ADDRESS; PORT is ignored.
  const serveOptions = options.onDeploy ? {} : { port: config.port, hostname: config.hostname };
  const requests = trackRequests(guardStorage(storage, app.fetch));
  const server = Deno.serve({
    ...serveOptions,
    onListen: ({ hostname, port }) => {
      console.log(
        `Trust Profile Service listening on http://${hostname}:${port} (public URL ${config.baseUrl})`,
      );
      for (const line of lines) console.log(line);
    },
  }, requests.handler);
  stopOnSignals(services, kv, server, requests);
  return services;
}

/** Deno Deploy sends SIGKILL 5 s after SIGINT: a stop ends within this. */
const STOP_WITHIN_MS = 4000;
/** Requests (and jobs) under way get this long to finish; later, a request is answered 503. */
const FINISH_WITHIN_MS = 3000;
/** Then the 503s have this long to be sent before the KV is closed. */
const FLUSH_WITHIN_MS = 500;

/** The requests under way, and a way to answer those that cannot finish. */
interface TrackedRequests {
  handler: (request: Request, info: Deno.ServeHandlerInfo) => Promise<Response>;
  /** Answers every request still under way 503 with `Retry-After` (its handler is abandoned). */
  expire(): void;
}

/** The 503 a request gets when the instance stops before it could finish. */
function stoppingResponse(): Response {
  const body = {
    error: {
      code: "unavailable",
      message: "This instance is stopping and could not finish the request: send it again",
    },
  };
  return new Response(JSON.stringify(body), {
    status: 503,
    headers: {
      "content-type": "application/json; charset=utf-8",
      "cache-control": "no-store",
      "retry-after": "1",
      connection: "close",
    },
  });
}

/** Wraps `handler` so that a stop can answer what is still under way. */
function trackRequests(
  handler: (request: Request, info: Deno.ServeHandlerInfo) => Response | Promise<Response>,
): TrackedRequests {
  const underWay = new Set<(response: Response) => void>();
  let expired = false;
  return {
    expire() {
      expired = true;
      for (const answer of [...underWay]) answer(stoppingResponse());
    },
    handler: (request, info) => {
      if (expired) return Promise.resolve(stoppingResponse());
      return new Promise<Response>((resolve, reject) => {
        const answer = (response: Response) => {
          underWay.delete(answer);
          resolve(response);
        };
        underWay.add(answer);
        Promise.resolve().then(() => handler(request, info)).then(answer, (error) => {
          underWay.delete(answer);
          reject(error);
        });
      });
    },
  };
}

/**
 * On SIGINT (Deno Deploy stopping an isolate: idle, evicted, or a new deployment; or Ctrl-C) and
 * SIGTERM: stop accepting connections and claiming jobs; let every accepted request finish (its
 * body may still be arriving) and the jobs under way run, for up to 3 s; then answer what is
 * still under way 503 with `Retry-After` and release the jobs still running (due again at once
 * for any instance); write the page views counted in memory; close the KV; exit, within 4 s of
 * the signal (Deploy's SIGKILL follows 5 s after). A second signal exits at once.
 */
function stopOnSignals(
  services: Services,
  kv: Deno.Kv,
  server: Deno.HttpServer,
  requests: TrackedRequests,
): void {
  let stopping = false;
  const stop = async () => {
    if (stopping) Deno.exit(130);
    stopping = true;
    const started = Date.now();
    const watchdog = setTimeout(() => {
      console.log(`Stopped at the ${STOP_WITHIN_MS} ms limit`);
      Deno.exit(0);
    }, STOP_WITHIN_MS);
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    const closing = server.shutdown().catch(() => {});
    let jobsReleased!: () => void;
    const released = new Promise<void>((resolve) => jobsReleased = resolve);
    const jobs = services.jobs.stop(() => jobsReleased(), { graceMs: FINISH_WITHIN_MS });
    const finished = await Promise.race([
      closing.then(() => true),
      sleep(FINISH_WITHIN_MS).then(() => false),
    ]);
    if (!finished) {
      requests.expire();
      await Promise.race([closing, sleep(FLUSH_WITHIN_MS)]);
    }
    // The page views counted since the last write (at most 10 s of them), once no request runs,
    // written while the jobs finish (within the same 500 ms, so the stop keeps its 4 s).
    const counted = flushPageViews(services).catch(() => {});
    await Promise.race([Promise.all([jobs, released, counted]), sleep(FLUSH_WITHIN_MS)]);
    kv.close();
    clearTimeout(watchdog);
    console.log(
      `Stopped in ${Date.now() - started} ms${
        finished ? "" : " (requests still under way were answered 503)"
      }`,
    );
    Deno.exit(0);
  };
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    try {
      Deno.addSignalListener(signal, stop);
    } catch {
      // A host that does not deliver this signal has nothing to listen to.
    }
  }
}

if (import.meta.main) {
  try {
    await start({ onDeploy: isDeploy() });
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      Deno.exit(1);
    }
    throw error;
  }
}
