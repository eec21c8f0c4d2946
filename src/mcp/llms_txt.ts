/**
 * /llms.txt (llmstxt.org format), built from configuration and the same URL table and tool
 * list as the JSON discovery documents, so every link points at a route this deployment serves.
 */
import type { Config } from "../config.ts";
import { SERVICE_SUMMARY, serviceUrls } from "./discovery.ts";
import { TRUST_TOOLS } from "./tools.ts";
import { BUYER_TOOLS } from "./buyer_tools.ts";

/** /llms.txt: an H1, a one-line summary, and sections of links that all resolve here. */
export function llmsTxt(config: Config): string {
  const u = serviceUrls(config);
  return `# Trust Profile Service

> ${SERVICE_SUMMARY}

Public reads need no credentials: \`GET ${u.base}/trust/{projectSlug}\` (JSON, or Markdown with
\`Accept: text/markdown\`), \`/trust/{projectSlug}/trust.json\` and its signature
\`/trust/{projectSlug}/trust.json.jws\`, the version history with each version's state changes
and reasons \`/trust/{projectSlug}/versions\` (JSON, Markdown or HTML), the standard exports
(\`/trust/{projectSlug}/oscal-assessment-results.json\`, \`/vsa.intoto.json\`,
\`/security-insights.json\`, each also under \`/versions/{n}/\`), and a search over public
profiles by name \`/public/trust-profiles?query=…\`. An organization's trust center, every
public project it publishes with its overall state, is \`GET ${u.trustCenters}{orgSlug}\` (JSON,
Markdown with \`Accept: text/markdown\` or \`.md\`, HTML for browsers). A project's updates
(incidents, advisories, changes; Markdown bodies also rendered to safe HTML) are
\`/trust/{projectSlug}/updates\` (JSON, Markdown or HTML; one at \`/updates/{updateId}\`), and the
Atom feed \`/trust/{projectSlug}/feed.xml\` carries both versions and updates. The MCP server is at \`${u.mcp}\`
(Streamable HTTP, POST only); its tools are ${
    TRUST_TOOLS.map((t) => `\`${t.name}\``).join(", ")
  }; with a buyer organization's token (\`Authorization: Bearer tpb_…\`) also ${
    BUYER_TOOLS.map((t) => `\`${t.name}\``).join(" and ")
  }, over the restricted documents it is granted. Poll at most once per minute per project, or have changes pushed to you (below).

## Webhooks

With an account, register an https endpoint for a public project to have its trust events pushed:
\`version.published\`, \`control.regressed\`, \`control.recovered\`, \`update.posted\`,
\`subprocessor.changed\`. Deliveries follow the Standard Webhooks specification (\`webhook-id\`,
\`webhook-timestamp\`, \`webhook-signature\`; body \`{ type, timestamp, data }\`), signed \`v1a\`
(Ed25519) or \`v1\` (HMAC with the endpoint's \`whsec_…\` secret), and retried with exponential
backoff until the endpoint answers 2xx.

- [Webhook API](${u.openapi}): \`POST /projects/{projectId}/webhooks\` with \`{ "url", "events", "signing" }\`, the delivery log \`GET …/webhooks/{webhookId}/deliveries\`, and every payload under \`webhooks\`
- [Webhook signing key](${u.jwks}): the Ed25519 key that verifies \`v1a\` signatures (its \`kid\` is in the \`webhook-key-id\` header)

Documents an organization shares (reports, policies) are listed at \`GET ${u.trustCenters}{orgSlug}/documents\`
(JSON, Markdown at \`documents.md\`, HTML for browsers; MCP tool \`list_documents\`), and a project's own with
the organization-wide ones at \`${u.base}/trust/{projectSlug}/documents\` (the same formats): public ones have a
\`downloadUrl\`; restricted ones are requested by a person with \`POST ${u.trustCenters}{orgSlug}/access-requests\`
(name, work email, company, documentIds, the current \`nda.version\` and \`acceptNda: true\`) or the HTML form at
\`${u.trustCenters}{orgSlug}/documents/request\`; an approved request is answered by email with a time-limited link.

A person (never an agent on anyone's behalf) may subscribe an email address to trust updates
(regressions, updates, subprocessor changes) with \`POST ${u.base}/trust/{projectSlug}/subscriptions\`
or \`POST ${u.trustCenters}{orgSlug}/subscriptions\` and \`{"email": "…"}\`: double opt-in, and
every email has a one-click \`List-Unsubscribe\` (RFC 8058).

## Guides

- [Agent instructions](${u.agentInstructions}.md): when to use this service, how to read profiles over HTTP or MCP, and how to verify signatures
- [Setup guide](${u.setup}.md): create an account and a project, connect a collector, send evidence and publish
- [Evaluation rules](${u.base}/docs/evaluation.md): how evidence becomes control states

## API descriptions

- [OpenAPI 3.1](${u.openapi}): every operation, generated from the validating schemas
- [API catalog](${u.apiCatalog}): RFC 9727 linkset of the HTTP API and the MCP server
- [MCP server manifest](${u.mcpManifest}): transport URL, tools and resource template
- [AI Catalog](${u.aiCatalog}): domain-level discovery, listing the MCP server card
- [MCP server card](${u.serverCard}): the MCP server's card (SEP-2127 draft, schema v1)
- [MCP server cards](${u.serverCards}): the same card in a list
- [Plugin descriptor](${u.aiPlugin}): ai-plugin.json pointing at the OpenAPI description

## Keys and status

- [Signing keys](${u.jwks}): JWKS for trust.json.jws signatures and webhook \`v1a\` signatures (EdDSA)
- [Verifier kit](${u.verifyKit}): \`deno run --allow-net ${u.verifyKit} <slug>\` checks every version's signature, the hash chain and the log inclusion proofs
- [Publication log](${u.log}): every publication in an RFC 6962 Merkle tree; inclusion and consistency proofs
- [Log checkpoint](${u.logCheckpoint}): the latest signed checkpoint (C2SP signed note), to pin
- [OAuth 2.0 metadata](${u.oauthMetadata}): for operators who sign in to manage projects
- [Health](${u.health}): liveness probe

## Optional

- [Dashboard](${u.base}/dashboard/): the operator UI (sign-in required)
`;
}
