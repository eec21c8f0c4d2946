/**
 * Discovery documents for agents and API catalogs (SPEC.md "Discovery
 * documents"): the RFC 9727 API catalog, the MCP manifest and server cards,
 * the plugin descriptor, /llms.txt, and the agent and setup guides (each as
 * Markdown for `.md` or `Accept: text/markdown`, HTML otherwise).
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Config } from "../../config.ts";
import {
  AI_CATALOG_TYPE,
  AiCatalog,
  aiCatalog,
  AiPlugin,
  aiPlugin,
  API_CATALOG_TYPE,
  ApiCatalog,
  apiCatalog,
  McpManifest,
  mcpManifest,
  ServerCard,
  serverCards,
  serviceUrls,
} from "../../mcp/discovery.ts";
import { agentInstructions, setupGuide } from "../../mcp/guides.ts";
import { llmsTxt } from "../../mcp/llms_txt.ts";
import type { AppEnv } from "../env.ts";
import { createRouter } from "../env.ts";
import { json } from "../openapi.ts";
import { sendDoc } from "../negotiation.ts";

/** GET routes of the discovery documents, all public, mounted at /.well-known. */
export const discoveryRoutes = createRouter();
/** GET routes of /llms.txt and the agent guides, all public, mounted at the root. */
export const guideRoutes = createRouter();

const tags = ["Discovery"];
/** Discovery documents change only with configuration or a deploy. */
const DISCOVERY_CACHE = "public, max-age=300";

function publicHeaders(type: string): Record<string, string> {
  return {
    "content-type": type,
    "cache-control": DISCOVERY_CACHE,
    "access-control-allow-origin": "*",
  };
}

function sendJson<T extends object>(
  c: Context<AppEnv>,
  body: T,
  type = "application/json; charset=utf-8",
) {
  return c.json(body, 200, publicHeaders(type));
}

/** The Link header that names the API catalog (RFC 9727 §2, answered to GET and HEAD alike). */
function apiCatalogLink(config: Config): string {
  return `<${serviceUrls(config).apiCatalog}>; rel="api-catalog"`;
}

discoveryRoutes.openapi(
  createRoute({
    method: "get",
    path: "/api-catalog",
    operationId: "getApiCatalog",
    tags,
    summary: "API catalog (RFC 9727): the HTTP API and the MCP server with their descriptions",
    description:
      "A linkset (RFC 9264) with service-desc, service-doc, service-meta and status links. HEAD answers the same headers, including Link with rel=api-catalog.",
    responses: {
      200: {
        content: { "application/linkset+json": { schema: ApiCatalog } },
        headers: z.object({
          Link: z.string().openapi({ example: '</.well-known/api-catalog>; rel="api-catalog"' }),
        }),
        description: "The catalog",
      },
    },
  }),
  (c) => {
    const { config } = c.var.services;
    c.header("Link", apiCatalogLink(config));
    return sendJson(c, apiCatalog(config), API_CATALOG_TYPE);
  },
);

discoveryRoutes.openapi(
  createRoute({
    method: "get",
    path: "/mcp.json",
    operationId: "getMcpManifest",
    tags,
    summary: "MCP server manifest: transport URL, tools and resource template",
    responses: { 200: json(McpManifest, "The manifest") },
  }),
  (c) => sendJson(c, mcpManifest(c.var.services.config)),
);

discoveryRoutes.openapi(
  createRoute({
    method: "get",
    path: "/mcp/server-cards.json",
    operationId: "getMcpServerCards",
    tags,
    summary: "MCP server cards: the card of /mcp/server-card, in a list",
    responses: { 200: json(z.array(ServerCard), "One card per MCP server") },
  }),
  (c) => sendJson(c, serverCards(c.var.services.config)),
);

discoveryRoutes.openapi(
  createRoute({
    method: "get",
    path: "/ai-catalog.json",
    operationId: "getAiCatalog",
    tags,
    summary: "AI Catalog (specVersion 1.0) listing the MCP server card, for domain-level discovery",
    description:
      "Where the MCP server-card draft (SEP-2127) sends clients first. Its one entry has the server card's media type and its URL, /mcp/server-card.",
    responses: {
      200: {
        content: { [AI_CATALOG_TYPE]: { schema: AiCatalog } },
        description: "The catalog",
      },
    },
  }),
  (c) => sendJson(c, aiCatalog(c.var.services.config), AI_CATALOG_TYPE),
);

