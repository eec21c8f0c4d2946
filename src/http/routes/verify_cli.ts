/**
 * GET /verify.ts: the verifier kit (src/cli/verify.ts) as one runnable
 * module, so anyone with Deno checks a trust profile's signatures, hash chain
 * and publication log proofs without trusting the service:
 * `deno run --allow-net <base_url>/verify.ts <slug>`.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { createRouter } from "../env.ts";
import { memoKey } from "../memo.ts";
import { loadStaticFile, serveFile, type StaticFile } from "../static_files.ts";

export const verifyCliRoutes = createRouter();

const KIT_URL = new URL("../../cli/verify.ts", import.meta.url);
const KIT = memoKey<Promise<StaticFile>>("verifier kit");

verifyCliRoutes.openapi(
  createRoute({
    method: "get",
    path: "/verify.ts",
    operationId: "getVerifierKit",
    tags: ["Publication log"],
    summary: "The verifier kit as one runnable module",
    description:
      "`deno run --allow-net <base_url>/verify.ts <trust page URL or slug> [--checkpoint <file>]` " +
      "verifies every listed version's JWS against the JWKS, the hash chain, each version's " +
      "inclusion in the publication log and, with a pinned checkpoint, that the log only grew. " +
      "Exit status 0 verified, 1 a check failed, 2 usage error, 3 the service could not be read.",
    responses: {
      200: {
        content: { "application/typescript": { schema: z.string() } },
        description: "The module's source, with a strong ETag",
      },
      304: { description: "Not modified (If-None-Match)" },
    },
  }),
  async (c) => {
    const kit = await c.var.services.memo(KIT, () => loadStaticFile(KIT_URL));
    return serveFile(c, kit, { "access-control-allow-origin": "*" });
  },
);
