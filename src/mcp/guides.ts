/**
 * The agent-facing text documents /agent-instructions.md and /setup.md (/llms.txt is in
 * llms_txt.ts). They are built from configuration
 * and the same URL table and tool list as the JSON discovery documents, so
 * every link points at a route this deployment serves.
 */
import type { Config } from "../config.ts";
import { SERVICE_SUMMARY, serviceUrls } from "./discovery.ts";
import { TRUST_JSON_RESOURCE, TRUST_TOOLS, type TrustTool } from "./tools.ts";
import { BUYER_TOOLS } from "./buyer_tools.ts";

/** A tool's arguments as `{ projectSlug, cursor?, limit? }`, from its input schema. */
export function toolInput(tool: Pick<TrustTool, "inputSchema">): string {
  const fields = Object.entries(tool.inputSchema.shape).map(([name, schema]) =>
    (schema as { safeParse(v: unknown): { success: boolean } }).safeParse(undefined).success
      ? `${name}?`
      : name
  );
  return `{ ${fields.join(", ")} }`;
}

/** /agent-instructions.md: when to use the service, and how to read and verify its data. */
export function agentInstructions(config: Config): string {
  const u = serviceUrls(config);
  const tools = TRUST_TOOLS.map((t) =>
    `| \`${t.name}\` | \`${toolInput(t)}\` | \`${t.method ?? "GET"} ${t.route}\` | ${t.title} |`
  ).join("\n");
  const buyerTools = BUYER_TOOLS.map((t) =>
    `| \`${t.name}\` | \`${toolInput(t)}\` | \`GET ${t.route}\` | ${t.title} |`
  ).join("\n");
  return `# Agent instructions

${SERVICE_SUMMARY}

## When to use this service

Use it when you need the current, evidence-based security posture of a software vendor that
publishes a trust profile here: whether its controls pass, how fresh the evidence is, and what
its repositories show. Every answer is published data: the same version gives every reader the
same controls in the same states, and no model is involved in evaluating them.

Do not use it to judge vendors that publish nothing here (you get 404 or an error result), and
never ask anyone for credentials or collector secrets: reading needs none.

## Read over HTTP

All public reads are \`GET\` without credentials. \`{projectSlug}\` is the project's slug, as in
its trust page URL.

| path | answer |
|---|---|
| \`/trust/{projectSlug}\` | \`{ profile }\`; Markdown for \`Accept: text/markdown\`, HTML for browsers |
| \`/trust/{projectSlug}/controls\` | controls with state, confidence and freshness |
| \`/trust/{projectSlug}/signals\` | latest repository signals, or \`{ "signals": null }\` |
| \`/trust/{projectSlug}/trust.json\` | the signed document, exactly as published |
| \`/trust/{projectSlug}/oscal-assessment-results.json\` | NIST OSCAL 1.0.6 Assessment Results: each control an observation and a finding (JWS at \`.jws\`) |
| \`/trust/{projectSlug}/vsa.intoto.json\` | DSSE envelope of an in-toto Statement (SLSA Verification Summary v1) about trust.json's digest |
| \`/trust/{projectSlug}/security-insights.json\` | OpenSSF Security Insights v2, JSON form, only fields the signals support (JWS at \`.jws\`) |
| \`/trust/{projectSlug}/versions\` | versions, newest first, with digests and state changes (before → after, reason); \`?cursor=&limit=\` pages; HTML and Markdown too |
| \`/trust/{projectSlug}/updates\` | incidents, advisories and changes, newest first, with resolvedAt; \`?cursor=&limit=\` pages; HTML and Markdown too |
| \`/trust/{projectSlug}/feed.xml\` | Atom feed of versions and updates |
| \`/trust/{projectSlug}/documents\` | the project's and the organization-wide documents: public ones with \`downloadUrl\`, restricted ones with \`requestAccessUrl\`; every one of the organization's at \`/public/trust/{orgSlug}/documents\` |
| \`/public/trust-profiles?query=…\` | public profiles whose project name or slug contains the query |
| \`/trust/{projectSlug}/.well-known/security.txt\` | RFC 9116 security contact, 404 when none is known |
| \`/public/trust/{orgSlug}\` | the organization's trust center: the vendor and every public project's state |

Unknown and private projects both answer 404 with \`{ "error": { "code", "message" } }\`. The
full contract is [the OpenAPI description](${u.openapi}).

## Read over MCP

Connect to \`${u.mcp}\` with the Streamable HTTP transport (POST, no session, no credentials).
Each tool takes the arguments below and returns the same body as its route, as text and
as \`structuredContent\`:

| tool | arguments | same body as | what |
|---|---|---|---|
${tools}

The resource template \`${TRUST_JSON_RESOURCE.uriTemplate}\` reads the exact trust.json text. An
unknown or private slug gives a tool result with \`isError: true\`; do not retry it.
[The MCP manifest](${u.mcpManifest}) lists the same tools.

### With a buyer token

A buyer organization's service token (\`tpb_…\`, created by its admin on the trust center's buyer
page; a person's session token works too) sent as \`Authorization: Bearer tpb_…\` adds tools over
the restricted documents that organization is granted on the trust center that issued the token,
within the token's scope, with the same answers and refusals as the REST buyer routes; every
read is recorded in the vendor's access inventory. An unknown, revoked or expired token answers
401 before any JSON-RPC is read; another trust center's \`orgSlug\` or a document not granted now
gives a tool result with \`isError: true\`. Never ask anyone for such a token on your own.

| tool | arguments | same scope as | what |
|---|---|---|---|
${buyerTools}

## Polling

Profiles change only when the vendor publishes a new version. Read each project **at most
once per minute**, and honour \`Cache-Control\`. The profile, trust.json and its signature
carry a strong \`ETag\`: send it back in \`If-None-Match\` and accept \`304 Not Modified\`.

## Verify what you read

1. Fetch \`/trust/{projectSlug}/trust.json\` (keep the exact bytes) and
   \`/trust/{projectSlug}/trust.json.jws\`.
2. Verify the compact JWS (EdDSA) with the key named by its \`kid\` in
   [the signing keys](${u.jwks}); its payload must equal the trust.json bytes.
3. The protected header's \`ver\` is the version and \`prev\` the sha256 digest of the previous
   version's trust.json, so \`/trust/{projectSlug}/versions\` forms a hash chain you can check.
4. Every publication is appended to [the publication log](${u.log}), a Merkle tree (RFC 6962
   hashing) whose [checkpoint](${u.logCheckpoint}) is a signed note; a trust.json response's
   \`Link\` header points at its inclusion proof.

Or let the [verifier kit](${u.verifyKit}) do all of it ("Verify this page"):

\`\`\`sh
deno run --allow-net ${u.verifyKit} {projectSlug}
\`\`\`

It fetches the keys, reads every page of the version history, checks every version's JWS, walks
the hash chain, checks each version's inclusion proof against the log's signed checkpoint and that
the versions are exactly the project's entries in the log; it exits non-zero on any failure,
including a missing or reordered version. The first run prints the keys it trusted and the command
that pins them (\`--pin jwks=<kid> --pin log=<verifier key>\`, also shown on each trust page): use
that one afterwards, so a swapped key fails. Save the checkpoint with
\`--save-checkpoint <file>\` (and \`--allow-write\`) and pass it back with
\`--checkpoint <file>\` (\`--allow-read\`) to prove the log only grew since.

The exports are signed with the same publication key: the OSCAL and Security Insights documents
by a compact JWS at \`<document>.jws\` (payload = the exact bytes), the Verification Summary by
its DSSE envelope (Ed25519 over the DSSE PAE; \`keyid\` is the key's \`kid\`).

[How states are decided](${u.base}/docs/evaluation.md) is public too.

## Terms of use

Published profiles state what each vendor's own collectors reported and how this service
evaluated it; they are not an audit. Quote the version and \`publishedAt\` with anything you
derive from them, and link to the trust page.
`;
}

