/**
 * Reading the answer library: a page of every answer as members list it, the public knowledge
 * base with its search, the restricted answers an access link opens, and how many are
 * restricted. A page is read from the order index or the word index when they can answer, and
 * from every answer (mending the index) when they cannot.
 */
import type { Config } from "../config.ts";
import {
  type AnswerPageQuery,
  type AnswerSearchQuery,
  DEFAULT_ANSWERS_PAGE,
  type PublicAnswer,
  type PublicAnswers,
  type PublicCitation,
  type TrustAnswer,
} from "../domain/answers.ts";
import { notFound } from "../domain/errors.ts";
import type { Organization } from "../domain/workspace.ts";
import { loadMarkdown } from "../lib/load_markdown.ts";
import { trustCenterUrl } from "../publish/urls.ts";
import {
  answerPageInOrder,
  getAnswerCountEntry,
  listAnswers,
  rebuildAnswerOrder,
} from "../store/answers.ts";
import { answerCandidates, rebuildAnswerTerms, wordsOf } from "../store/answer_terms.ts";
import { currentNda } from "../store/documents.ts";
import { getOrganizationBySlug } from "../store/organizations.ts";
import { answerPage } from "./answers_page.ts";
import { answersAccessUrl, citationIndex, presentAnswer } from "./answers_present.ts";
import { inAnswerOrder, matchScore, queryTerms } from "./answers_search.ts";

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