discoveryRoutes.openapi(
  createRoute({
    method: "get",
    path: "/ai-plugin.json",
    operationId: "getAiPluginManifest",
    tags,
    summary: "Agent plugin descriptor (ai-plugin.json v1) pointing at /openapi.json",
    responses: { 200: json(AiPlugin, "The descriptor") },
  }),
  (c) => sendJson(c, aiPlugin(c.var.services.config)),
);

guideRoutes.openapi(
  createRoute({
    method: "get",
    path: "/llms.txt",
    operationId: "getLlmsTxt",
    tags,
    summary: "Site index for language models (llmstxt.org format)",
    responses: {
      200: { content: { "text/plain": { schema: z.string() } }, description: "Markdown text" },
    },
  }),
  (c) =>
    c.text(
      llmsTxt(c.var.services.config),
      200,
      publicHeaders("text/plain; charset=utf-8"),
    ),
);

/**
 * What crawlers may index: the public trust pages, their documents and the
 * guides; never the dashboard, sign-in or the operator API.
 */
const ROBOTS_TXT = `# Public trust pages, their signed documents and the guides may be indexed.
User-agent: *
Allow: /
Disallow: /dashboard/
Disallow: /oauth2/
Disallow: /signup
Disallow: /onboarding/
Disallow: /organizations/
Disallow: /projects/
Disallow: /invitations/
Allow: /mcp/server-card
Disallow: /mcp
`;

guideRoutes.openapi(
  createRoute({
    method: "get",
    path: "/robots.txt",
    operationId: "getRobotsTxt",
    tags,
    summary: "Crawler rules (RFC 9309): public pages yes, dashboard and operator API no",
    responses: {
      200: { content: { "text/plain": { schema: z.string() } }, description: "robots.txt" },
    },
  }),
  (c) => c.text(ROBOTS_TXT, 200, publicHeaders("text/plain; charset=utf-8")),
);

const GUIDES = [
  {
    path: "/agent-instructions",
    operationId: "getAgentInstructions",
    title: "Agent instructions",
    summary: "When to use the service and how to call it (public reads, MCP, polling, signatures)",
    render: agentInstructions,
  },
  {
    path: "/setup",
    operationId: "getSetupGuide",
    title: "Set up a trust profile",
    summary: "Agent-followable setup: account, project, collector, evidence, publish",
    render: setupGuide,
  },
] as const;

for (const guide of GUIDES) {
  guideRoutes.openapi(
    createRoute({
      method: "get",
      path: `${guide.path}.md`,
      operationId: `${guide.operationId}Markdown`,
      tags: ["Documentation"],
      summary: `${guide.summary}, as Markdown`,
      responses: {
        200: { content: { "text/markdown": { schema: z.string() } }, description: "Markdown" },
      },
    }),
    async (c) =>
      asPublicDoc(
        await sendDoc(c, guide.title, {
          markdown: guide.render(c.var.services.config),
          format: "md",
        }),
      ),
  );
  guideRoutes.openapi(
    createRoute({
      method: "get",
      path: guide.path,
      operationId: guide.operationId,
      tags: ["Documentation"],
      summary: `${guide.summary} (HTML, or Markdown for Accept: text/markdown)`,
      responses: {
        200: {
          content: {
            "text/html": { schema: z.string() },
            "text/markdown": { schema: z.string() },
          },
          description: "The guide",
        },
      },
    }),
    async (c) =>
      asPublicDoc(await sendDoc(c, guide.title, { markdown: guide.render(c.var.services.config) })),
  );
}

/**
 * Guides are public and change only with a deploy, so their HTML is cached
 * like the Markdown (sendDoc's page headers say no-store, meant for forms).
 */
function asPublicDoc(response: Response): Response {
  response.headers.set("Access-Control-Allow-Origin", "*");
  response.headers.set("Cache-Control", DISCOVERY_CACHE);
  return response;
}
