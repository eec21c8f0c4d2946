/**
 * The MCP server over published trust data (DESIGN.md §10). A new server is
 * built for every request (the transport is stateless), so nothing here
 * outlives one HTTP exchange.
 */
// @ts-types="@modelcontextprotocol/sdk/server/mcp"
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { AppError } from "../domain/errors.ts";
import { SlugParams } from "../domain/publish.ts";
import { MCP_SERVER_INFO } from "./protocol.ts";
import type { TrustReader } from "./reader.ts";
import {
  BUYER_TOOLS,
  type BuyerAccess,
  buyerInstructions,
  type BuyerToolDeps,
} from "./buyer_tools.ts";
import { SERVER_INSTRUCTIONS, TRUST_JSON_RESOURCE, TRUST_TOOLS } from "./tools.ts";

/** JSON-RPC code MCP uses for "resource not found". */
const RESOURCE_NOT_FOUND = -32002;

/**
 * Turns a failed read into a message safe for the caller: 404s keep their
 * text (it is what the HTTP route says), anything else is logged and hidden.
 */
function failureMessage(reader: TrustReader, error: unknown): string {
  // A busy instance (503 with Retry-After) says so, as HTTP does: the agent may try again.
  if (error instanceof AppError && (error.status < 500 || error.code === "unavailable")) {
    return error.message;
  }
  reader.log.error("An MCP read failed", {
    error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
  });
  return "Internal error while reading published trust data";
}

/** The annotations of every tool: each reads, changes nothing and stays within this service. */
const READ_ONLY = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;

/**
 * Builds the server with the trust tools and the trust.json resource template, and, for a
 * request with a valid buyer token (`buyer`), the buyer tools over what its organization is
 * granted.
 */
export function createTrustMcpServer(
  reader: TrustReader,
  buyer?: { deps: BuyerToolDeps; access: BuyerAccess },
): McpServer {
  const instructions = buyer
    ? `${SERVER_INSTRUCTIONS} ${buyerInstructions(buyer.access)}`
    : SERVER_INSTRUCTIONS;
  const server = new McpServer(MCP_SERVER_INFO, { instructions });
  for (const tool of TRUST_TOOLS) {
    server.registerTool(tool.name, {
      title: tool.title,
      description: tool.description,
      inputSchema: tool.inputSchema,
      outputSchema: tool.outputSchema,
      annotations: READ_ONLY,
    }, async (input: Record<string, unknown>) => {
      try {
        const text = await tool.read(reader, input);
        return { content: [{ type: "text", text }], structuredContent: JSON.parse(text) };
      } catch (error) {
        // A missing profile is an answer the agent acts on, not a protocol failure.
        return { content: [{ type: "text", text: failureMessage(reader, error) }], isError: true };
      }
    });
  }
  for (const tool of buyer ? BUYER_TOOLS : []) {
    const { deps, access } = buyer!;
    server.registerTool(tool.name, {
      title: tool.title,
      description: tool.description,
      inputSchema: tool.inputSchema,
      outputSchema: tool.outputSchema,
      // Reading records a view or download in the vendor's inventory, nothing the caller changes.
      annotations: READ_ONLY,
    }, async (input: Record<string, unknown>) => {
      try {
        const { structured, content } = await tool.call(deps, access, input);
        return { content, structuredContent: structured };
      } catch (error) {
        // Outside the grant is an answer the agent acts on (ask the vendor), not a failure.
        return { content: [{ type: "text", text: failureMessage(reader, error) }], isError: true };
      }
    });
  }

  const template = new ResourceTemplate(TRUST_JSON_RESOURCE.uriTemplate, {
    // Listing would scan every project; the template alone tells clients how to read one.
    list: undefined,
  });
  server.registerResource(TRUST_JSON_RESOURCE.name, template, {
    title: TRUST_JSON_RESOURCE.title,
    description: TRUST_JSON_RESOURCE.description,
    mimeType: TRUST_JSON_RESOURCE.mimeType,
  }, async (uri, variables) => {
    const parsed = SlugParams.safeParse({ projectSlug: variables.projectSlug });
    if (!parsed.success) {
      throw new McpError(RESOURCE_NOT_FOUND, `Resource ${uri.href} does not name a project slug`);
    }
    let text: string;
    try {
      text = await reader.trustJson(parsed.data.projectSlug);
    } catch (error) {
      throw new McpError(RESOURCE_NOT_FOUND, failureMessage(reader, error));
    }
    return { contents: [{ uri: uri.href, mimeType: TRUST_JSON_RESOURCE.mimeType, text }] };
  });
  withoutListChanged(server);
  return server;
}

/**
 * Registering a tool or a resource makes the SDK announce `listChanged: true` for it. This
 * server is stateless, with no stream to send a notification on, and its lists never change
 * while it runs, so `initialize` must not announce it: the keys are set to `undefined`, which
 * the capability merge keeps and JSON leaves out (`tools: {}`, `resources: {}`).
 */
function withoutListChanged(server: McpServer): void {
  server.server.registerCapabilities({
    tools: { listChanged: undefined },
    resources: { listChanged: undefined },
  });
}
