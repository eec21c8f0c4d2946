/**
 * Organization logos at their public, content-addressed URL (mounted at /public/logos):
 * the bytes as accepted, with the type they were sniffed as, never sniffed again by the
 * browser, cached for a year, and under a policy that lets them run nothing.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { ifNoneMatchHits } from "../../serve/artifacts.ts";
import { IMMUTABLE_CACHE } from "../../serve/headers.ts";
import { readLogo } from "../../serve/logos.ts";
import { createRouter } from "../env.ts";
import { errors, PUBLIC } from "../openapi.ts";

export const publicLogoRoutes = createRouter();

const Image = z.string().openapi({ format: "binary" });

publicLogoRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{fileName}",
    operationId: "getOrganizationLogo",
    tags: ["Public trust"],
    summary: "An organization's logo, by the SHA-256 of its bytes",
    security: PUBLIC,
    request: {
      params: z.object({
        fileName: z.string().min(1).max(100).openapi({
          param: { name: "fileName", in: "path" },
          example: `${"0".repeat(64)}.png`,
        }),
      }),
    },
    responses: {
      200: {
        content: {
          "image/png": { schema: Image },
          "image/jpeg": { schema: Image },
          "image/webp": { schema: Image },
        },
        description: "The image, immutable",
      },
      304: { description: "Not modified (If-None-Match)" },
      ...errors(404),
    },
  }),
  async (c) => {
    const logo = await readLogo(c.var.services, c.req.valid("param").fileName);
    const etag = `"sha256:${logo.sha256}"`;
    const headers: Record<string, string> = {
      etag,
      "cache-control": IMMUTABLE_CACHE,
      "x-content-type-options": "nosniff",
      "content-security-policy": "default-src 'none'; sandbox",
      "access-control-allow-origin": "*",
    };
    if (ifNoneMatchHits(c.req.header("if-none-match"), etag)) return c.body(null, 304, headers);
    return c.body(logo.bytes as Uint8Array<ArrayBuffer>, 200, {
      ...headers,
      "content-type": logo.contentType,
    });
  },
);
