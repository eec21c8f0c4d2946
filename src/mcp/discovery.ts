/**
 * The machine-readable discovery documents (SPEC.md "Discovery documents"),
 * all built from one table of URLs so that the API catalog, the MCP
 * manifest, the server cards and the plugin descriptor name the same
 * endpoints, and from the same tool list the MCP server registers.
 */
import { z } from "@hono/zod-openapi";
import type { Config } from "../config.ts";
import { EXPORT_FILES } from "../publish/exports/_input.ts";
import { MCP_SERVER_INFO, SUPPORTED_PROTOCOL_VERSIONS } from "./protocol.ts";
import { TRUST_JSON_RESOURCE, TRUST_TOOLS } from "./tools.ts";

/** What the service is, in one sentence (also the llms.txt summary). */
export const SERVICE_SUMMARY =
  "Live, verifiable trust data about software vendors: collectors send evidence, a deterministic evaluator turns it into control states, and operators publish signed, versioned trust profiles that anyone can read without credentials, over HTTP or MCP.";

/** Short form for documents that cap descriptions at 100 characters (server cards). */
const SHORT_DESCRIPTION = "Read-only access to published, signed vendor trust profiles.";

/** RFC 9727 profile of the linkset media type. */
export const API_CATALOG_TYPE =
  'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"';

/** Every URL the discovery documents announce, from BASE_URL. */
export function serviceUrls(config: Config) {
  const base = config.baseUrl;
  return {
    base,
    mcp: `${base}/mcp`,
    openapi: `${base}/openapi.json`,
    health: `${base}/health`,
    jwks: `${base}/.well-known/jwks.json`,
    oauthMetadata: `${base}/.well-known/oauth-authorization-server`,
    apiCatalog: `${base}/.well-known/api-catalog`,
    mcpManifest: `${base}/.well-known/mcp.json`,
    serverCards: `${base}/.well-known/mcp/server-cards.json`,
    /** The card's recommended location: the streamable-HTTP URL + `/server-card`. */
    serverCard: `${base}/mcp/server-card`,
    aiCatalog: `${base}/.well-known/ai-catalog.json`,
    aiPlugin: `${base}/.well-known/ai-plugin.json`,
    llms: `${base}/llms.txt`,
    agentInstructions: `${base}/agent-instructions`,
    setup: `${base}/setup`,
    evaluation: `${base}/docs/evaluation`,
    verifyKit: `${base}/verify.ts`,
    log: `${base}/log`,
    logCheckpoint: `${base}/log/checkpoint`,
    logo: `${base}/static/dashboard/icon.svg`,
    /** Base of the organization trust centers, `/public/trust/{orgSlug}`. */
    trustCenters: `${base}/public/trust/`,
    /** Base of the project trust profiles and their exports, `/trust/{projectSlug}/…`. */
    trustProfiles: `${base}/trust/`,
  };
}

const OPENAPI_TYPE = "application/vnd.oai.openapi+json;version=3.1";

/**
 * The URL of one GET operation's description inside /openapi.json: the document's URL with
 * a JSON Pointer fragment (RFC 6901, `~1` for `/`), percent-encoded where a URI needs it.
 * The export URLs are templated per project, which a linkset href cannot be, so the catalog
 * links each export's description instead.
 */
function operationUrl(openapi: string, path: string): string {
  const pointer = `/paths/${path.replaceAll("~", "~0").replaceAll("/", "~1")}/get`;
  return `${openapi}#${pointer.replaceAll("{", "%7B").replaceAll("}", "%7D")}`;
}

/** The standard exports of a project's versions, each with the format it follows. */
const EXPORTS = [
  {
    file: EXPORT_FILES.oscal,
    title: "NIST OSCAL 1.0.6 Assessment Results of a project's latest version",
  },
  {
    file: EXPORT_FILES.attestation,
    title: "SLSA Verification Summary (in-toto Statement v1 in DSSE) of a project's latest version",
  },
  {
    file: EXPORT_FILES.securityInsights,
    title: "OpenSSF Security Insights 2.0.0 (JSON form) of a project",
  },
] as const;

const Link = z.object({
  href: z.string(),
  type: z.string().optional(),
  title: z.string().optional(),
});

