/**
 * The answered questionnaire: the buyer's own file with the answer column filled from the
 * accepted and edited rows (Markdown reduced to plain text) and the evidence column linking each
 * answer to its public, verifiable source pinned to the published version (the public answer,
 * and a cited control's `…/versions/N/trust.json`); "No answer" where there is none. The same
 * decisions give the same bytes. Beside it a manifest, a compact JWS signed with the publication
 * key like trust.json, that the verifier kit checks offline (docs/verifier_kit.md), and the
 * share: both as restricted documents behind the access-link flow (NDA, download log).
 */
import type { SigningKey } from "../auth/keys.ts";
import { DOCUMENT_TYPES, type TrustDocument } from "../domain/documents.ts";
import type { Organization } from "../domain/workspace.ts";
import { MANIFEST_CTY } from "../domain/questionnaires.ts";
import type { RowFill, SuggestionCitation } from "../questionnaire/types.ts";
import { sha256Hex, sha256HexSync } from "../lib/hash.ts";
import { loadMarkdown } from "../lib/load_markdown.ts";
import { signDocument } from "../publish/sign.ts";
import { trustCenterUrl } from "../publish/urls.ts";
import { addDocument, checkDocumentRoom } from "../store/documents.ts";
import { getProjectBySlug } from "../store/projects.ts";
import { getPublication } from "../store/publications.ts";
import {
  listDecisions,
  requireQuestionnaire,
  saveQuestionnaire,
  scanRows,
  type StoredQuestionnaire,
  type StoredRow,
} from "../store/questionnaires.ts";
import { loadEngines } from "./questionnaire_engines.ts";
import { answerOf } from "./questionnaire_rows.ts";
import { questionnaireBytes, type QuestionnaireDeps } from "./questionnaires.ts";

/** The longest plain-text answer written in a cell (Excel's cell limit is 32,767). */
const MAX_CELL_TEXT = 32_000;

/** A published version an answer rests on, as the manifest pins it. */
export interface ManifestVersion {
  projectSlug: string;
  version: number;
  trustJsonDigest: string | null;
  trustJsonUrl: string;
}

export interface ManifestRow {
  key: string;
  sheet: string;
  row: number;
  questionSha256: string;
  answerSha256: string;
  citations: { kind: string; id: string; url: string | null }[];
  versions: ManifestVersion[];
}

/** The manifest's payload (docs/questionnaires.md); its keys are in this order. */
export interface Manifest {
  type: "questionnaire-manifest";
  manifestVersion: 1;
  organization: { id: string; slug: string; name: string };
  questionnaire: { id: string; name: string; format: string };
  file: { sha256: string; bytes: number };
  createdAt: string;
  rows: ManifestRow[];
  versions: ManifestVersion[];
}

/**
 * `markdown` as the plain text of a cell: the safe HTML rendering without its tags, blocks and
 * list items on lines of their own, entities decoded, at most MAX_CELL_TEXT characters.
 */
export function plainText(html: string): string {
  const text = html.replace(/<li>/g, "- ")
    .replace(/<\/(p|li|h[1-6]|pre|blockquote|tr|ul|ol)>|<br\s*\/?>|<hr\s*\/?>/g, "\n")
    .replace(/<[^<>]*>/g, "")
    .replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&")
    .split("\n").map((line) => line.replace(/[ \t]+/g, " ").trim()).filter(Boolean).join("\n");
  return text.length <= MAX_CELL_TEXT ? text : `${text.slice(0, MAX_CELL_TEXT - 1)}…`;
}

/** A cited source's public address, or null when it has none. */
function citationUrl(citation: SuggestionCitation, answersUrl: string): string | null {
  switch (citation.kind) {
    case "answer":
      return `${answersUrl}#answer-${citation.id}`;
    case "control":
      return citation.url;
    case "criterion":
      return null;
    default:
      return citation.url;
  }
}

function citationId(citation: SuggestionCitation): string {
  switch (citation.kind) {
    case "control":
      return `${citation.projectSlug}/${citation.controlId}`;
    case "criterion":
      return `${citation.framework} ${citation.criterionId}`;
    default:
      return citation.id;
  }
}

