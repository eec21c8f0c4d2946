/**
 * An organization's public profile (who the vendor is) and its logo: members read, owners
 * change. The logo's bytes are sniffed and stored content-addressed; its public URL is
 * answered by public_logos.ts.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { uuidParam } from "../../domain/common.ts";
import { forbidden } from "../../domain/errors.ts";
import {
  MAX_LOGO_BYTES,
  MAX_LOGO_PIXELS,
  OrganizationProfileResponse,
  presentProfile,
  UpdateOrganizationProfileRequest,
} from "../../domain/vendor.ts";
import { storeLogo } from "../../serve/logos.ts";
import { getOrganization } from "../../store/organizations.ts";
import {
  getOrganizationProfile,
  patchOrganizationProfile,
  setOrganizationLogo,
} from "../../store/org_profiles.ts";
import { requireHuman, requireMembership } from "../auth.ts";
import { createRouter } from "../env.ts";
import { errors, HUMAN, json, jsonBody } from "../openapi.ts";

export const organizationProfileRoutes = createRouter();

const OrgParams = z.object({ organizationId: uuidParam("organizationId") });
const tags = ["Organizations"];
const Image = z.string().max(MAX_LOGO_BYTES).openapi({ format: "binary" });

organizationProfileRoutes.openapi(
  createRoute({
    method: "get",
    path: "/organizations/{organizationId}/profile",
    operationId: "getOrganizationProfile",
    tags,
    summary: "The organization's public profile (members)",
    description: "Every field is null until an owner sets it.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: OrgParams },
    responses: {
      200: json(OrganizationProfileResponse, "The profile"),
      ...errors(400, 401, 403),
    },
  }),
  async (c) => {
    const { organizationId } = c.req.valid("param");
    await requireMembership(c, organizationId);
    const { kv, config } = c.var.services;
    const stored = await getOrganizationProfile(kv, organizationId);
    return c.json({ profile: presentProfile(stored, config.baseUrl) }, 200);
  },
);

organizationProfileRoutes.openapi(
  createRoute({
    method: "patch",
    path: "/organizations/{organizationId}/profile",
    operationId: "updateOrganizationProfile",
    tags,
    summary: "Change the organization's public profile (owners)",
    description:
      "Fields left out are kept; null clears one. URLs must be https. brandColor is the background of white text, so its WCAG contrast against #ffffff must be at least 4.5:1. Published versions keep the profile they were published with; the next publication shows the change.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: OrgParams, body: jsonBody(UpdateOrganizationProfileRequest) },
    responses: {
      200: json(OrganizationProfileResponse, "The profile as stored"),
      ...errors(400, 401, 403, 409, 413, 415),
    },
  }),
  async (c) => {
    const { organizationId } = c.req.valid("param");
    await requireMembership(c, organizationId, "owner");
    const { kv, config, clock } = c.var.services;
    if (!(await getOrganization(kv, organizationId))) throw forbidden();
    const change = c.req.valid("json");
    const stored = await patchOrganizationProfile(kv, organizationId, {
      change,
      now: clock.now(),
    });
    return c.json({ profile: presentProfile(stored, config.baseUrl) }, 200);
  },
);

organizationProfileRoutes.openapi(
  createRoute({
    method: "put",
    path: "/organizations/{organizationId}/logo",
    operationId: "putOrganizationLogo",
    tags,
    summary: "Upload the organization's logo (owners)",
    description:
      `The raw image as the body, at most ${MAX_LOGO_BYTES} bytes. Its type is read from the bytes, not from Content-Type: a whole PNG, JPEG or WebP file is accepted; SVG (which can carry scripts), HTML, other formats, truncated files and image/markup polyglots are 415. An image whose header declares more than ${MAX_LOGO_PIXELS} pixels in width or height is 413 (the size is read from the PNG IHDR, the JPEG frame header or the WebP VP8X/VP8L/VP8 header). The logo is served at a public, immutable URL (\`logo.url\`).`,
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: {
      params: OrgParams,
      body: {
        required: true,
        content: {
          "image/png": { schema: Image },
          "image/jpeg": { schema: Image },
          "image/webp": { schema: Image },
        },
      },
    },
    responses: {
      200: json(OrganizationProfileResponse, "The profile with its new logo"),
      ...errors(400, 401, 403, 409, 413, 415),
    },
  }),
  async (c) => {
    const { organizationId } = c.req.valid("param");
    await requireMembership(c, organizationId, "owner");
    const { kv, blobs, config, clock } = c.var.services;
    if (!(await getOrganization(kv, organizationId))) throw forbidden();
    const logo = await storeLogo(blobs, new Uint8Array(await c.req.arrayBuffer()));
    const stored = await setOrganizationLogo(kv, organizationId, { logo, now: clock.now() });
    return c.json({ profile: presentProfile(stored, config.baseUrl) }, 200);
  },
);

organizationProfileRoutes.openapi(
  createRoute({
    method: "delete",
    path: "/organizations/{organizationId}/logo",
    operationId: "deleteOrganizationLogo",
    tags,
    summary: "Remove the organization's logo from its profile (owners)",
    description:
      "Later publications show no logo; versions published with it keep showing it, so its immutable URL keeps answering.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: OrgParams },
    responses: {
      200: json(OrganizationProfileResponse, "The profile without a logo"),
      ...errors(400, 401, 403, 409),
    },
  }),
  async (c) => {
    const { organizationId } = c.req.valid("param");
    await requireMembership(c, organizationId, "owner");
    const { kv, config, clock } = c.var.services;
    if (!(await getOrganization(kv, organizationId))) throw forbidden();
    const stored = await setOrganizationLogo(kv, organizationId, { logo: null, now: clock.now() });
    return c.json({ profile: presentProfile(stored, config.baseUrl) }, 200);
  },
);
