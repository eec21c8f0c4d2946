/**
 * The runnable modules the service hands out, so anyone with Deno runs them straight from
 * the service:
 * - GET /collector.ts, the collector CLI (src/cli/collector.ts): `deno run --allow-net
 *   --allow-env --allow-read <base_url>/collector.ts heartbeat`; loaded from the service, it
 *   talks to that service by default. It is a thin entry whose modules (src/cli/collector/,
 *   one concern each) GET /collector/{module} serves; Deno loads them from the entry's own
 *   host, which needs no --allow-import.
 * - GET /verify.ts, the verifier kit (src/cli/verify.ts): `deno run --allow-net
 *   <base_url>/verify.ts <slug>` checks a trust profile's signatures, hash chain,
 *   completeness and publication log proofs without trusting the service. It is one file with
 *   no imports, so a buyer keeps a single copy: `deno task kit` joins it from its source,
 *   src/cli/verify/ (main.ts and one module a concern, importing each other by relative URL),
 *   whose modules GET /verify/{module} serves (`deno run <base_url>/verify/main.ts` runs the
 *   same kit from them).
 */
import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../env.ts";
import { notFound } from "../../domain/errors.ts";
import { errors } from "../openapi.ts";
import { memoKey } from "../memo.ts";
import { loadStaticFile, loadStaticFiles, serveFile, type StaticFile } from "../static_files.ts";

export const cliModuleRoutes = createRouter();

/** Serves the module at `source` (read once per app) at `path`, described as given. */
function serveModule(
  source: URL,
  route: { path: string; operationId: string; tag: string; summary: string; description: string },
) {
  const file = memoKey<Promise<StaticFile>>(route.path);
  cliModuleRoutes.openapi(
    createRoute({
      method: "get",
      path: route.path,
      operationId: route.operationId,
      tags: [route.tag],
      summary: route.summary,
      description: route.description,
      responses: {
        200: {
          content: { "application/typescript": { schema: z.string() } },
          description: "The module's source, with a strong ETag",
        },
        304: { description: "Not modified (If-None-Match)" },
      },
    }),
    async (c) => {
      const module = await c.var.services.memo(file, () => loadStaticFile(source));
      return serveFile(c, module, { "access-control-allow-origin": "*" });
    },
  );
}

/**
 * Serves every module in `dir` (listed once per app; no request can name a file outside it)
 * at `${route.prefix}/{module}`, with the content type, ETag and caching of serveModule.
 */
function serveModuleDirectory(
  dir: URL,
  route: {
    prefix: string;
    operationId: string;
    tag: string;
    summary: string;
    description: string;
    example: string;
  },
) {
  const files = memoKey<Promise<Map<string, StaticFile>>>(`${route.prefix}/`);
  cliModuleRoutes.openapi(
    createRoute({
      method: "get",
      path: `${route.prefix}/{module}`,
      operationId: route.operationId,
      tags: [route.tag],
      summary: route.summary,
      description: route.description,
      request: {
        params: z.object({
          module: z.string().min(1).max(100).openapi({
            param: { name: "module", in: "path" },
            example: route.example,
          }),
        }),
      },
      responses: {
        200: {
          content: { "application/typescript": { schema: z.string() } },
          description: "The module's source, with a strong ETag",
        },
        304: { description: "Not modified (If-None-Match)" },
        ...errors(400, 404),
      },
    }),
    async (c) => {
      const { module } = c.req.valid("param");
      const modules = await c.var.services.memo(files, () => loadStaticFiles(dir));
      const file = modules.get(module);
      if (!file) throw notFound(`No module "${module}" under ${route.prefix}/`);
      return serveFile(c, file, { "access-control-allow-origin": "*" });
    },
  );
}

serveModule(new URL("../../cli/collector.ts", import.meta.url), {
  path: "/collector.ts",
  operationId: "getCollectorCli",
  tag: "Collector API",
  summary: "The collector CLI as one runnable module",
  description:
    "`deno run --allow-net --allow-env --allow-read <base_url>/collector.ts help` prints its usage. " +
    "It sends heartbeats, evidence (single or in batches of 100) and signals with the secret " +
    "from TRUST_COLLECTOR_SECRET, retrying network errors, 408, 429 and 5xx.",
});

serveModuleDirectory(new URL("../../cli/collector/", import.meta.url), {
  prefix: "/collector",
  operationId: "getCollectorCliModule",
  tag: "Collector API",
  summary: "One module of the collector CLI",
  description:
    "The collector CLI's modules, one a concern (src/cli/collector/*.ts: command line, " +
    "commands, input files, sending with retries, output, errors), which the entry " +
    "/collector.ts imports by relative URL, so `deno run <base_url>/collector.ts` loads them " +
    "from the service. Each is served as /collector.ts is: TypeScript with a strong ETag. " +
    "404 for a name that is not one of them.",
  example: "args.ts",
});

serveModule(new URL("../../cli/verify.ts", import.meta.url), {
  path: "/verify.ts",
  operationId: "getVerifierKit",
  tag: "Publication log",
  summary: "The verifier kit as one runnable module",
  description:
    "`deno run --allow-net <base_url>/verify.ts <trust page URL or slug> [--pin jwks=<kid>] " +
    "[--pin log=<verifier key>] [--checkpoint <file>]` reads every page of the version listing " +
    "and fails on a missing or reordered version, verifies each version's JWS against the JWKS " +
    "(only the pinned keys when given), the hash chain, each version's inclusion in the " +
    "publication log, that the verified versions are exactly the project's log entries and, " +
    "with a pinned checkpoint, that the log only grew. " +
    "Exit status 0 verified, 1 a check failed, 2 usage error, 3 the service could not be read.",
});

serveModuleDirectory(new URL("../../cli/verify/", import.meta.url), {
  prefix: "/verify",
  operationId: "getVerifierKitModule",
  tag: "Publication log",
  summary: "One module of the verifier kit",
  description:
    "The verifier kit's source, one module a concern (src/cli/verify/*.ts: the entry main.ts, " +
    "command line, log proofs, keys and JWS, version chain, publication log, change of " +
    "publisher, questionnaire manifests, output), importing each other by relative URL, so " +
    "`deno run <base_url>/verify/main.ts` loads the whole kit from the service; /verify.ts is " +
    "the same modules joined into one file. Each is served as /verify.ts is: TypeScript with a " +
    "strong ETag. 404 for a name that is not one of them.",
  example: "log_proofs.ts",
});
