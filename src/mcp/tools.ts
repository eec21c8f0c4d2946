/**
 * The MCP tools and resource template, declared once: the server registers
 * them and the discovery documents list them, so the two cannot disagree.
 * Every tool answers exactly the body of one public HTTP route.
 */
import { z } from "@hono/zod-openapi";
import { TrustSignalsResponse } from "../domain/collector.ts";
import {
  OrganizationTrustCenter,
  PublishedTrustControlsResponse,
  PublishedTrustProfile,
  PublishedTrustProfileResponse,
  PublishedVersionListResponse,
  SlugParams,
  TrustProfileSearchQuery,
  TrustProfileSearchResponse,
  VersionPageQuery,
} from "../domain/publish.ts";
import { OrgSlugParams, PublicSubprocessors } from "../domain/subprocessors.ts";
import { PublicDocuments } from "../domain/documents.ts";
import { PublicCertifications } from "../domain/certifications.ts";
import { PublicTrustUpdates, UpdatePageQuery } from "../domain/updates.ts";
import { PublicFrameworkView } from "../domain/frameworks.ts";
import {
  AnswerSearchQuery,
  DEFAULT_ANSWERS_PAGE,
  MAX_ANSWERS_PAGE,
  PublicAnswers,
} from "../domain/answers.ts";
import {
  AnswerQuestionnaireRequest,
  MAX_MCP_QUESTIONS,
  MAX_PUBLIC_MATCH_TEXT,
  PublicQuestionnaireMatches,
} from "../domain/questionnaires.ts";
import { PUBLIC_MATCHING_RATE } from "../serve/questionnaire_public.ts";
import { controlsOf } from "../serve/bodies.ts";
import type { TrustReader } from "./reader.ts";

/** One tool: its contract, the route whose body it returns, and how to read that body. */
export interface TrustTool {
  name: string;
  title: string;
  description: string;
  inputSchema: z.ZodObject;
  outputSchema: z.ZodObject;
  /** The public route with the same body, `{projectSlug}` left as a template. */
  route: string;
  /** Its method: GET unless said (answer_questionnaire POSTs its questions). */
  method?: "POST";
  /** The JSON text of the result (input as validated by inputSchema); its parse is the structured content. */
  read(reader: TrustReader, input: Record<string, unknown>): Promise<string>;
}

/**
 * What each input property of a tool means, as tools/list shows it (the JSON Schema of an MCP
 * tool carries `description`s from the schema itself, not the OpenAPI notes of the routes).
 */
export const INPUT_DESCRIPTIONS: Readonly<Record<string, string>> = {
  projectSlug:
    "The project's public slug, as in /trust/{projectSlug} (search_trust_profiles finds it)",
  orgSlug:
    "The organization's public slug, as in /public/trust/{orgSlug} (list_organization_projects and search_trust_profiles name it)",
  query:
    "Part of a project's name or slug, or of its organization's name, slug or description, case-insensitive",
  q: "Words that must all appear in the question, category, questionnaire ids (e.g. IAM-02.1) or the public answer; omit to list every answer",
  cursor: "The nextCursor of the previous answer, for the next page; omit for the first page",
  limit: "How many entries per page (the schema gives the range; omit for the default)",
  questions: "The buyer's questions, one string each, in the order the answers should follow",
  documentId:
    "The document's id (a UUID), as list_granted_documents gives it for the documents your organization may read",
};

/**
 * The input schema a tool declares: every property described (INPUT_DESCRIPTIONS) and unknown
 * properties refused, so a misspelt argument is a tool error that names it instead of being
 * ignored silently.
 */
export function toolInput<S extends z.ZodObject>(schema: S): S {
  const shape = Object.fromEntries(
    Object.entries(schema.shape).map(([name, property]) => {
      const description = INPUT_DESCRIPTIONS[name];
      if (!description) throw new Error(`MCP input property ${name} has no description`);
      return [name, (property as z.ZodType).describe(description)];
    }),
  );
  return z.strictObject(shape) as unknown as S;
}

/** A tool whose `read` receives its own validated input type. */
function tool<S extends z.ZodObject>(
  definition: Omit<TrustTool, "inputSchema" | "read"> & {
    inputSchema: S;
    read(reader: TrustReader, input: z.infer<S>): Promise<string>;
  },
): TrustTool {
  return { ...definition, inputSchema: toolInput(definition.inputSchema) } as unknown as TrustTool;
}

