/**
 * POST /mcp: the MCP server over Streamable HTTP, stateless (a fresh server
 * and transport per request, JSON responses, no session). Without credentials
 * it reads published data only; with a buyer token (`Authorization: Bearer
 * tpb_…`, checked here: 401 when unknown, revoked or expired) it adds the buyer
 * tools over what the token's organization is granted. GET and DELETE answer
 * 405: without sessions there is no stream to open and nothing to end. GET
 * /mcp/server-card is the server card at the location the server-card draft
 * reserves (`<streamable-http-url>/server-card`).
 */
import { createRoute, z } from "@hono/zod-openapi";
import { ApiError } from "../../domain/common.ts";
import { AppError } from "../../domain/errors.ts";
import { SERVER_CARD_TYPE, ServerCard, serverCard } from "../../mcp/discovery.ts";
import { toolInput } from "../../mcp/guides.ts";
import { TRUST_TOOLS } from "../../mcp/tools.ts";
import { BUYER_TOOLS } from "../../mcp/buyer_tools.ts";
import { authenticateBuyerToken } from "../../serve/buyer_reads.ts";
import { sha256HexSync } from "../../lib/hash.ts";
import { ifNoneMatchHits } from "../../serve/artifacts.ts";
import { clientIp } from "../client_ip.ts";
import { notModifiedHeaders } from "../compression.ts";
import { createRouter } from "../env.ts";
import { errors } from "../openapi.ts";

/** POST /mcp, and the 405 answers for GET and DELETE; mounted at /mcp. */
export const mcpRoutes = createRouter();

const tags = ["MCP"];

const JsonRpcError = z.object({
  jsonrpc: z.literal("2.0"),
  id: z.union([z.string(), z.number()]).nullable(),
  error: z.object({ code: z.int(), message: z.string(), data: z.unknown().optional() }),
}).openapi("JsonRpcError");

const JsonRpcMessage = z.looseObject({
  jsonrpc: z.literal("2.0"),
  id: z.union([z.string().max(256), z.number()]).optional(),
  method: z.string().max(128).optional(),
}).openapi("JsonRpcMessage", {
  description: "A JSON-RPC 2.0 request or notification of the Model Context Protocol",
});

const rpcError = (description: string) => ({
  content: { "application/json": { schema: JsonRpcError } },
  description,
});

/** Messages per JSON-RPC batch: each is a tool call over published data, so bound the work. */
const MAX_BATCH = 100;

/** Every tool with its arguments, e.g. `get_trust_history { projectSlug, cursor?, limit? }`. */
const TOOL_LIST = TRUST_TOOLS.map((t) => `${t.name} ${toolInput(t)}`).join(", ");
const BUYER_TOOL_LIST = BUYER_TOOLS.map((t) => `${t.name} ${toolInput(t)}`).join(", ");

/** A buyer token's header: its presence makes the request a buyer's, checked before any JSON-RPC. */
const BUYER_BEARER = /^Bearer\s+tpb_/i;

const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i;

