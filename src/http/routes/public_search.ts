/**
 * Search over public trust profiles by project name or slug, or by the organization's name,
 * slug or description (mounted at /public/trust-profiles); the same body as the MCP tool
 * search_trust_profiles.
 * Private projects and projects that never published never appear.
 */
import { createRoute } from "@hono/zod-openapi";
import { TrustProfileSearchQuery, TrustProfileSearchResponse } from "../../domain/publish.ts";
import { searchTrustProfiles } from "../../serve/history.ts";
import { createRouter } from "../env.ts";
import { errors, json } from "../openapi.ts";
import { publicHeaders } from "../public_responses.ts";

/** The profile search, mounted at /public/trust-profiles. */
export const publicSearchRoutes = createRouter();

publicSearchRoutes.openapi(
  createRoute({
    method: "get",
    path: "/",
    operationId: "searchTrustProfiles",
    tags: ["Public trust"],
    summary: "Public trust profiles whose project, or whose organization, matches the query",
    description:
      "Case-insensitive, on the project's name or slug, then the organization's name, slug or display name, then its description; exact and prefix matches first, at most 20 profiles, each with its overall state, latest version, publication time and organization.",
    request: { query: TrustProfileSearchQuery },
    responses: {
      200: json(TrustProfileSearchResponse, "The matching public profiles"),
      ...errors(400),
    },
  }),
  async (c) => {
    const body = await searchTrustProfiles(c.var.services, c.req.valid("query").query);
    publicHeaders(c);
    return c.json(body, 200);
  },
);