/** A tool over one project's latest data, taking `{ projectSlug }`. */
function slugTool(
  definition: Omit<TrustTool, "inputSchema" | "read"> & {
    read(reader: TrustReader, projectSlug: string): Promise<string>;
  },
): TrustTool {
  const { read, ...rest } = definition;
  return tool({
    ...rest,
    inputSchema: SlugParams,
    read: (reader, input) => read(reader, input.projectSlug),
  });
}

/** Input of get_trust_history: the project and, optionally, a page of its versions. */
export const TrustHistoryInput = SlugParams.extend({
  cursor: VersionPageQuery.shape.cursor,
  limit: z.number().int().min(1).max(100).optional().openapi({
    description: "Versions per page, 1 to 100 (default 100)",
  }),
});

/** Input of search_answers: the organization, optionally words to search for, and a page. */
export const AnswerSearchInput = OrgSlugParams.extend({
  q: AnswerSearchQuery.shape.q.openapi({
    description:
      "Words that must all appear in the question, category, questionnaire ids (e.g. IAM-02.1) or the public answer; omit to list every answer",
  }),
  cursor: AnswerSearchQuery.shape.cursor,
  limit: z.number().int().min(1).max(MAX_ANSWERS_PAGE).optional().openapi({
    description: `Answers per page, 1 to ${MAX_ANSWERS_PAGE} (default ${DEFAULT_ANSWERS_PAGE})`,
  }),
});

/** Input of answer_questionnaire: the organization and the buyer's questions. */
export const AnswerQuestionnaireInput = OrgSlugParams.extend({
  questions: AnswerQuestionnaireRequest.shape.questions,
});

/** Input of get_trust_updates: the project and, optionally, a page of its updates. */
export const TrustUpdatesInput = SlugParams.extend({
  cursor: UpdatePageQuery.shape.cursor,
  limit: z.number().int().min(1).max(100).optional().openapi({
    description: "Updates per page, 1 to 100 (default 20)",
  }),
});

const ABOUT_SLUG =
  "projectSlug is the vendor project's public slug, as in /trust/{projectSlug} (for example from a trust page link).";
const ABOUT_ERRORS =
  "Unknown, private and never-published projects give an error result saying no public trust profile exists; do not retry those.";
const ABOUT_POLLING =
  "Data changes only when the vendor publishes: call at most once per minute per project.";

/**
 * The four tools SPEC.md names, then the history and the search, in the order agents
 * should consider them.
 */
