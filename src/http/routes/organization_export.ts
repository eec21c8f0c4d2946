/**
 * `GET /organizations/{organizationId}/export`: an owner downloads the organization's data as
 * one ZIP archive, streamed as it is built (src/lifecycle/org_export.ts); `deno task import`
 * loads it into an empty instance.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { uuidParam } from "../../domain/common.ts";
import { forbidden } from "../../domain/errors.ts";
import { OrganizationExportQuery } from "../../domain/organization_export.ts";
import { exportOrganization, KEYS_WARNING } from "../../lifecycle/org_export.ts";
import { getOrganization } from "../../store/organizations.ts";
import { requireHuman, requireMembership } from "../auth.ts";
import { createRouter } from "../env.ts";
import { errors, HUMAN } from "../openapi.ts";

export const organizationExportRoutes = createRouter();

const OrgParams = z.object({ organizationId: uuidParam("organizationId") });

organizationExportRoutes.openapi(
  createRoute({
    method: "get",
    path: "/organizations/{organizationId}/export",
    operationId: "exportOrganization",
    tags: ["Organizations"],
    summary: "Download the organization's complete data as one archive (owners)",
    description:
      "A ZIP archive, streamed: JSON documents per entity (`<entity>.jsonl`), every KV entry of the organization (`kv/entries.bin`, what `deno task import` loads into an empty instance), every blob they reference (evidence payloads, published artifacts, logos, documents) and `manifest.json` with the SHA-256 of every other entry. Webhooks appear without their secrets and are not imported. With include=log the archive carries the publication log (hashes; this organization's entries), without which the versions lose their inclusion proofs on the new instance; with include=keys-and-log also the private signing keys, and the response says so in `Export-Warning`. Blobs travel only when the organization's own records reference them through their blob fields (never because a text names a digest). At most three exports run at once per instance: another is answered 503 with Retry-After. The import writes only the organization's own keys unless its operator passes `--include log` (the log and public keys) or `--include keys-and-log` (the private keys too), and then only into an instance that has never started.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: OrgParams, query: OrganizationExportQuery },
    responses: {
      200: {
        description: "The archive",
        headers: {
          "Export-Warning": {
            description: "Present when the archive holds private signing keys",
            schema: { type: "string" },
          },
        },
        content: { "application/zip": { schema: z.string().openapi({ format: "binary" }) } },
      },
      ...errors(400, 401, 403, 503),
    },
  }),
  async (c) => {
    const { organizationId } = c.req.valid("param");
    const include = c.req.valid("query").include;
    const keys = include === "keys-and-log";
    await requireMembership(c, organizationId, "owner");
    if (keys && c.var.accessToken) {
      throw forbidden("An export with the private keys needs a signed-in session, not a token");
    }
    const { kv, blobs, clock } = c.var.services;
    const organization = await getOrganization(kv, organizationId);
    if (!organization) throw forbidden();
    const now = clock.now();
    const headers: Record<string, string> = {
      "content-type": "application/zip",
      "content-disposition": `attachment; filename="${organization.slug}-export-${
        now.toISOString().slice(0, 10)
      }.zip"`,
      "cache-control": "no-store",
    };
    if (keys) headers["export-warning"] = KEYS_WARNING;
    const log = include === "log" || keys;
    const body = exportOrganization({ kv, blobs, organizationId, log, keys, now });
    return c.body(body, 200, headers);
  },
);
