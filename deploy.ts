/**
 * Entry point on Deno Deploy. Deploy stops idle isolates, so the job loop only runs while an
 * isolate serves requests; this Deno.cron (registered at the top level, as Deploy requires)
 * drains due jobs every minute in between: freshness decay, retries and scheduled pushes
 * happen without any request. Deploy provides the KV database and cron without flags; the
 * `unstable` list in deno.json ("kv", "cron") is what enables both under `deno run`.
 */
import { start } from "./main.ts";

const service = start({ onDeploy: true });

Deno.cron("Trust Profile Service: run due jobs", "* * * * *", async () => {
  const services = await service;
  services.jobs.cronRegistered();
  await services.jobs.drain(50_000);
});

(await service).jobs.cronRegistered();