export const TRUST_TOOLS: readonly TrustTool[] = [
  slugTool({
    name: "get_trust_profile",
    title: "Published trust profile",
    description:
      `The latest published trust profile of a vendor's project: overall state (pass, fail, stale, degraded, unknown), counts per state, and every control with its state, confidence and freshness. Beside the signed profile: openUpdates, the incidents and advisories not yet resolved (mention them first), and certifications, what the vendor declares now (SOC 2, ISO/IEC 27001…, not verified by this service). Use it first to answer whether a vendor currently meets its security controls. Same body as GET /trust/{projectSlug}. ${ABOUT_SLUG} ${ABOUT_ERRORS} ${ABOUT_POLLING}`,
    outputSchema: PublishedTrustProfileResponse,
    route: "/trust/{projectSlug}",
    read: (reader, slug) => reader.profile(slug),
  }),
  slugTool({
    name: "get_trust_controls",
    title: "Controls and evidence freshness",
    description:
      `Explains why each control of the latest published version of a project is in its state: for every control its state, confidence, reason (the evaluator's one-line explanation, e.g. "Trivy report: 2 critical, 0 high"), the evidence it was decided from (payload digest sha256:… and observedAt), its group (supply_chain, vulnerability_management, runtime, policy, liveness), what it checks, freshUntil and nextCheckAt, plus the version, summary, vendor and, when the version declares certifications, declaredByVendor (signed with it, not verified by this service). Use it to explain why a control passes or fails, or when evidence goes stale. Same body as GET /trust/{projectSlug}/controls. ${ABOUT_SLUG} ${ABOUT_ERRORS} ${ABOUT_POLLING}`,
    outputSchema: PublishedTrustControlsResponse,
    route: "/trust/{projectSlug}/controls",
    read: async (reader, slug) => JSON.stringify(controlsOf(await reader.trustJson(slug))),
  }),
  slugTool({
    name: "get_trust_signals",
    title: "Repository signals",
    description:
      `The project's latest repository signal detection with its timestamp (detectedAt) and commit: detected CI/CD, monitoring, authentication and cloud providers, and whether a security contact is published. signals is null when the project never submitted a detection. Same body as GET /trust/{projectSlug}/signals. ${ABOUT_SLUG} Unknown and private projects give an error result. ${ABOUT_POLLING}`,
    outputSchema: TrustSignalsResponse,
    route: "/trust/{projectSlug}/signals",
    read: async (reader, slug) => JSON.stringify({ signals: await reader.signals(slug) }),
  }),
  slugTool({
    name: "get_trust_json",
    title: "Machine-readable trust state (trust.json)",
    description:
      `The exact trust.json document of the latest version (schemaVersion 1): the bytes that /trust/{projectSlug}/trust.json.jws signs with EdDSA, verifiable with the keys at /.well-known/jwks.json. Use it when you need to store, compare or verify the trust state. Same body as GET /trust/{projectSlug}/trust.json. ${ABOUT_SLUG} ${ABOUT_ERRORS} ${ABOUT_POLLING}`,
    outputSchema: PublishedTrustProfile,
    route: "/trust/{projectSlug}/trust.json",
    read: (reader, slug) => reader.trustJson(slug),
  }),
  tool({
    name: "get_trust_history",
    title: "Version history with state changes",
    description:
      `The published versions of a project, newest first: each version's number, publication time, overall state, digest (the hash chain) and the controls whose state changed since the version before it, with before → after and the reason of the new state (reason is null for versions published before reasons were recorded). Use it to tell when and why a control started failing or recovered. Paginated: pass nextCursor as cursor for older versions; limit is 1 to 100 (default 100). Same body as GET /trust/{projectSlug}/versions (with the same cursor and limit). ${ABOUT_SLUG} ${ABOUT_ERRORS} ${ABOUT_POLLING}`,
    inputSchema: TrustHistoryInput,
    outputSchema: PublishedVersionListResponse,
    route: "/trust/{projectSlug}/versions",
    read: async (reader, { projectSlug, cursor, limit }) =>
      JSON.stringify(await reader.history(projectSlug, { cursor, limit })),
  }),
  tool({
    name: "search_trust_profiles",
    title: "Find a vendor's trust profile",
    description:
      "Public trust profiles whose project name or slug contains the query, or whose organization's name, slug, display name or description does (case-insensitive; project matches first, then organization names, then descriptions; exact and prefix matches first, at most 20), each with its slug, name, overall state, latest version, publication time and organization (name and orgSlug). Use it when you know a vendor's or product's name but not its project slug, then call get_trust_profile with the slug, or list_organization_projects with the orgSlug. Private projects and projects that never published never appear; an empty profiles list means no match. Same body as GET /public/trust-profiles?query={query}.",
    inputSchema: TrustProfileSearchQuery,
    outputSchema: TrustProfileSearchResponse,
    route: "/public/trust-profiles?query={query}",
    read: async (reader, { query }) => JSON.stringify(await reader.search(query)),
  }),
  tool({
    name: "get_subprocessors",
    title: "Subprocessors of a vendor",
    description:
      "The third parties (subprocessors) an organization discloses: each with its name, purpose, location (country or region) and website, and the history of additions, changes and removals, newest first, with the fields before and after. Use it to answer where a vendor's data goes and what changed recently. orgSlug is the organization's public slug, as in /public/trust/{orgSlug}. Unknown organizations give an error result. Same body as GET /public/trust/{orgSlug}/subprocessors.",
    inputSchema: OrgSlugParams,
    outputSchema: PublicSubprocessors,
    route: "/public/trust/{orgSlug}/subprocessors",
    read: async (reader, { orgSlug }) => JSON.stringify(await reader.subprocessors(orgSlug)),
  }),
  tool({
    name: "list_documents",
    title: "Documents a vendor shares",
    description:
      "The documents an organization shares on its trust center (reports, policies, certificates), by title: public ones with their type, size and downloadUrl; restricted ones by title only, with the requestAccessUrl where a person asks for them (name, work email, company, accepting the NDA in nda; acceptingRequests says whether requests are open). Documents of private projects are left out. Use it to answer whether a vendor shares e.g. a SOC 2 report or penetration test and how to get it; never request access on anyone's behalf. orgSlug is the organization's public slug, as in /public/trust/{orgSlug}. Unknown organizations give an error result. Same body as GET /public/trust/{orgSlug}/documents.",
    inputSchema: OrgSlugParams,
    outputSchema: PublicDocuments,
    route: "/public/trust/{orgSlug}/documents",
    read: async (reader, { orgSlug }) => JSON.stringify(await reader.documents(orgSlug)),
  }),
  tool({
    name: "get_trust_updates",
    title: "Incidents, advisories and changes",
    description:
      `The updates a vendor posted for a project, newest first: each with its kind (incident, advisory, change), title, Markdown body (and the body as safe HTML), postedAt, updatedAt, resolvedAt (null while open) and the URL of its page. Use it to answer whether a vendor has an ongoing incident or announced a change. Paginated: pass nextCursor as cursor; limit is 1 to 100 (default 20). Same body as GET /trust/{projectSlug}/updates. ${ABOUT_SLUG} Unknown and private projects give an error result. Updates appear as soon as they are posted: call at most once per minute per project.`,
    inputSchema: TrustUpdatesInput,
    outputSchema: PublicTrustUpdates,
    route: "/trust/{projectSlug}/updates",
    read: async (reader, { projectSlug, cursor, limit }) =>
      JSON.stringify(await reader.updates(projectSlug, { cursor, limit })),
  }),
  tool({
    name: "list_organization_projects",
    title: "A vendor's public projects and trust center",
    description:
      "An organization's trust center: every public project that has published, each with its slug, name, overall state, counts per state, latest version, publication time and trust page URL; and, beside them, the vendor's profile, its incidents and advisories not yet resolved (openUpdates, mention them first), the certifications it declares (not verified by this service), the documents it shares (with acceptingRequests and accessRequestUrl for restricted ones) and the subprocessors URL. Use it when you know the vendor (orgSlug, e.g. from search_trust_profiles) and want its products, then call get_trust_profile with a project's slug. orgSlug is the organization's public slug, as in /public/trust/{orgSlug}. Unknown organizations give an error result. Same body as GET /public/trust/{orgSlug}.",
    inputSchema: OrgSlugParams,
    outputSchema: OrganizationTrustCenter,
    route: "/public/trust/{orgSlug}",
    read: async (reader, { orgSlug }) => JSON.stringify(await reader.trustCenter(orgSlug)),
  }),
  tool({
    name: "get_certifications",
    title: "Certifications and attestations of a vendor",
    description:
      "The certifications and attestations an organization declares (SOC 2 Type I/II, ISO/IEC 27001:2022, 27017, 27018, 27701, PCI DSS 4.0, HIPAA, GDPR, CSA STAR, Cyber Essentials, FedRAMP, TISAX, BSI C5, others by name), for the whole organization or one of its public projects: each with its framework id and name, status as of now (achieved, in_progress, or expired once expiresAt has passed), auditor or certification body, audit period, issue and expiry dates, scope, public registry URL, and the linked report (title, sha256 digest, and a download or access-request URL). Use it to answer \"are you SOC 2 Type II / ISO 27001 certified, by whom, until when?\". They are declared by the vendor, not verified by this service: say so when you report them; each published version's trust.json signs them as declared at publication (get_trust_json, declaredByVendor). orgSlug is the organization's public slug, as in /public/trust/{orgSlug}. Unknown organizations give an error result. Same body as GET /public/trust/{orgSlug}/certifications.",
    inputSchema: OrgSlugParams,
    outputSchema: PublicCertifications,
    route: "/public/trust/{orgSlug}/certifications",
    read: async (reader, { orgSlug }) => JSON.stringify(await reader.certifications(orgSlug)),
  }),
  slugTool({
    name: "get_trust_frameworks",
    title: "Framework mappings (SOC 2, ISO 27001, SSDF, SLSA)",
    description:
      `Which criteria of SOC 2 (2017 Trust Services Criteria ids such as CC7.1), ISO/IEC 27001:2022 Annex A (A.8.8), NIST SSDF (PW.4.1, RV.1.1) and SLSA v1.0 Build track the controls of a project's latest version support: per framework, each supported criterion with our short wording, and its controls with their state and when their evidence was observed. A mapping is not an audit opinion; criteria without a control are not listed. Use it to answer how a vendor's controls relate to a buyer's framework. Same body as GET /trust/{projectSlug}/frameworks. ${ABOUT_SLUG} ${ABOUT_ERRORS} ${ABOUT_POLLING}`,
    outputSchema: PublicFrameworkView,
    route: "/trust/{projectSlug}/frameworks",
    read: async (reader, slug) => JSON.stringify(await reader.frameworks(slug)),
  }),
  tool({
    name: "search_answers",
    title: "Vendor's answers to security questions",
    description:
      "Searches an organization's answers to security questionnaire questions, so a questionnaire can be filled from the vendor's own words: each answer with its question, category, the standard questionnaire ids it covers (CAIQ v4 such as IAM-02.1, SIG), the answer in Markdown (and safe HTML) and its citations (controls with their current published state and project, documents with their download or request URL, certifications by id). Restricted answers come by question only, with requestAccessUrl where a person asks for them; never request access on anyone's behalf. Search with q (all words must match the question, category, questionnaire ids or public answer; best first), e.g. q=IAM-02.1 or q=encryption at rest; omit q for every answer. Results come in pages (matched says how many in all): while nextCursor is not null, call again with the same q and cursor=nextCursor for more. Answers missing from every page are not answered: say so rather than guessing. orgSlug is the organization's public slug, as in /public/trust/{orgSlug}. Unknown organizations give an error result. Same body as GET /public/trust/{orgSlug}/answers?q={q}&cursor={cursor}&limit={limit}.",
    inputSchema: AnswerSearchInput,
    outputSchema: PublicAnswers,
    route: "/public/trust/{orgSlug}/answers?q={q}",
    read: async (reader, { orgSlug, ...query }) =>
      JSON.stringify(await reader.answers(orgSlug, query)),
  }),
  tool({
    name: "answer_questionnaire",
    title: "Answer a buyer's questionnaire from the vendor's data",
    description:
      `Matches up to ${MAX_MCP_QUESTIONS} questions of a buyer's own questionnaire (each its text and, when the form has one, its id such as CAIQ IAM-02.1 or SIG A.1) against an organization's public knowledge base, without any model: first exact questionnaire-id matches, then full-text (BM25) matches over answers, control names and framework criteria. Per question, in the order given: best (the top suggestion when it reaches the threshold, else null: say the vendor has not answered it) and the suggestions, each with its text (Markdown), score, by (id or text), reason (the id, or the shared terms) and citations: controls with their state and evidence time in the latest published version and the version-pinned trust.json URL, certifications (declared, not verified by this service), documents. A restricted answer comes by question only, with empty text and restricted: true, and is never best nor counted in answered: a question only restricted answers reach has status restricted and requestAccessUrl (the trust center's access request form; null while the vendor takes no requests): point the buyer there, never request access on anyone's behalf. Same questions and data give the same result. orgSlug is the organization's public slug, as in /public/trust/{orgSlug}. Unknown organizations give an error result. Same body as POST /public/trust/{orgSlug}/questionnaire-answers with { questions }. Bounded: a text longer than ${MAX_PUBLIC_MATCH_TEXT} characters is cut at a word (truncated: true, fullTextUrl has the whole answer); when the body would pass its byte budget the suggestions after the first show a preview and, last, questions are omitted (omitted: true): ask again with fewer questions. At most ${PUBLIC_MATCHING_RATE.perClient} calls per client and ${PUBLIC_MATCHING_RATE.perOrganization} per organization a minute; beyond, an error result says when to try again.`,
    inputSchema: AnswerQuestionnaireInput,
    outputSchema: PublicQuestionnaireMatches,
    route: "/public/trust/{orgSlug}/questionnaire-answers",
    method: "POST",
    read: async (reader, { orgSlug, questions }) =>
      JSON.stringify(await reader.questionnaire(orgSlug, questions)),
  }),
];

