/**
 * The OpenAPI 3.1 description of the API, generated from the same zod
 * schemas that validate requests, served at /openapi.json.
 */
import { createRoute, type OpenAPIHono, z } from "@hono/zod-openapi";
import { API_VERSION } from "../domain/common.ts";
import { storedScopeOf } from "../domain/stored_urls.ts";
import { answerPrepared, prepareBody, type PreparedBody } from "./compression.ts";
import type { AppEnv, Services } from "./env.ts";
import { goneScopeOf } from "./gone.ts";
import { ERROR_DESCRIPTIONS, HUMAN, NOT_MODIFIED, PUBLIC } from "./openapi.ts";
import { describeWebhooks } from "./webhook_document.ts";

const TAGS = [
  { name: "Service", description: "Liveness, keys and metadata" },
  {
    name: "Live work",
    description:
      "Jobs that run without a request: an organization's dead-lettered jobs and their retry",
  },
  { name: "Identity", description: "The caller and onboarding" },
  { name: "Organizations", description: "Organizations, members and invitations" },
  { name: "Projects", description: "Projects of an organization" },
  {
    name: "Deletion",
    description:
      "Deleting a project or an organization (7 days of grace, undo) and one's own account",
  },
  { name: "Subprocessors", description: "The third parties an organization discloses" },
  {
    name: "Certifications",
    description: "Certifications and attestations an organization declares (SOC 2, ISO/IEC 27001…)",
  },
  {
    name: "Answers",
    description:
      "An organization's answers to security questions: the knowledge base, its search and questionnaire exports",
  },
  {
    name: "Questionnaires",
    description:
      "A buyer's questionnaire file (XLSX or CSV): import, review, the answered file, its signed manifest and sharing",
  },
  {
    name: "Documents",
    description:
      "Documents an organization shares, its NDA, access requests, access links and downloads",
  },
  {
    name: "Webhooks",
    description:
      "Signed webhook endpoints of a project (Standard Webhooks), their deliveries and the payloads (`webhooks`)",
  },
  { name: "Controls", description: "The control catalog of a project" },
  {
    name: "Frameworks",
    description:
      "Which SOC 2, ISO/IEC 27001, NIST SSDF and SLSA criteria controls support, and the public framework view",
  },
  { name: "Evaluations", description: "Control states computed from evidence" },
  { name: "Collectors", description: "Machine principals that send evidence" },
  { name: "Evidence", description: "Evidence records and their payloads" },
  {
    name: "Retention",
    description: "How long evidence is kept, pruning, and the storage each project uses",
  },
  { name: "Collector API", description: "Heartbeat and ingest, with a collector secret" },
  { name: "Publishing", description: "Signed, immutable versions of the trust profile" },
  {
    name: "Updates",
    description: "Incidents, advisories and news a project posts on its trust page and feed",
  },
  {
    name: "Subscriptions",
    description:
      "Email subscriptions to trust updates: subscribing, confirming, unsubscribing and the subscribers",
  },
  { name: "Custom domains", description: "Serving the trust page on the vendor's own domain" },
  { name: "Public trust", description: "Published trust data, no credentials" },
  {
    name: "Publication log",
    description: "The Merkle tree log of every publication: checkpoints and proofs",
  },
  { name: "Documentation", description: "Human- and agent-readable guides" },
  { name: "Discovery", description: "Machine-readable descriptions of the service for agents" },
  {
    name: "Buyers",
    description:
      "Buyer organizations of a trust center: their people, service tokens, grants, access rules, the access inventory and summaries",
  },
  { name: "MCP", description: "Model Context Protocol server over published trust data" },
  { name: "OAuth", description: "The built-in identity provider (AUTH_MODE=builtin)" },
];

