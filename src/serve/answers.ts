/**
 * Answers to security questions: checking what an owner writes (citations must name
 * controls and documents of the organization), the public knowledge base with its search,
 * the restricted answers an access link opens, and the rows of the questionnaire export.
 *
 * Cited certifications must be the organization's; publicly, a citation resolves to the
 * certification's framework and status as the trust center shows them (a project-scoped one
 * only while its project is public). A project whose deletion is scheduled is withdrawn: no
 * citation names it, its controls, its documents or its certifications until the deletion is
 * undone (src/serve/public_read.ts).
 */
import type { Config } from "../config.ts";
import {
  type AnswerPageQuery,
  type AnswerSearchQuery,
  type Citation,
  type CreateAnswerRequest,
  DEFAULT_ANSWERS_PAGE,
  type EditAnswerRequest,
  type PublicAnswer,
  type PublicAnswers,
  type PublicCitation,
  QUESTIONNAIRES,
  type TrustAnswer,
} from "../domain/answers.ts";
import type { ControlState } from "../domain/control.ts";
import { notFound, validationFailed } from "../domain/errors.ts";
import type { Organization, Project } from "../domain/workspace.ts";
import { loadMarkdown, type Markdown } from "../lib/load_markdown.ts";
import { publicUrls, trustCenterUrl } from "../publish/urls.ts";
import {
  addAnswer,
  type AnswerActor,
  answerPageInOrder,
  editAnswer,
  getAnswerCountEntry,
  listAnswers,
  rebuildAnswerOrder,
} from "../store/answers.ts";
import { answerCandidates, rebuildAnswerTerms, wordsOf } from "../store/answer_terms.ts";
import { getCertification } from "../store/certifications.ts";
import { getControl, listControlsByProject } from "../store/controls.ts";
import { currentNda, getDocument } from "../store/documents.ts";
import { getOrganizationBySlug } from "../store/organizations.ts";
import { listProjectsByOrganization } from "../store/projects.ts";
import { getLatestPublication } from "../store/publications.ts";
import { answerPage } from "./answers_page.ts";
import { withdrawnProjectIds } from "./public_read.ts";
import { publicCertificationsOf } from "./certifications.ts";
import { listedDocuments, presentPublic } from "./documents.ts";

/** Code-point order, the same on every instance whatever its locale. */
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Answers in reading order: by category, then question, then id. */
export function inAnswerOrder<T extends Pick<TrustAnswer, "category" | "question" | "id">>(
  answers: readonly T[],
): T[] {
  return [...answers].sort((a, b) =>
    byText(a.category.toLowerCase(), b.category.toLowerCase()) ||
    byText(a.question.toLowerCase(), b.question.toLowerCase()) || byText(a.id, b.id)
  );
}

/** A 400 naming the first citation that names nothing of the organization; nothing is stored. */
async function checkCitations(
  kv: Deno.Kv,
  organizationId: string,
  citations: readonly Citation[] | undefined,
): Promise<void> {
  if (!citations?.length) return;
  const seen = new Set<string>();
  const projects = await listProjectsByOrganization(kv, organizationId);
  for (const [i, citation] of citations.entries()) {
    const key = `${citation.kind}:${citation.id}`;
    if (seen.has(key)) throw validationFailed(`citations.${i}: ${key} is cited twice`);
    seen.add(key);
    if (citation.kind === "control") {
      const found = await Promise.all(projects.map((p) => getControl(kv, p.id, citation.id)));
      if (!found.some((c) => c !== null)) {
        throw validationFailed(`citations.${i}: no control ${citation.id} in this organization`);
      }
    } else if (citation.kind === "document") {
      const document = await getDocument(kv, organizationId, citation.id);
      if (!document) {
        throw validationFailed(`citations.${i}: no document ${citation.id} in this organization`);
      }
      if (document.unlisted) {
        throw validationFailed(
          `citations.${i}: document ${citation.id} is unlisted (shared only through access links)`,
        );
      }
    } else if (!(await getCertification(kv, organizationId, citation.id))) {
      throw validationFailed(
        `citations.${i}: no certification ${citation.id} in this organization`,
      );
    }
  }
}

/** Adds an answer after checking its citations. */
export async function createAnswer(
  kv: Deno.Kv,
  organizationId: string,
  options: { request: CreateAnswerRequest; actor: AnswerActor; now: Date },
): Promise<TrustAnswer> {
  await checkCitations(kv, organizationId, options.request.citations);
  return await addAnswer(kv, organizationId, options);
}