/** The citations an answered row rests on: its accepted suggestion's, or an edit's best one's. */
function citationsOf(row: StoredRow, decision: { state: string; suggestion: number | null }) {
  const suggestion = decision.state === "accepted"
    ? row.suggestions[decision.suggestion ?? 0]
    : row.best;
  if (!suggestion) return [];
  const own: SuggestionCitation[] = suggestion.source.kind === "answer"
    ? [{ kind: "answer", id: suggestion.source.answerId, question: "" }]
    : [];
  const cited = suggestion.citations.filter((c) =>
    !(c.kind === "answer" && own.some((o) => o.kind === "answer" && o.id === c.id))
  );
  return [...own, ...cited];
}

/** The digest of a published version's trust.json, or null when it cannot be found. */
async function pinnedVersion(
  kv: Deno.Kv,
  control: Extract<SuggestionCitation, { kind: "control" }>,
): Promise<ManifestVersion> {
  const project = await getProjectBySlug(kv, control.projectSlug);
  const publication = project ? await getPublication(kv, project.id, control.version) : null;
  return {
    projectSlug: control.projectSlug,
    version: control.version,
    trustJsonDigest: publication?.artifacts.trustJson.digest ?? null,
    trustJsonUrl: control.url,
  };
}

/** What the export writes and the manifest lists, row by row. */
async function answeredRows(
  deps: QuestionnaireDeps,
  organization: Organization,
  record: StoredQuestionnaire,
): Promise<{ fills: RowFill[]; rows: ManifestRow[] }> {
  const markdown = await loadMarkdown();
  const decisions = await listDecisions(deps.kv, organization.id, record.id);
  const answersUrl = `${trustCenterUrl(deps.config, organization.slug)}/answers`;
  const versions = new Map<string, ManifestVersion>();
  const fills: RowFill[] = [];
  const rows: ManifestRow[] = [];
  for await (const row of scanRows(deps.kv, organization.id, record.id)) {
    const decision = decisions.get(row.key);
    const text = answerOf(row, decision);
    if (!decision || text === null) continue;
    const answer = plainText(markdown.renderSafeMarkdown(text));
    const citations = citationsOf(row, decision);
    const pinned: ManifestVersion[] = [];
    for (const citation of citations) {
      if (citation.kind !== "control") continue;
      const id = `${citation.projectSlug}@${citation.version}`;
      if (!versions.has(id)) versions.set(id, await pinnedVersion(deps.kv, citation));
      if (!pinned.includes(versions.get(id)!)) pinned.push(versions.get(id)!);
    }
    const sources = citations.map((c) => citationUrl(c, answersUrl)).filter((u) => u !== null);
    const evidence = [
      ...(decision.state === "edited" ? ["Edited by the vendor"] : []),
      ...new Set(sources),
    ].join("\n");
    fills.push({ key: row.key, answer, evidence: evidence || "Answered by the vendor" });
    rows.push({
      key: row.key,
      sheet: row.sheet,
      row: row.row,
      questionSha256: row.questionSha256,
      answerSha256: sha256HexSync(answer),
      citations: citations.map((c) => ({
        kind: c.kind,
        id: citationId(c),
        url: citationUrl(c, answersUrl),
      })),
      versions: pinned,
    });
  }
  return { fills, rows };
}

/** The answered file's bytes and what they rest on. */
export async function exportQuestionnaire(
  deps: QuestionnaireDeps,
  options: { organization: Organization; id: string },
): Promise<{ record: StoredQuestionnaire; bytes: Uint8Array; rows: ManifestRow[] }> {
  const { organization } = options;
  const { value: record } = await requireQuestionnaire(deps.kv, organization.id, options.id);
  const [original, answered, engines] = await Promise.all([
    questionnaireBytes(deps.blobs, record),
    answeredRows(deps, organization, record),
    loadEngines(),
  ]);
  const { bytes, written } = await engines.fill(
    original,
    record.columns,
    answered.fills,
    record.rowKinds,
  );
  // The manifest names only the rows answered in the file: a row whose cells the buyer had
  // filled keeps the buyer's text, and nothing of ours is claimed there.
  return { record, bytes, rows: answered.rows.filter((row) => written.has(row.key)) };
}