/** An RFC 9727 API catalog: RFC 9264 linkset JSON, one link context per API. */
export const ApiCatalog = z.object({
  linkset: z.array(z.object({
    anchor: z.string(),
    "service-desc": z.array(Link),
    "service-doc": z.array(Link),
    "service-meta": z.array(Link).optional(),
    status: z.array(Link),
  })),
}).openapi("ApiCatalog", { description: "RFC 9727 API catalog in the RFC 9264 linkset format" });

/** The RFC 9727 catalog: the HTTP API and the MCP server, each with its description and docs. */
export function apiCatalog(config: Config): z.infer<typeof ApiCatalog> {
  const u = serviceUrls(config);
  const docs = [
    { href: u.agentInstructions, type: "text/html", title: "Agent instructions" },
    { href: `${u.agentInstructions}.md`, type: "text/markdown", title: "Agent instructions" },
  ];
  return {
    linkset: [
      {
        anchor: u.base,
        "service-desc": [{
          href: u.openapi,
          type: "application/vnd.oai.openapi+json;version=3.1",
          title: "OpenAPI 3.1 description",
        }],
        "service-doc": [...docs, { href: `${u.setup}.md`, type: "text/markdown", title: "Setup" }],
        "service-meta": [
          { href: u.oauthMetadata, type: "application/json", title: "OAuth 2.0 metadata" },
          { href: u.jwks, type: "application/jwk-set+json", title: "Signing keys" },
          { href: u.llms, type: "text/plain", title: "llms.txt" },
          {
            href: u.log,
            type: "application/json",
            title: "Publication log (RFC 6962 Merkle tree)",
          },
          { href: u.logCheckpoint, type: "text/plain", title: "Publication log checkpoint" },
          {
            href: u.verifyKit,
            type: "application/typescript",
            title: "Verifier kit: deno run --allow-net <this URL> <slug>",
          },
        ],
        status: [{ href: u.health, type: "application/json" }],
      },
      {
        anchor: u.mcp,
        "service-desc": [
          { href: u.mcpManifest, type: "application/json", title: "MCP server manifest" },
          { href: u.serverCard, type: SERVER_CARD_TYPE, title: "MCP server card" },
          { href: u.serverCards, type: "application/json", title: "MCP server cards (list)" },
        ],
        "service-doc": docs,
        status: [{ href: u.health, type: "application/json" }],
      },
      {
        // Project trust profiles and their standard exports, per project slug and version.
        anchor: u.trustProfiles,
        "service-desc": [
          {
            href: operationUrl(u.openapi, "/trust/{projectSlug}/trust.json"),
            type: OPENAPI_TYPE,
            title: "Signed trust profile: GET /trust/{projectSlug}/trust.json (JWS at .jws)",
          },
          ...EXPORTS.map(({ file, title }) => ({
            href: operationUrl(u.openapi, `/trust/{projectSlug}/${file}`),
            type: OPENAPI_TYPE,
            title: `${title}: GET /trust/{projectSlug}/${file}` +
              (file === EXPORT_FILES.attestation ? "" : " (JWS at .jws)") +
              `; each version's at /trust/{projectSlug}/versions/{n}/${file}`,
          })),
        ],
        "service-doc": [{
          href: `${u.agentInstructions}.md`,
          type: "text/markdown",
          title: "Agent instructions: trust profiles and their exports",
        }],
        status: [{ href: u.health, type: "application/json" }],
      },
      {
        // Organization trust centers: GET /public/trust/{orgSlug} (JSON, HTML or Markdown).
        anchor: u.trustCenters,
        "service-desc": [{
          href: u.openapi,
          type: "application/vnd.oai.openapi+json;version=3.1",
          title:
            "Organization trust centers: GET /public/trust/{orgSlug} (getOrganizationTrustCenter)",
        }],
        "service-doc": [{
          href: `${u.agentInstructions}.md`,
          type: "text/markdown",
          title: "Agent instructions: trust centers",
        }],
        status: [{ href: u.health, type: "application/json" }],
      },
    ],
  };
}

const ToolSummary = z.object({ name: z.string(), title: z.string(), description: z.string() });

