/**
 * What the discovery documents say about the MCP server without loading the MCP SDK (which
 * only POST /mcp needs, and loads on its first request): the server's identity and the
 * protocol versions it speaks.
 */
import { API_VERSION } from "../domain/common.ts";

/** The server's identity, as announced at initialization and in the discovery documents. */
export const MCP_SERVER_INFO = {
  name: "trust-profile-service",
  title: "Trust Profile Service",
  version: API_VERSION,
} as const;

/**
 * The protocol versions the SDK's server negotiates, newest first: a copy of its
 * `SUPPORTED_PROTOCOL_VERSIONS` (tests/lazy_modules_test.ts fails when they differ).
 */
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [
  "2025-11-25",
  "2025-06-18",
  "2025-03-26",
  "2024-11-05",
  "2024-10-07",
];
