/**
 * Entry point: load configuration, open stores, build the app, serve.
 */
import { createApp } from "./src/app.ts";
import { prepareFirstRun } from "./src/auth/builtin/setup.ts";
import { openBlobStore } from "./src/blobs/open.ts";
import { ConfigError, loadConfig } from "./src/config.ts";
import { systemClock } from "./src/lib/clock.ts";
import { withKvRetry } from "./src/store/kv_retry.ts";
import { consoleLogger } from "./src/lib/log.ts";
import { createMailer } from "./src/mail/mod.ts";

const onDeploy = Deno.env.get("DENO_DEPLOYMENT_ID") !== undefined;

async function openKv(path: string | undefined): Promise<Deno.Kv> {
  if (path && path !== ":memory:" && !/^https?:\/\//.test(path)) {
    const dir = path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : ".";
    await Deno.mkdir(dir || "/", { recursive: true });
  }
  // Several instances may share one KV file; SQLite's "database is locked" is retried.
  return withKvRetry(await Deno.openKv(path));
}

try {
  const config = loadConfig(Deno.env.toObject(), { onDeploy });
  const kv = await openKv(config.kvPath);
  const blobs = openBlobStore(config, kv);
  const mailer = createMailer(config.mail);
  const app = await createApp(
    { config, kv, blobs, clock: systemClock, log: consoleLogger, mailer },
    { queue: true },
  );
  const setupUrl = await prepareFirstRun(kv, config);
  const serveOptions = onDeploy ? {} : { port: config.port, hostname: config.hostname };
  Deno.serve({
    ...serveOptions,
    onListen: ({ hostname, port }) => {
      console.log(
        `Trust Profile Service listening on http://${hostname}:${port} (public URL ${config.baseUrl})`,
      );
      console.log(
        config.mail
          ? `Email: sending through ${mailer.describe}`
          : "Email: not configured (set SMTP_URL): subscriptions, access-request links and notifications cannot be sent",
      );
      if (setupUrl) {
        console.log(
          `No account exists yet. Open this one-time link to create the first one:\n  ${setupUrl}`,
        );
      } else {
        console.log(
          `Dashboard: ${config.baseUrl}/dashboard/   API description: ${config.baseUrl}/openapi.json`,
        );
      }
    },
  }, app.fetch);
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(error.message);
    Deno.exit(1);
  }
  throw error;
}
