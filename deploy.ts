/**
 * Entry point on Deno Deploy. Deploy discovers cron jobs by evaluating this module's top level
 * (at deploy time, without the app's environment), so the cron is registered first, before
 * anything that reads configuration or opens I/O; the service itself is loaded with a dynamic
 * import. Deploy stops idle isolates, so the job loop runs only while an isolate serves; the
 * cron drains due jobs every minute in between (freshness decay, retries, scheduled pushes and
 * the re-rendering and purging of public pages), in an isolate Deploy starts for it if none
 * runs. deno.json's `"unstable": ["kv", "cron"]` enables both; Deploy passes no other flag.
 */
import type { Services } from "./src/http/env.ts";

let service: Promise<Services | null> | null = null;

/** Starts the service once; null when its configuration is refused (said once, in one line). */
function running(): Promise<Services | null> {
  service ??= (async () => {
    const { start } = await import("./main.ts");
    const { ConfigError } = await import("./src/config.ts");
    try {
      const services = await start({ onDeploy: true });
      services.jobs.cronRegistered();
      return services;
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      console.error(error.message);
      refuseEveryRequest(error.message);
      return null;
    }
  })();
  return service;
}

/**
 * Without a usable configuration nothing can be served correctly: every request gets 503 with
 * the reason, so the deployment's first visitor and its logs say what to set. Exiting instead
 * would only show 502s, and would also fail Deploy's build-time evaluation of this module.
 */
function refuseEveryRequest(reason: string): void {
  const body = JSON.stringify({ error: { code: "unavailable", message: reason } });
  Deno.serve(() =>
    new Response(body, {
      status: 503,
      headers: { "content-type": "application/json; charset=utf-8", "retry-after": "60" },
    })
  );
}

Deno.cron("run due jobs", "* * * * *", async () => {
  const services = await running();
  await services?.jobs.drain(50_000);
});

await running();