/** The MCP server manifest at /.well-known/mcp.json. */
export const McpManifest = z.object({
  name: z.string(),
  title: z.string(),
  version: z.string(),
  description: z.string(),
  transport: z.object({ type: z.literal("streamable-http"), url: z.string() }),
  authentication: z.object({ type: z.literal("none") }),
  protocolVersions: z.array(z.string()),
  capabilities: z.object({ tools: z.object({}), resources: z.object({}) }),
  tools: z.array(ToolSummary),
  resourceTemplates: z.array(z.object({
    name: z.string(),
    uriTemplate: z.string(),
    mimeType: z.string(),
    description: z.string(),
  })),
  documentation: z.string(),
}).openapi("McpServerManifest");

/** /.well-known/mcp.json: where the server is, what it offers, and that it needs no credentials. */
export function mcpManifest(config: Config): z.infer<typeof McpManifest> {
  const u = serviceUrls(config);
  return {
    name: MCP_SERVER_INFO.name,
    title: MCP_SERVER_INFO.title,
    version: MCP_SERVER_INFO.version,
    description: SERVICE_SUMMARY,
    transport: { type: "streamable-http", url: u.mcp },
    authentication: { type: "none" },
    protocolVersions: [...SUPPORTED_PROTOCOL_VERSIONS],
    capabilities: { tools: {}, resources: {} },
    tools: TRUST_TOOLS.map(({ name, title, description }) => ({ name, title, description })),
    resourceTemplates: [{
      name: TRUST_JSON_RESOURCE.name,
      uriTemplate: TRUST_JSON_RESOURCE.uriTemplate,
      mimeType: TRUST_JSON_RESOURCE.mimeType,
      description: TRUST_JSON_RESOURCE.description,
    }],
    documentation: `${u.agentInstructions}.md`,
  };
}

/** Media type of a server card (SEP-2127 draft, docs/discovery.md of its extension). */
export const SERVER_CARD_TYPE = "application/mcp-server-card+json";
/** Media type of an AI Catalog. */
export const AI_CATALOG_TYPE = "application/ai-catalog+json";
/** The only `$schema` the draft's server-card schema accepts (a `/vN/` family, not a date). */
export const SERVER_CARD_SCHEMA =
  "https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json";

/** One MCP server card, in the shape of the server-card draft (SEP-2127, schema v1). */
export const ServerCard = z.object({
  $schema: z.literal(SERVER_CARD_SCHEMA),
  name: z.string().min(3).max(200).regex(/^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/),
  version: z.string().max(255),
  description: z.string().min(1).max(100),
  title: z.string().min(1).max(100),
  websiteUrl: z.string(),
  icons: z.array(z.object({ src: z.string(), mimeType: z.string(), sizes: z.array(z.string()) })),
  remotes: z.array(z.object({
    type: z.literal("streamable-http"),
    url: z.string(),
    supportedProtocolVersions: z.array(z.string()),
  })),
}).openapi("McpServerCard", { description: "MCP server card (SEP-2127 draft, schema v1)" });

/** BASE_URL's host as a name segment: brackets of an IPv6 address dropped, `:` as `-`. */
function hostSegment(config: Config): string {
  return new URL(config.baseUrl).hostname.replace(/^\[|\]$/g, "").replace(/:/g, "-");
}

/** The card's reverse-DNS name: `com.example.trust/trust-profile-service` for trust.example.com. */
function cardName(config: Config): string {
  const host = hostSegment(config);
  const namespace = /^[\d.-]+$/.test(host) ? host : host.split(".").reverse().join(".");
  return `${namespace}/${MCP_SERVER_INFO.name}`;
}

/** The server card of this deployment's one MCP server, served at `/mcp/server-card`. */
export function serverCard(config: Config): z.infer<typeof ServerCard> {
  const u = serviceUrls(config);
  return {
    $schema: SERVER_CARD_SCHEMA,
    name: cardName(config),
    version: MCP_SERVER_INFO.version,
    description: SHORT_DESCRIPTION,
    title: MCP_SERVER_INFO.title,
    websiteUrl: u.agentInstructions,
    icons: [{ src: u.logo, mimeType: "image/svg+xml", sizes: ["any"] }],
    remotes: [{
      type: "streamable-http",
      url: u.mcp,
      supportedProtocolVersions: [...SUPPORTED_PROTOCOL_VERSIONS],
    }],
  };
}