/** Changes an answer after checking new citations. */
export async function changeAnswer(
  kv: Deno.Kv,
  organizationId: string,
  options: { id: string; change: EditAnswerRequest; actor: AnswerActor; now: Date },
): Promise<TrustAnswer> {
  await checkCitations(kv, organizationId, options.change.citations);
  return await editAnswer(kv, organizationId, options);
}

/** What citations resolve against: public projects' controls and states, listed documents. */
interface CitationIndex {
  controls: Map<string, { project: Project; name: string; state: ControlState | null }>;
  documents: Map<string, { title: string; url: string | null }>;
  certifications: Map<string, { title: string; url: string }>;
}

async function citationIndex(
  kv: Deno.Kv,
  config: Pick<Config, "baseUrl">,
  org: Organization,
): Promise<CitationIndex> {
  const controls: CitationIndex["controls"] = new Map();
  const all = await listProjectsByOrganization(kv, org.id);
  const withdrawn = await withdrawnProjectIds(kv, all.map((p) => p.id));
  const withdrawnSlugs = new Set(all.filter((p) => withdrawn.has(p.id)).map((p) => p.slug));
  const projects = all.filter((p) => p.visibility === "public" && !withdrawn.has(p.id));
  await Promise.all(projects.map(async (project) => {
    const publication = await getLatestPublication(kv, project.id);
    if (!publication) return;
    for (const control of await listControlsByProject(kv, project.id)) {
      const state = publication.states[control.key];
      if (state === undefined) continue;
      controls.set(control.id, { project, name: control.publicName, state });
    }
  }));
  const documents: CitationIndex["documents"] = new Map();
  for (const item of await listedDocuments(kv, org.id)) {
    if (item.project && withdrawn.has(item.project.id)) continue;
    const shown = presentPublic(config, org, item);
    documents.set(shown.id, {
      title: shown.title,
      url: shown.downloadUrl ?? shown.requestAccessUrl,
    });
  }
  const certifications: CitationIndex["certifications"] = new Map();
  const shown = await publicCertificationsOf(kv, {
    config,
    organization: org,
    scope: { organization: true },
    now: new Date(),
  });
  for (const c of shown) {
    if (c.project && withdrawnSlugs.has(c.project.slug)) continue;
    certifications.set(c.id, {
      title: `${c.frameworkName} (${c.status.replace("_", " ")})`,
      url: `${trustCenterUrl(config as Config, org.slug)}/certifications`,
    });
  }
  return { controls, documents, certifications };
}

/** The citations the public may see; the others (private, unpublished, gone) are left out. */
function resolveCitations(
  citations: readonly Citation[],
  index: CitationIndex,
  config: Pick<Config, "baseUrl">,
): PublicCitation[] {
  const resolved: PublicCitation[] = [];
  for (const citation of citations) {
    if (citation.kind === "control") {
      const control = index.controls.get(citation.id);
      if (!control) continue;
      resolved.push({
        ...citation,
        title: control.name,
        url: publicUrls(config, control.project.slug).page,
        project: { slug: control.project.slug, name: control.project.name },
        state: control.state,
      });
    } else if (citation.kind === "document") {
      const document = index.documents.get(citation.id);
      if (!document) continue;
      resolved.push({
        ...citation,
        title: document.title,
        url: document.url,
        project: null,
        state: null,
      });
    } else {
      const certification = index.certifications.get(citation.id);
      if (!certification) continue;
      resolved.push({ ...citation, ...certification, project: null, state: null });
    }
  }
  return resolved;
}

/** Lowercase without accents, for matching. */
function fold(text: string): string {
  return text.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
}

/** The words of a query (at most 20), folded. */
export function queryTerms(q: string | undefined): string[] {
  return fold(q ?? "").split(/\s+/).filter(Boolean).slice(0, 20);
}

/**
 * How well `answer` matches every term, or 0 when one is missing. A restricted answer is
 * searched by its question, category and questionnaire ids only, never by its text. With
 * `words` (the terms' words), each must also start a word of those texts, or it is 0.
 */
export function matchScore(
  answer: TrustAnswer,
  terms: readonly string[],
  words: readonly string[] = [],
): number {
  if (terms.length === 0) return 1;
  const question = fold(answer.question);
  const refs = answer.questionnaireRefs.map((r) => fold(`${r.questionnaire} ${r.id}`)).join(" ");
  const category = fold(answer.category);
  const body = answer.visibility === "public" ? fold(answer.answer) : "";
  const texts = [question, refs, category, body];
  if (!words.every((word) => texts.some((text) => startsWordIn(text, word)))) return 0;
  let score = 0;
  for (const term of terms) {
    const exactRef = answer.questionnaireRefs.some((r) => fold(r.id) === term);
    const points = (exactRef ? 8 : 0) + (question.includes(term) ? 4 : 0) +
      (refs.includes(term) ? 3 : 0) + (category.includes(term) ? 2 : 0) +
      (body.includes(term) ? 1 : 0);
    if (points === 0) return 0;
    score += points;
  }
  return score;
}