mcpRoutes.openapi(
  createRoute({
    method: "post",
    path: "/",
    operationId: "postMcpMessage",
    tags,
    summary:
      "Send MCP JSON-RPC messages (Streamable HTTP, stateless; no credentials, or a buyer token)",
    description:
      `Tools: ${TOOL_LIST}; resource template trust://{projectSlug}/trust.json. With a buyer token (Authorization: Bearer tpb_…, a person's session or a buyer organization's service token) also ${BUYER_TOOL_LIST}, which read what the token's buyer organization is granted on the trust center that issued it, as the /public/trust/{orgSlug}/buyer/documents routes do (every read recorded in the vendor's access inventory); an unknown, revoked or expired buyer token answers 401. Requires Accept: application/json, text/event-stream. The Host (and any Origin) must be this service's own; see /.well-known/mcp.json.`,
    security: [{}, { buyerBearer: [] }],
    request: {
      body: {
        required: true,
        content: {
          "application/json": {
            schema: z.union([JsonRpcMessage, z.array(JsonRpcMessage).min(1).max(MAX_BATCH)]),
          },
        },
      },
    },
    responses: {
      200: {
        content: { "application/json": { schema: z.looseObject({ jsonrpc: z.literal("2.0") }) } },
        description: "The JSON-RPC response (or responses, for a batch)",
      },
      202: { description: "Notifications or responses only: accepted, nothing to answer" },
      400: {
        content: { "application/json": { schema: z.union([JsonRpcError, ApiError]) } },
        description: "Not a valid JSON-RPC message (malformed JSON answers the API's envelope)",
      },
      403: rpcError("The Host or Origin header is not this service's (DNS-rebinding protection)"),
      406: rpcError("Accept does not list both application/json and text/event-stream"),
      ...errors(401, 413, 415),
    },
  }),
  async (c) => {
    const { kv, clock } = c.var.services;
    const authorization = c.req.header("authorization");
    // A buyer token is checked before the SDK loads: refused, it is the REST routes' 401.
    let buyer;
    if (authorization !== undefined && BUYER_BEARER.test(authorization)) {
      const now = clock.now();
      buyer = { ...(await authenticateBuyerToken(kv, { authorization, now })), now };
    }
    // The body middleware consumed the request stream; hand the transport a
    // fresh Request with the same bytes and the JSON it already parsed safely.
    const bytes = await c.req.arrayBuffer();
    const mediaType = (c.req.header("content-type") ?? "").split(";")[0].trim();
    const parsedBody = bytes.byteLength > 0 && JSON_MEDIA_TYPE.test(mediaType)
      ? await c.req.json()
      : undefined;
    const request = new Request(c.req.url, {
      method: "POST",
      headers: c.req.raw.headers,
      body: bytes,
    });
    // The MCP SDK loads on the first POST /mcp, not at start.
    const { answerMcp } = await import("../../mcp/handler.ts");
    return await answerMcp(c.var.services, request, parsedBody, clientIp(c), buyer);
  },
);

const notAllowed = (method: "get" | "delete") =>
  createRoute({
    method,
    path: "/",
    operationId: method === "get" ? "getMcpStream" : "deleteMcpSession",
    tags,
    summary: method === "get"
      ? "Not offered: the server is stateless and opens no server-to-client stream"
      : "Not offered: the server is stateless and has no session to end",
    responses: {
      405: {
        content: { "application/json": { schema: ApiError } },
        description: "Method not allowed; Allow names POST",
      },
    },
  });

for (const method of ["get", "delete"] as const) {
  mcpRoutes.openapi(notAllowed(method), () => {
    throw new AppError(
      "method_not_allowed",
      `${method.toUpperCase()} is not offered on /mcp: this MCP server is stateless, POST JSON-RPC messages instead`,
      { Allow: "POST" },
    );
  });
}

/** The card changes only with configuration or a deploy; the draft suggests an hour. */
const SERVER_CARD_CACHE = "public, max-age=3600";

mcpRoutes.openapi(
  createRoute({
    method: "get",
    path: "/server-card",
    operationId: "getMcpServerCard",
    tags,
    summary:
      "The MCP server card (SEP-2127 draft, schema v1), listed in /.well-known/ai-catalog.json",
    description:
      `Served as ${SERVER_CARD_TYPE} with a strong ETag; If-None-Match answers 304. Readable from any origin.`,
    responses: {
      200: {
        content: { [SERVER_CARD_TYPE]: { schema: ServerCard } },
        headers: z.object({ ETag: z.string() }),
        description: "The server card",
      },
      304: { description: "Not modified: the If-None-Match names the current card" },
    },
  }),
  (c) => {
    const body = JSON.stringify(serverCard(c.var.services.config));
    const etag = `"${sha256HexSync(body)}"`;
    const headers = { etag, "cache-control": SERVER_CARD_CACHE };
    if (ifNoneMatchHits(c.req.header("if-none-match"), etag)) {
      return c.body(null, 304, notModifiedHeaders(c.req.raw, SERVER_CARD_TYPE, headers));
    }
    return c.body(body, 200, { ...headers, "content-type": SERVER_CARD_TYPE });
  },
);