/** The published trust.json of every public project, as an MCP resource template. */
export const TRUST_JSON_RESOURCE = {
  name: "trust-json",
  uriTemplate: "trust://{projectSlug}/trust.json",
  title: "Published trust.json",
  description:
    "The exact trust.json text of a public project's latest published version (the same bytes as GET /trust/{projectSlug}/trust.json).",
  mimeType: "application/json",
} as const;

/** Guidance the server returns at initialization, for agents that read it. */
export const SERVER_INSTRUCTIONS =
  "Read-only access to published vendor trust profiles; no credentials. Find a project slug with search_trust_profiles when you only know a vendor's or product's name; list_organization_projects gives a vendor's public projects. Start with get_trust_profile for a project slug, then get_trust_controls for details, get_trust_history for when and why states changed, or get_trust_signals for repository signals; get_subprocessors gives an organization's subprocessors, get_certifications the certifications it declares (not verified by this service) and list_documents the documents it shares; get_trust_updates a project's incidents, advisories and changes; get_trust_frameworks which SOC 2, ISO 27001, SSDF and SLSA criteria its controls support; search_answers an organization's answers to security questions, with their citations; answer_questionnaire matches a whole list of a buyer's questions against them. get_trust_json (or the trust://{projectSlug}/trust.json resource) gives the signed document. Call each tool at most once per minute per project.";
