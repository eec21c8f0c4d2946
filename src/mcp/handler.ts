/**
 * One POST /mcp exchange: a fresh MCP server and Streamable HTTP transport for the request
 * (stateless, JSON responses, no session). This module holds every static import of the MCP
 * SDK's runtime: src/http/routes/mcp.ts loads it on the first POST /mcp, so a start does not.
 */
// @ts-types="@modelcontextprotocol/sdk/server/webStandardStreamableHttp"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { mcpAllowedHosts, mcpAllowedOrigins } from "./hosts.ts";
import { createTrustReader } from "./reader.ts";
import { createTrustMcpServer } from "./server.ts";
import type { BuyerAccess, BuyerToolDeps } from "./buyer_tools.ts";

/**
 * Answers `request` (whose JSON body, when it has one, is `parsedBody`) from `client`, the
 * caller's address as the service identifies it (per-client limits of the tools); `buyer`
 * when the request carried a valid buyer token (the route checked it), which adds the buyer
 * tools over what its organization is granted.
 */
export async function answerMcp(
  services: Parameters<typeof createTrustReader>[0] & BuyerToolDeps,
  request: Request,
  parsedBody: unknown,
  client?: string,
  buyer?: BuyerAccess,
): Promise<Response> {
  const { config } = services;
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    enableDnsRebindingProtection: true,
    allowedHosts: mcpAllowedHosts(config),
    allowedOrigins: mcpAllowedOrigins(config),
  });
  const server = createTrustMcpServer(
    createTrustReader(services, { client }),
    buyer && { deps: services, access: buyer },
  );
  try {
    await server.connect(transport);
    const response = await transport.handleRequest(request, { parsedBody });
    response.headers.set("Cache-Control", "no-store");
    return response;
  } finally {
    // JSON mode resolves only once every answer is in the body, so closing now loses nothing.
    await server.close();
  }
}