/** Registers security schemes and GET /openapi.json on the root app. */
export function describeApi(app: OpenAPIHono<AppEnv>, services: Services): void {
  const { config } = services;
  app.openAPIRegistry.registerComponent("securitySchemes", "humanBearer", {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description:
      `An access token (JWT) from the identity provider (${config.auth.authUrl}/oauth2/authorize)`,
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "buyerBearer", {
    type: "http",
    scheme: "bearer",
    description:
      "A buyer token (tpb_…) of one trust center: a person's session from an emailed sign-in link, or a buyer organization's service token",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "collectorBearer", {
    type: "http",
    scheme: "bearer",
    description: "A collector secret (tpc_…) or a collector access token from client_credentials",
  });

  describeWebhooks(app);
  // Built, serialized and compressed once: the document only changes with the code.
  let document: Promise<PreparedBody> | undefined;
  app.openapi(
    createRoute({
      method: "get",
      path: "/openapi.json",
      operationId: "getOpenApi",
      tags: ["Service"],
      summary: "This OpenAPI 3.1 description",
      responses: {
        200: {
          content: { "application/json": { schema: z.object({}).passthrough() } },
          description: "The OpenAPI document (gzip or brotli by Accept-Encoding, with an ETag)",
        },
        304: { description: NOT_MODIFIED },
      },
    }),
    async (c) => {
      document ??= prepareBody(
        new TextEncoder().encode(JSON.stringify(completeOperations(app.getOpenAPI31Document({
          openapi: "3.1.0",
          info: {
            title: "Trust Profile Service",
            version: API_VERSION,
            description:
              "Live, verifiable trust data about software vendors: collectors send evidence, a deterministic evaluator turns it into control states, and operators publish signed, versioned trust profiles that anyone can read. Public reads (operations with `security: []` under /trust, /public, /log, /.well-known, /openapi.json, /llms.txt, the guides and /mcp) allow any origin (CORS, `Access-Control-Allow-Origin: *`, preflights answered); the operator API sends no CORS headers. Operations are called at the server below; a project's own host (its hosted subdomain or verified custom domain) serves only that project's trust page documents, logos and icon, and answers 404 at every other path.",
            contact: { name: "Trust Profile Service", url: config.baseUrl },
          },
          servers: [{ url: config.baseUrl }],
          tags: TAGS,
        })))),
      );
      return answerPrepared(c, await document, {
        "content-type": "application/json",
        "cache-control": "public, max-age=300",
      }) as never;
    },
  );
}

type Content = Record<string, { schema?: { $ref?: string } }>;
interface Operation {
  summary?: string;
  description?: string;
  security?: unknown[];
  parameters?: unknown[];
  requestBody?: unknown;
  responses: Record<string, { description: string; content?: Content }>;
}

const API_ERROR: Content = {
  "application/json": { schema: { $ref: "#/components/schemas/ApiError" } },
};

/**
 * The media type an operation's errors are answered in (src/http/errors.ts): RFC 6749 §5.2
 * JSON where it documents OAuthError, a page where its errors are pages, else the envelope.
 */
function errorContent(operation: Operation): Content {
  const documented = Object.entries(operation.responses)
    .filter(([status]) => Number(status) >= 400)
    .map(([, response]) => response.content ?? {});
  const oauth = documented.find((c) => c["application/json"]?.schema?.$ref?.endsWith("OAuthError"));
  if (oauth) return oauth;
  return documented.find((c) => c["text/html"]) ?? API_ERROR;
}

/** An operation's path with every parameter filled, as a request would name it. */
function samplePath(path: string): string {
  return path.split("/").map((segment) => segment.startsWith("{") ? "x" : segment).join("/");
}

/** The statuses any operation of this shape can answer before or around its handler. */
function genericStatuses(
  method: string,
  path: string,
  operation: Operation,
): Array<keyof typeof ERROR_DESCRIPTIONS> {
  const statuses: Array<keyof typeof ERROR_DESCRIPTIONS> = [500];
  // A deleted (or scheduled) tenant's public routes answer 410 before routing (src/http/gone.ts).
  if (goneScopeOf(samplePath(path))) statuses.push(410);
  // Any body sent with another method is read, under the size limit and parsed when it is
  // JSON (src/http/body.ts), even where the operation takes none.
  const readsBody = method !== "get" && method !== "head";
  if (operation.parameters?.length || operation.requestBody || readsBody) statuses.push(400);
  if (readsBody) statuses.push(408, 413);
  if (operation.requestBody) statuses.push(415);
  return statuses;
}

/**
 * Completes every operation from what the service does for all of them: a description
 * (API catalogs expect one), `security: []` on operations anyone may call (the document's
 * default is the human bearer token), and the error statuses answered around handlers
 * (validation, body limit, media type, internal errors, a deleted tenant's 410) in the
 * operation's error shape, and 304 on the GETs the stored layer answers from stored bytes
 * (src/http/stored_pages.ts), which revalidate whatever the route itself does.
 */
function completeOperations<T extends { paths?: object }>(doc: T): T {
  for (
    const [path, item] of Object.entries(doc.paths ?? {}) as [string, Record<string, Operation>][]
  ) {
    for (const [method, operation] of Object.entries(item)) {
      if (!operation || typeof operation !== "object" || !operation.responses) continue;
      if (!operation.description && operation.summary) operation.description = operation.summary;
      operation.security ??= PUBLIC;
      const content = errorContent(operation);
      for (const status of genericStatuses(method, path, operation)) {
        operation.responses[status] ??= { description: ERROR_DESCRIPTIONS[status], content };
      }
      if (method === "get" && storedScopeOf(samplePath(path))) {
        operation.responses[304] ??= { description: NOT_MODIFIED };
      }
    }
  }
  return { ...doc, security: HUMAN };
}