/** How an operator (or an agent acting for one) gets an access token in this deployment. */
function signInStep(config: Config): string {
  const u = serviceUrls(config);
  if (config.auth.mode === "oidc") {
    return `Accounts live at the identity provider \`${config.auth.issuer}\`. Sign in to the
[dashboard](${u.base}/dashboard/), or obtain an access token for the audience
\`${config.auth.audience}\` with the provider's authorization code flow.`;
  }
  const signup = {
    "first-run":
      "The first account is created with the one-time link the service prints at start-up; after that, an owner invites members.",
    open: `Anyone can create an account at ${u.base}/signup.`,
    invite: "Accounts are created from invitations sent by an organization owner.",
  }[config.signup];
  return `${signup} Then sign in to the [dashboard](${u.base}/dashboard/), or get an access token
with the authorization code flow (PKCE S256, public client \`${config.auth.clientId}\`) at
\`${config.auth.authUrl}/oauth2/authorize\` and \`${config.auth.authUrl}/oauth2/token\`, as
described by [the OAuth metadata](${u.oauthMetadata}).`;
}

/** /setup.md: the generic path from nothing to a published trust profile. */
export function setupGuide(config: Config): string {
  const base = config.baseUrl;
  const auth = '-H "Authorization: Bearer $TOKEN" -H "Content-Type: application/json"';
  const secret = '-H "Authorization: Bearer $COLLECTOR_SECRET" -H "Content-Type: application/json"';
  return `# Set up a trust profile

Follow these steps in order. \`$TOKEN\` is a human access token, \`$COLLECTOR_SECRET\` the
collector secret; keep both out of logs and files. Every request and response is JSON and every
error is \`{ "error": { "code", "message" } }\`.

## 1. Create an account

${signInStep(config)}

## 2. Create the workspace and project

\`\`\`sh
curl -fsS -X POST ${base}/onboarding/bootstrap ${auth} \\
  -d '{"workspaceName":"Acme","projectName":"Acme API","projectSlug":"acme-api","projectVisibility":"public"}'
\`\`\`

The answer is \`{ organization, project }\`; keep \`project.id\` as \`$PROJECT_ID\`. Projects are
private unless created public (or changed with \`PATCH /projects/{id}\`); only public projects
are readable without credentials. A second bootstrap answers 409: use \`POST /projects\` for more.

## 3. Create a collector

\`\`\`sh
curl -fsS -X POST ${base}/projects/$PROJECT_ID/collectors ${auth} -d '{"name":"ci"}'
\`\`\`

The answer holds \`collector.id\` (\`$COLLECTOR_ID\`) and \`secret.value\`, shown only this
once: store it in your CI's secret store as \`COLLECTOR_SECRET\`.

## 4. Send evidence

With the collector CLI, which needs only Deno and reads the secret from
\`TRUST_COLLECTOR_SECRET\` (\`help\` prints every option):

\`\`\`sh
export TRUST_COLLECTOR_SECRET="$COLLECTOR_SECRET" TRUST_PROJECT_ID="$PROJECT_ID" TRUST_COLLECTOR_ID="$COLLECTOR_ID"
deno run --allow-net --allow-env --allow-read ${base}/collector.ts heartbeat
deno run --allow-net --allow-env --allow-read ${base}/collector.ts evidence --type sbom sbom.cdx.json
\`\`\`

Or with curl:

\`\`\`sh
curl -fsS -X POST ${base}/collectors/$COLLECTOR_ID/heartbeat ${secret} -d '{"sourceRef":"ci"}'
jq -n --slurpfile sbom sbom.cdx.json --arg p "$PROJECT_ID" '{projectId: $p, evidenceType: "sbom",
  sourceType: "github_actions", sourceRef: "acme/api@main", observedAt: (now | todate),
  payload: $sbom[0]}' | curl -fsS -X POST ${base}/ingest/evidence ${secret} --data-binary @-
\`\`\`

Evidence types are \`sbom\`, \`vulnerability_scan\`, \`build_provenance\`,
\`dependency_inventory\`, \`deployment_snapshot\` and \`policy_result\`; up to 100 records go in
one \`POST /ingest/evidence/batch\`. Repository signals go to \`POST /ingest/signals\` as
\`{ projectId, detection }\`. [The evaluation rules](${base}/docs/evaluation.md) say what
passes.

## 5. Publish

\`\`\`sh
# What would change (per control, before -> after), without publishing:
curl -fsS ${base}/projects/$PROJECT_ID/publish/preview -H "Authorization: Bearer $TOKEN"
curl -fsS -X POST ${base}/projects/$PROJECT_ID/publish -H "Authorization: Bearer $TOKEN"
\`\`\`

Each publish signs a new immutable version. New projects publish only when asked; with
\`PATCH /projects/$PROJECT_ID\` \`{"autoPublish":true}\`, later evidence re-publishes by itself
when a state changes.

## 6. Check the result

- \`${base}/trust/acme-api\`: the published profile (and \`/trust.json\`, \`/trust.json.jws\`)
- \`${base}/projects/$PROJECT_ID/setup.md\` (with your token): the collector steps with the
  project's own ids filled in; \`${base}/trust/acme-api/setup.md\` serves the same guide to anyone
  once the project is public
- [Agent instructions](${base}/agent-instructions.md): how others will read it
`;
}
