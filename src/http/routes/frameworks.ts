/**
 * Framework mappings: the public catalog of frameworks and criteria (/public/frameworks),
 * members' view and changes of a project's mappings (custom controls only; default catalog
 * controls keep the built-in mapping), and a public project's framework view
 * (/trust/{projectSlug}/frameworks in JSON, HTML and Markdown).
 */
import type { Context } from "hono";
import { createRoute, z } from "@hono/zod-openapi";
import { uuidParam } from "../../domain/common.ts";
import {
  ControlCriteriaListResponse,
  ControlCriteriaResponse,
  FrameworkCatalog,
  PublicFrameworkView,
  PutControlCriteriaRequest,
} from "../../domain/frameworks.ts";
import { SlugParams } from "../../domain/publish.ts";
import {
  frameworksCsp,
  renderFrameworksHtml,
  renderFrameworksMarkdown,
} from "../../publish/render/frameworks.ts";
import { publicUrls } from "../../publish/urls.ts";
import {
  controlMappings,
  frameworkCatalog,
  publicFrameworkView,
  setControlCriteria,
} from "../../serve/frameworks.ts";
import { MARKDOWN_TYPE, trustPageHeaders } from "../../serve/headers.ts";
import { requireHuman, requireProjectAccess } from "../auth.ts";
import { type AppEnv, createRouter } from "../env.ts";
import { negotiatedFormat, type PublicFormat } from "../negotiation.ts";
import { documentedJson, errors, HUMAN, json, jsonBody, PUBLIC } from "../openapi.ts";
import { publicHeaders } from "../public_responses.ts";

/** Operator routes and the catalog, mounted at the root. */
export const frameworkRoutes = createRouter();
/** A public project's framework view, mounted at /trust. */
export const trustFrameworkRoutes = createRouter();

const tags = ["Frameworks"];
const ProjectParams = z.object({ id: uuidParam("id") });

frameworkRoutes.openapi(
  createRoute({
    method: "get",
    path: "/public/frameworks",
    operationId: "getFrameworkCatalog",
    tags,
    summary: "Frameworks, their criteria and the default catalog's mappings",
    description:
      "SOC 2 (2017 Trust Services Criteria), ISO/IEC 27001:2022 Annex A, NIST SSDF (SP 800-218) and SLSA v1.0 Build track: every criterion id a mapping accepts, with this service's short wording (not the standards' text), and the criteria each default catalog control supports.",
    security: PUBLIC,
    responses: { 200: json(FrameworkCatalog, "The catalog") },
  }),
  (c) => {
    publicHeaders(c);
    return c.json(frameworkCatalog(), 200);
  },
);

frameworkRoutes.openapi(
  createRoute({
    method: "get",
    path: "/projects/{id}/control-criteria",
    operationId: "listControlCriteria",
    tags,
    summary: "Every control of the project with the framework criteria it supports (members)",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: ProjectParams },
    responses: {
      200: json(ControlCriteriaListResponse, "Each control's criteria, default catalog first"),
      ...errors(400, 401, 403),
    },
  }),
  async (c) => {
    const project = await requireProjectAccess(c, c.req.valid("param").id);
    return c.json({ mappings: await controlMappings(c.var.services.kv, project.id) }, 200);
  },
);

frameworkRoutes.openapi(
  createRoute({
    method: "put",
    path: "/projects/{id}/controls/{controlId}/criteria",
    operationId: "putControlCriteria",
    tags,
    summary: "Map a custom control to framework criteria (members)",
    description:
      "Replaces the control's whole mapping; `[]` removes it. Criteria must be listed in GET /public/frameworks, without repeats. Default catalog controls keep their built-in mapping (400). Shown at once on /trust/{projectSlug}/frameworks; a version's OSCAL export records the mapping at its publication.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: {
      params: ProjectParams.extend({ controlId: uuidParam("controlId") }),
      body: jsonBody(PutControlCriteriaRequest),
    },
    responses: {
      200: json(ControlCriteriaResponse, "The control's mapping as stored"),
      ...errors(400, 401, 403, 404, 413, 415),
    },
  }),
  async (c) => {
    const { id, controlId } = c.req.valid("param");
    const project = await requireProjectAccess(c, id);
    const { kv, clock } = c.var.services;
    const mapping = await setControlCriteria(kv, {
      projectId: project.id,
      controlId,
      criteria: c.req.valid("json").criteria,
      actor: { userId: c.var.user.id, email: c.var.user.email ?? null },
      now: clock.now(),
    });
    return c.json({ mapping }, 200);
  },
);

async function answerView(c: Context<AppEnv>, slug: string, format: PublicFormat) {
  const { services } = c.var;
  const view = await publicFrameworkView(services, slug);
  publicHeaders(c);
  c.header("Vary", "Accept");
  if (format === "json") return c.json(view, 200);
  const urls = publicUrls(services.config, view.project.slug);
  const now = services.clock.now();
  const links = {
    page: format === "md" ? `${urls.page}.md` : urls.page,
    json: urls.frameworks,
    markdown: urls.frameworksMarkdown,
  };
  if (format === "md") {
    return c.body(renderFrameworksMarkdown(view, { now, links }), 200, {
      "content-type": MARKDOWN_TYPE,
    });
  }
  return c.body(renderFrameworksHtml(view, { now, links }), 200, trustPageHeaders(frameworksCsp()));
}

const ABOUT =
  "For each framework (SOC 2, ISO/IEC 27001:2022 Annex A, NIST SSDF, SLSA), the criteria the latest version's controls support, each with its controls, their state and when their evidence was observed; criteria no control supports are not listed. Default catalog controls carry the built-in mapping, custom controls the vendor's current one.";

trustFrameworkRoutes.openapi(
  createRoute({
    method: "get",
    path: "/{projectSlug}/frameworks",
    operationId: "getTrustFrameworks",
    tags,
    summary: "Framework view of the latest published profile",
    description:
      `${ABOUT} JSON by default, HTML for Accept: text/html, Markdown for Accept: text/markdown; /frameworks.html and /frameworks.md choose explicitly. The same body as the MCP tool get_trust_frameworks.`,
    request: { params: SlugParams },
    responses: {
      200: {
        content: {
          "application/json": { schema: PublicFrameworkView },
          "text/html": { schema: z.string() },
          "text/markdown": { schema: z.string() },
        },
        description: "The framework view",
      },
      ...errors(404),
    },
  }),
  async (c) => {
    const response = await answerView(c, c.req.valid("param").projectSlug, negotiatedFormat(c));
    return documentedJson(PublicFrameworkView, response);
  },
);

for (
  const [suffix, type, operationId] of [
    ["html", "text/html", "getTrustFrameworksPage"],
    ["md", "text/markdown", "getTrustFrameworksMarkdown"],
  ] as const
) {
  trustFrameworkRoutes.openapi(
    createRoute({
      method: "get",
      path: `/{projectSlug}/frameworks.${suffix}`,
      operationId,
      tags,
      summary: `Framework view as ${suffix === "html" ? "an HTML page" : "Markdown"}`,
      description: ABOUT,
      request: { params: SlugParams },
      responses: {
        200: { content: { [type]: { schema: z.string() } }, description: "The framework view" },
        ...errors(404),
      },
    }),
    async (c) => await answerView(c, c.req.valid("param").projectSlug, suffix),
  );
}
