/**
 * security.txt (RFC 9116) of a published public project, mounted at /trust. The same file
 * is served at /.well-known/security.txt on the project's verified custom domains and
 * hosted subdomain (see host_routing.ts).
 */
import { createRoute, z } from "@hono/zod-openapi";
import { SlugParams } from "../../domain/publish.ts";
import { publicUrls } from "../../publish/urls.ts";
import { PUBLIC_CACHE } from "../../serve/headers.ts";
import { publicPublication } from "../../serve/public_read.ts";
import { SECURITY_TXT_TYPE, securityTxtOf } from "../../serve/security_txt.ts";
import { createRouter } from "../env.ts";
import { errors, PUBLIC } from "../openapi.ts";

export const securityTxtRoutes = createRouter();

securityTxtRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{projectSlug}/.well-known/security.txt",
    operationId: "getTrustSecurityTxt",
    tags: ["Public trust"],
    summary: "Where to report a vulnerability in this project (RFC 9116 security.txt)",
    description:
      "Contact comes from the organization's profile (security email and URL), else from the project's detected security contact; 404 when neither is known. Expires is 180 days after the response. Also served at /.well-known/security.txt on the project's verified custom domains and hosted subdomain.",
    security: PUBLIC,
    request: { params: SlugParams },
    responses: {
      200: {
        content: { "text/plain": { schema: z.string() } },
        description: "The security.txt",
      },
      ...errors(404),
    },
  }),
  async (c) => {
    const { kv, config, clock } = c.var.services;
    const slug = c.req.valid("param").projectSlug;
    const { project } = await publicPublication(c.var.services, slug);
    const canonical = `${publicUrls(config, project.slug).page}/.well-known/security.txt`;
    const text = await securityTxtOf(kv, project, { config, canonical, now: clock.now() });
    return c.text(text, 200, {
      "content-type": SECURITY_TXT_TYPE,
      "cache-control": PUBLIC_CACHE,
      "access-control-allow-origin": "*",
    });
  },
);