/** The file name of the answered file. */
export function exportFileName(record: StoredQuestionnaire): string {
  const base = record.name.normalize("NFKD").replace(/[^\w.-]+/g, "-").replace(/^-+|(?<!-)-+$/g, "")
    .slice(0, 80);
  return `${base || "questionnaire"}-answered.${record.format}`;
}

/** The manifest's payload for an export. */
export async function manifestOf(
  organization: Organization,
  exported: { record: StoredQuestionnaire; bytes: Uint8Array; rows: ManifestRow[] },
  now: Date,
): Promise<Manifest> {
  const { record, rows } = exported;
  const versions = new Map<string, ManifestVersion>();
  for (const v of rows.flatMap((r) => r.versions)) versions.set(`${v.projectSlug}@${v.version}`, v);
  return {
    type: "questionnaire-manifest",
    manifestVersion: 1,
    organization: { id: organization.id, slug: organization.slug, name: organization.name },
    questionnaire: { id: record.id, name: record.name, format: record.format },
    file: { sha256: await sha256Hex(exported.bytes), bytes: exported.bytes.byteLength },
    createdAt: now.toISOString(),
    rows,
    versions: [...versions.values()],
  };
}

/** The manifest as a compact JWS signed with the publication key. */
export async function signManifest(key: SigningKey, manifest: Manifest): Promise<string> {
  return await signDocument(key, new TextEncoder().encode(JSON.stringify(manifest)), {
    version: 1,
    cty: MANIFEST_CTY,
  });
}

/**
 * Shares the answered file and its signed manifest as two restricted, unlisted documents of
 * the organization: their titles name the questionnaire (often the buyer), so no public surface
 * lists them. The buyer asks for them at their request URL (accepting the NDA), an owner
 * approves, and the access link serves them with every download logged.
 */
export async function shareQuestionnaire(
  deps: QuestionnaireDeps & { key: SigningKey },
  options: {
    organization: Organization;
    id: string;
    actor: { userId: string; email: string | null };
    now: Date;
  },
): Promise<{ document: TrustDocument; manifest: TrustDocument }> {
  const { organization, now } = options;
  const exported = await exportQuestionnaire(deps, options);
  const jws = new TextEncoder().encode(
    await signManifest(deps.key, await manifestOf(organization, exported, now)),
  );
  await checkDocumentRoom(deps.kv, organization.id);
  await deps.blobs.putMany("document", [exported.bytes, jws]);
  const at = now.toISOString();
  const base = {
    projectId: null,
    visibility: "restricted" as const,
    unlisted: true,
    createdAt: at,
    updatedAt: at,
    createdBy: options.actor,
  };
  const { record } = exported;
  const document = await addDocument(deps.kv, organization.id, {
    ...base,
    id: crypto.randomUUID(),
    title: `${record.name} (answered questionnaire)`.slice(0, 200),
    description: `The buyer's file with answers and evidence filled, SHA-256 ${await sha256Hex(
      exported.bytes,
    )}; verify it with the signed manifest shared beside it and the verifier kit.`,
    type: record.format,
    contentType: DOCUMENT_TYPES[record.format].contentType,
    size: exported.bytes.byteLength,
    sha256: await sha256Hex(exported.bytes),
  });
  const manifest = await addDocument(deps.kv, organization.id, {
    ...base,
    id: crypto.randomUUID(),
    title: `${record.name} (signed manifest)`.slice(0, 200),
    description:
      "A JWS signed with the publication key listing each answered row's question and answer digests and the published versions they rest on.",
    type: "jws",
    contentType: "application/jose",
    size: jws.byteLength,
    sha256: await sha256Hex(jws),
  });
  const entry = await requireQuestionnaire(deps.kv, organization.id, record.id);
  await saveQuestionnaire(deps.kv, entry, { ...entry.value, sharedDocumentId: document.id });
  return { document, manifest };
}
