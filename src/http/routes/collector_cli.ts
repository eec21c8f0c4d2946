/**
 * GET /collector.ts: the collector CLI (src/cli/collector.ts) as one
 * runnable module, so a pipeline needs nothing installed but Deno:
 * `deno run --allow-net --allow-env --allow-read <base_url>/collector.ts heartbeat`.
 * Loaded from the service, it talks to that service by default.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../env.ts";
import { memoKey } from "../memo.ts";
import { loadStaticFile, serveFile, type StaticFile } from "../static_files.ts";

export const collectorCliRoutes = createRouter();

const CLI_URL = new URL("../../cli/collector.ts", import.meta.url);
const CLI = memoKey<Promise<StaticFile>>("collector CLI");

collectorCliRoutes.openapi(
  createRoute({
    method: "get",
    path: "/collector.ts",
    operationId: "getCollectorCli",
    tags: ["Collector API"],
    summary: "The collector CLI as one runnable module",
    description:
      "`deno run --allow-net --allow-env --allow-read <base_url>/collector.ts help` prints its usage. " +
      "It sends heartbeats, evidence (single or in batches of 100) and signals with the secret " +
      "from TRUST_COLLECTOR_SECRET, retrying network errors, 408, 429 and 5xx.",
    responses: {
      200: {
        content: { "application/typescript": { schema: z.string() } },
        description: "The module's source, with a strong ETag",
      },
      304: { description: "Not modified (If-None-Match)" },
    },
  }),
  async (c) => {
    const cli = await c.var.services.memo(CLI, () => loadStaticFile(CLI_URL));
    return serveFile(c, cli, { "access-control-allow-origin": "*" });
  },
);