/** Whether `word` occurs in folded `text` at the start of a word (a run of letters and digits). */
function startsWordIn(text: string, word: string): boolean {
  for (let at = text.indexOf(word); at >= 0; at = text.indexOf(word, at + 1)) {
    if (at === 0 || !LETTER_OR_DIGIT.test(text[at - 1])) return true;
  }
  return false;
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/** The request form's address, preselecting the restricted answers. */
export function answersAccessUrl(config: Config, orgSlug: string): string {
  return `${trustCenterUrl(config, orgSlug)}/documents/request?answers=1`;
}

/** A page of answers, with how many the organization keeps and how many matched. */
interface ListedPage {
  page: { values: TrustAnswer[]; nextCursor: string | null };
  total: number;
  matched: number;
}

/**
 * `answers` searched by `terms` (best first, then reading order) and paged: an answer matches
 * when every term scores and each of the terms' words starts one of its indexed words.
 */
function scoredPage(
  answers: readonly TrustAnswer[],
  terms: readonly string[],
  query: AnswerPageQuery,
  total: number,
): ListedPage {
  const words = terms.flatMap((term) => wordsOf(term));
  const scored = inAnswerOrder(answers)
    .map((answer) => ({ answer, score: matchScore(answer, terms, words) }))
    .filter((s) => s.score > 0);
  scored.sort((a, b) => b.score - a.score);
  return {
    page: answerPage(scored.map((s) => s.answer), query),
    total,
    matched: scored.length,
  };
}

/**
 * A search's page: scored among the answers the word index names for its words (reading only
 * those), or among every answer when the index cannot narrow it (its words are all common, or
 * it does not hold every answer: then it is mended for the next search). With no terms, every
 * answer in reading order, mending the order index for the next request.
 */
async function searchedPage(
  kv: Deno.Kv,
  organizationId: string,
  terms: readonly string[],
  query: AnswerPageQuery,
): Promise<ListedPage> {
  if (terms.length > 0) {
    const found = await answerCandidates(kv, organizationId, terms.flatMap((t) => wordsOf(t)));
    if (found.answers) return scoredPage(found.answers, terms, query, found.total);
    if (found.indexed) {
      const all = await listAnswers(kv, organizationId);
      return scoredPage(all, terms, query, all.length);
    }
  }
  const counted = await getAnswerCountEntry(kv, organizationId);
  const all = await listAnswers(kv, organizationId);
  if (terms.length === 0) await rebuildAnswerOrder(kv, organizationId, counted, all);
  else await rebuildAnswerTerms(kv, organizationId, counted, all);
  return scoredPage(all, terms, query, all.length);
}

/**
 * A page in reading order without a search: from the order index, reading only the page's
 * answers whatever the organization keeps; from every answer when the index cannot answer.
 * Cursors are the same either way (`<position>.<id>` of the page's last answer).
 */
async function orderedPage(
  kv: Deno.Kv,
  organizationId: string,
  query: AnswerPageQuery,
): Promise<ListedPage> {
  const limit = query.limit ?? DEFAULT_ANSWERS_PAGE;
  const dot = query.cursor?.indexOf(".") ?? -1;
  const after = query.cursor ? query.cursor.slice(dot + 1) : undefined;
  const ordered = await answerPageInOrder(kv, organizationId, { after, limit });
  if (!ordered) return await searchedPage(kv, organizationId, [], query);
  const first = query.cursor ? Number(query.cursor.slice(0, dot)) + 1 : 0;
  const last = ordered.answers.at(-1);
  const nextCursor = ordered.more && last
    ? `${first + ordered.answers.length - 1}.${last.id}`
    : null;
  return {
    page: { values: ordered.answers, nextCursor },
    total: ordered.total,
    matched: ordered.total,
  };
}

/**
 * A page of every answer of an organization (public and restricted), in reading order, as
 * members list them: from the order index, reading the page's answers only.
 */
export async function memberAnswersPage(
  kv: Deno.Kv,
  organizationId: string,
  query: AnswerPageQuery,
): Promise<{ values: TrustAnswer[]; nextCursor: string | null; total: number }> {
  const { page, total } = await orderedPage(kv, organizationId, query);
  return { ...page, total };
}

/**
 * A page of the organization's public knowledge base, searched by `q` (best first); only the
 * answers of the page are rendered and their citations resolved. 404 when unknown.
 */
export async function publicAnswers(
  kv: Deno.Kv,
  orgSlug: string,
  options: { config: Config } & AnswerSearchQuery,
): Promise<PublicAnswers & { organizationId: string }> {
  const { config } = options;
  const org = await getOrganizationBySlug(kv, orgSlug);
  if (!org) throw notFound("No public trust center by that name");
  const terms = queryTerms(options.q);
  const [listed, nda] = await Promise.all([
    terms.length === 0
      ? orderedPage(kv, org.id, options)
      : searchedPage(kv, org.id, terms, options),
    currentNda(kv, org.id),
  ]);
  const { page, total, matched } = listed;
  const [index, markdown] = await Promise.all([citationIndex(kv, config, org), loadMarkdown()]);
  const center = trustCenterUrl(config, org.slug);
  const requestUrl = nda ? answersAccessUrl(config, org.slug) : null;
  return {
    organizationId: org.id,
    organization: { name: org.name, slug: org.slug },
    query: options.q?.trim() ? options.q.trim() : null,
    answers: page.values.map((answer) =>
      presentAnswer(answer, { index, config, requestUrl, markdown })
    ),
    total,
    matched,
    nextCursor: page.nextCursor,
    acceptingRequests: nda !== null,
    exports: { csv: `${center}/answers.csv`, xlsx: `${center}/answers.xlsx` },
    url: `${center}/answers`,
  };
}

/**
 * Every public answer of `org` as the questionnaire export reads it, in reading order: the
 * answers presented as on the list, without their HTML (the export has no use for it).
 */
export async function exportedAnswers(
  kv: Deno.Kv,
  org: Organization,
  config: Config,
): Promise<Pick<PublicAnswers, "answers" | "url" | "organization">> {
  const [all, nda, index] = await Promise.all([
    listAnswers(kv, org.id),
    currentNda(kv, org.id),
    citationIndex(kv, config, org),
  ]);
  const requestUrl = nda ? answersAccessUrl(config, org.slug) : null;
  // A spreadsheet renders no Markdown and no HTML: its cells carry the vendor's own text ("R&D"
  // stays "R&D"); what a spreadsheet could run, a formula, is made inert by the writers.
  const withoutHtml = { renderSafeMarkdown: () => "", neutralizeMarkdown: (text: string) => text };
  return {
    organization: { name: org.name, slug: org.slug },
    answers: inAnswerOrder(all).map((answer) =>
      presentAnswer(answer, { index, config, requestUrl, markdown: withoutHtml })
    ),
    url: `${trustCenterUrl(config, org.slug)}/answers`,
  };
}

function presentAnswer(
  answer: TrustAnswer,
  context: {
    index: CitationIndex;
    config: Config;
    requestUrl: string | null;
    markdown: Pick<Markdown, "renderSafeMarkdown" | "neutralizeMarkdown">;
  },
): PublicAnswer {
  const open = answer.visibility === "public";
  // The Markdown is rewritten as safely as the HTML (raw HTML as text, only http(s) and mailto
  // links), as updates' bodies are: the JSON, the Markdown page, the exports and the MCP tool
  // carry it to readers that may render it with HTML on.
  return {
    id: answer.id,
    question: answer.question,
    category: answer.category,
    visibility: answer.visibility,
    questionnaireRefs: answer.questionnaireRefs,
    answer: open ? context.markdown.neutralizeMarkdown(answer.answer) : null,
    answerHtml: open ? context.markdown.renderSafeMarkdown(answer.answer) : null,
    citations: open ? resolveCitations(answer.citations, context.index, context.config) : null,
    requestAccessUrl: open ? null : context.requestUrl,
    updatedAt: answer.updatedAt,
  };
}

/** The restricted answers of an organization, opened (for an approved access link's page). */
export async function openedRestrictedAnswers(
  kv: Deno.Kv,
  org: Organization,
  config: Config,
): Promise<(PublicAnswer & { citations: PublicCitation[] })[]> {
  const restricted = inAnswerOrder(await listAnswers(kv, org.id))
    .filter((a) => a.visibility === "restricted");
  if (restricted.length === 0) return [];
  const [index, markdown] = await Promise.all([citationIndex(kv, config, org), loadMarkdown()]);
  return restricted.map((answer) => ({
    ...presentAnswer({ ...answer, visibility: "public" }, {
      index,
      config,
      requestUrl: null,
      markdown,
    }),
    visibility: "restricted",
  })) as (PublicAnswer & { citations: PublicCitation[] })[];
}

/** How many restricted answers the organization keeps (the request form offers them). */
export async function countRestrictedAnswers(kv: Deno.Kv, organizationId: string) {
  return (await listAnswers(kv, organizationId)).filter((a) => a.visibility === "restricted")
    .length;
}

/** One row of the questionnaire export. */
export interface ExportRow {
  questionnaire: string;
  questionId: string;
  status: "answered" | "restricted" | "no answer";
  question: string;
  answer: string;
  category: string;
  citations: string;
  url: string;
}

/** Question ids in natural order: IAM-2.1 before IAM-10.1, A.2 before A.10. */
function naturalCompare(a: string, b: string): number {
  const parts = (s: string) => s.split(/(\d+)/).map((p, i) => (i % 2 ? Number(p) : p));
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] === y[i]) continue;
    return typeof x[i] === "number" && typeof y[i] === "number"
      ? (x[i] as number) - (y[i] as number)
      : byText(String(x[i]), String(y[i]));
  }
  return x.length - y.length;
}