/** /.well-known/mcp/server-cards.json (SPEC.md): the same card, in a list. */
export function serverCards(config: Config): z.infer<typeof ServerCard>[] {
  return [serverCard(config)];
}

/**
 * An AI Catalog (github.com/Agent-Card/ai-catalog, specVersion 1.0), the domain-level
 * discovery document the server-card draft points clients to. The draft names an entry's
 * media type `type` (the catalog's ADR 0014); the catalog's 1.0 text still says `mediaType`:
 * entries carry both, with the same value, so readers of either find it.
 */
export const AiCatalog = z.object({
  specVersion: z.literal("1.0"),
  host: z.object({
    displayName: z.string(),
    identifier: z.string(),
    documentationUrl: z.string(),
    logoUrl: z.string(),
  }),
  entries: z.array(z.object({
    identifier: z.string(),
    displayName: z.string(),
    type: z.string(),
    mediaType: z.string(),
    url: z.string(),
    description: z.string(),
    version: z.string(),
  })),
}).openapi("AiCatalog", { description: "AI Catalog 1.0 listing the MCP server card" });

/** /.well-known/ai-catalog.json: one entry, this deployment's MCP server card (by URL). */
export function aiCatalog(config: Config): z.infer<typeof AiCatalog> {
  const u = serviceUrls(config);
  const host = hostSegment(config);
  const card = serverCard(config);
  return {
    specVersion: "1.0",
    host: {
      displayName: MCP_SERVER_INFO.title,
      identifier: host,
      documentationUrl: `${u.agentInstructions}.md`,
      logoUrl: u.logo,
    },
    entries: [{
      // The draft's domain-anchored form, urn:air:{publisher}:{namespace}:{name}.
      identifier: `urn:air:${host}:mcp:${MCP_SERVER_INFO.name}`,
      displayName: card.title,
      type: SERVER_CARD_TYPE,
      mediaType: SERVER_CARD_TYPE,
      url: u.serverCard,
      description: card.description,
      version: card.version,
    }],
  };
}

/** The ai-plugin.json (v1) descriptor, with its published length limits. */
export const AiPlugin = z.object({
  schema_version: z.literal("v1"),
  name_for_human: z.string().max(20),
  name_for_model: z.string().regex(/^[a-zA-Z0-9_]{1,50}$/),
  description_for_human: z.string().max(120),
  description_for_model: z.string().max(8000),
  auth: z.object({ type: z.literal("none") }),
  api: z.object({
    type: z.literal("openapi"),
    url: z.string(),
    is_user_authenticated: z.boolean(),
  }),
  logo_url: z.string(),
  contact_email: z.string(),
  legal_info_url: z.string(),
}).openapi("AiPluginManifest");

/**
 * /.well-known/ai-plugin.json. There is no configured contact address, so
 * the conventional `security@` mailbox of BASE_URL's host stands in.
 */
export function aiPlugin(config: Config): z.infer<typeof AiPlugin> {
  const u = serviceUrls(config);
  return {
    schema_version: "v1",
    name_for_human: "Trust Profiles",
    name_for_model: "vendor_trust_profiles",
    description_for_human: "Check a software vendor's live, signed security trust profile.",
    description_for_model:
      `Read published trust profiles of software vendors without credentials. Given a project slug (as in /trust/{projectSlug}), GET /trust/{projectSlug} returns the overall state and every control, /trust/{projectSlug}/controls the controls with evidence freshness, /trust/{projectSlug}/signals repository signals, and /trust/{projectSlug}/trust.json the signed document (verify /trust/{projectSlug}/trust.json.jws with ${u.jwks}). A 404 means no public profile exists. Poll at most once per minute per project. The same data is available over MCP at ${u.mcp}.`,
    auth: { type: "none" },
    api: { type: "openapi", url: u.openapi, is_user_authenticated: false },
    logo_url: u.logo,
    contact_email: `security@${new URL(config.baseUrl).hostname}`,
    legal_info_url: `${u.agentInstructions}#terms-of-use`,
  };
}
