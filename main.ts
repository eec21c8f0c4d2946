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
import { systemClock } from "./src/lib/clock.ts";
import { withKvRetry } from "./src/store/kv_retry.ts";
import { consoleLogger } from "./src/lib/log.ts";
import { createMailer } from "./src/mail/mod.ts";
import { upgradeFromKvQueue } from "./src/live/legacy_queue.ts";
import { liveStatus } from "./src/live/jobs_view.ts";

async function openKv(path: string | undefined): Promise<Deno.Kv> {
  if (path && path !== ":memory:" && !/^https?:\/\//.test(path)) {
    const dir = path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : ".";
    await Deno.mkdir(dir || "/", { recursive: true });
  }
  // Several instances may share one KV file; SQLite's "database is locked" is retried.
  return withKvRetry(await Deno.openKv(path));
}

/** The start-up lines that say what runs: email, live work, where to go next. */
async function banner(services: Services, config: Config, setupUrl: string | null) {
  const lines = [
    config.mail
      ? `Email: sending through ${services.mailer.describe}`
      : "Email: not configured (set SMTP_URL): subscriptions, access-request links and notifications cannot be sent",
  ];
  const live = await liveStatus(services);
  const oldest = live.oldestDueSeconds === null
    ? "no job is due"
    : `the oldest due job has waited ${live.oldestDueSeconds} s`;
  lines.push(
    `Live work: job worker ${
      live.worker.running ? "running" : "NOT running"
    } (${live.worker.mode}); ${oldest}; ${live.deadJobs} dead-lettered; readiness at ${config.baseUrl}/health/ready`,
  );
  if (setupUrl) {
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
  const deps = { config, kv, blobs, clock: systemClock, log: consoleLogger, mailer };
  const services = await createServices(deps);
  const upgrade = await upgradeFromKvQueue(config.kvPath, services);
  if (upgrade.ran) {
    console.log(
      `Upgraded from the KV queue: ${upgrade.messages} messages and ${upgrade.rebuilt} deliveries became jobs; ${upgrade.projects} projects get a recompute`,
    );
  }
  const app = await createApp(deps, { worker: true, services });
  const setupUrl = await prepareFirstRun(kv, config);
  const lines = await banner(services, config, setupUrl);
  const serveOptions = options.onDeploy ? {} : { port: config.port, hostname: config.hostname };
  const server = Deno.serve({
    ...serveOptions,
    onListen: ({ hostname, port }) => {
      console.log(
        `Trust Profile Service listening on http://${hostname}:${port} (public URL ${config.baseUrl})`,
      );
      for (const line of lines) console.log(line);
    },
  }, app.fetch);
  stopOnSignals(services, kv, server);
  return services;
}

/** What a stop may take before the platform kills the process (Deno Deploy: SIGKILL after 5 s). */
const STOP_GRACE_MS = 4000;

/**
 * On SIGINT (Deno Deploy stopping an idle isolate, or Ctrl-C) and SIGTERM: stop accepting
 * connections, stop claiming jobs, give the jobs under way up to 4 s and release the rest (due
 * again at once for any instance), close the KV, exit. A second signal exits at once.
 */
function stopOnSignals(services: Services, kv: Deno.Kv, server: Deno.HttpServer): void {
  let stopping = false;
  const stop = async () => {
    if (stopping) Deno.exit(130);
    stopping = true;
    const started = Date.now();
    const closing = server.shutdown().catch(() => {});
    await services.jobs.stop(() => kv.close(), { graceMs: STOP_GRACE_MS });
    await Promise.race([closing, new Promise((resolve) => setTimeout(resolve, 200))]);
    console.log(`Stopped in ${Date.now() - started} ms`);
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