function citationText(citation: PublicCitation): string {
  if (citation.kind === "control") {
    return `Control: ${citation.project?.name} — ${citation.title} (${citation.state})`;
  }
  if (citation.kind === "document") return `Document: ${citation.title}`;
  return `Certification: ${citation.title ?? citation.id}`;
}

/**
 * The export's rows, keyed by questionnaire id: every id a public or restricted answer lists
 * and every id the buyer asked for (`wanted`), each once per answer covering it ("no answer"
 * when none does), sorted by questionnaire and id; then the public answers that list no
 * questionnaire id. Restricted answers give their question and where to ask, never their text.
 */
export function exportRows(
  list: Pick<PublicAnswers, "answers" | "url">,
  options: {
    questionnaire?: string;
    wanted?: readonly string[];
    answerUrl: (id: string) => string;
  },
): ExportRow[] {
  const keyed = new Map<string, PublicAnswer[]>();
  const keyOf = (questionnaire: string, id: string) => `${questionnaire}\u0000${id}`;
  const answers = inAnswerOrder(list.answers);
  for (const answer of answers) {
    for (const ref of answer.questionnaireRefs) {
      if (options.questionnaire && ref.questionnaire !== options.questionnaire) continue;
      const key = keyOf(ref.questionnaire, ref.id);
      const rows = keyed.get(key) ?? [];
      if (!rows.includes(answer)) rows.push(answer);
      keyed.set(key, rows);
    }
  }
  for (const id of options.wanted ?? []) {
    const key = keyOf(options.questionnaire!, id);
    if (!keyed.has(key)) keyed.set(key, []);
  }
  const order = (q: string) => QUESTIONNAIRES.indexOf(q as typeof QUESTIONNAIRES[number]);
  const keys = [...keyed.keys()].map((k) => k.split("\u0000") as [string, string])
    .sort(([qa, a], [qb, b]) => order(qa) - order(qb) || naturalCompare(a, b) || byText(a, b));
  const rows: ExportRow[] = [];
  const row = (answer: PublicAnswer, questionnaire: string, questionId: string): ExportRow => ({
    questionnaire,
    questionId,
    status: answer.visibility === "public" ? "answered" : "restricted",
    question: answer.question,
    answer: answer.visibility === "public"
      ? answer.answer!
      : answer.requestAccessUrl
      ? `Restricted: request access at ${answer.requestAccessUrl}`
      : "Restricted: available on request",
    category: answer.category,
    citations: (answer.citations ?? []).map(citationText).join("; "),
    url: options.answerUrl(answer.id),
  });
  for (const [questionnaire, questionId] of keys) {
    const covering = keyed.get(keyOf(questionnaire, questionId))!;
    if (covering.length === 0) {
      rows.push({
        questionnaire,
        questionId,
        status: "no answer",
        question: "",
        answer: "No answer",
        category: "",
        citations: "",
        url: "",
      });
    }
    for (const answer of covering) rows.push(row(answer, questionnaire, questionId));
  }
  if (!options.questionnaire) {
    for (const answer of answers) {
      if (answer.questionnaireRefs.length === 0 && answer.visibility === "public") {
        rows.push(row(answer, "", ""));
      }
    }
  }
  return rows;
}
