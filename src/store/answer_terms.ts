/**
 * The word index of an organization's answers, kept in the same commits as the answers, so a
 * search (`q`) reads the answers that have its words instead of every answer. An answer's words
 * are the runs of letters and digits of its question, questionnaire ids, category and, when it
 * is public, its text, folded (lower case, without accents), at most `MAX_WORDS` distinct ones
 * (in that order) of at most `MAX_WORD_LENGTH` characters each. One entry per word and answer,
 * `answers_by_term [orgId, word, answerId]`; the words an answer was indexed under,
 * `answer_terms_of [orgId, answerId]`, so an edit or a deletion removes exactly those; and how
 * many answers the index holds, `answers_by_term_counts [orgId]`: the index answers a search
 * only when that equals the answers' count (answers written before the index, or by something
 * that did not keep it, are indexed again by `rebuildAnswerTerms`).
 */
import type { TrustAnswer } from "../domain/answers.ts";
import {
  answerCountKey,
  answerKey,
  answerTermCountKey,
  answerTermKey,
  answerTermsOfKey,
  answerTermsPrefix,
} from "./keys.ts";
import { getManyChunked } from "./_chunks.ts";

/** Distinct words indexed per answer: an edit's deletions and additions stay under KV's limits. */
export const MAX_WORDS = 200;
/** Characters of a word in a key; a longer query word is looked up by its first ones. */
export const MAX_WORD_LENGTH = 40;
/** Index entries one query word reads at most before it is deemed too common to narrow. */
const MAX_POSTINGS = 120;
/** Index entries each query word reads first. */
const FIRST_LOOK = 16;

/** Lowercase without accents (as the search compares). */
export function foldText(text: string): string {
  return text.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
}

/** The runs of letters and digits of folded text. */
export function wordsOf(folded: string): string[] {
  return folded.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
}

/** The distinct words an answer is indexed under (see the module comment). */
export function answerWords(answer: TrustAnswer): string[] {
  const texts = [
    answer.question,
    ...answer.questionnaireRefs.map((r) => `${r.questionnaire} ${r.id}`),
    answer.category,
    answer.visibility === "public" ? answer.answer : "",
  ];
  const words = new Set<string>();
  for (const text of texts) {
    for (const word of wordsOf(foldText(text))) {
      words.add(word.slice(0, MAX_WORD_LENGTH));
      if (words.size === MAX_WORDS) return [...words];
    }
  }
  return [...words];
}

/**
 * Adds to `op` the index change of an answer going from `before` (its words as indexed, or
 * null when it was not) to `after` (null when it is deleted).
 */
export function stageAnswerTerms(
  op: Deno.AtomicOperation,
  organizationId: string,
  answerId: string,
  before: readonly string[] | null,
  after: TrustAnswer | null,
): void {
  const next = after ? answerWords(after) : [];
  const keep = new Set(next);
  const had = new Set(before ?? []);
  for (const word of had) {
    if (!keep.has(word)) op.delete(answerTermKey(organizationId, word, answerId));
  }
  for (const word of keep) {
    if (!had.has(word)) op.set(answerTermKey(organizationId, word, answerId), true);
  }
  if (after) op.set(answerTermsOfKey(organizationId, answerId), next);
  else op.delete(answerTermsOfKey(organizationId, answerId));
}

/** The words an answer is indexed under (null when it is not), as an entry to check. */
export async function getAnswerTermsEntry(
  kv: Deno.Kv,
  organizationId: string,
  answerId: string,
): Promise<Deno.KvEntryMaybe<string[]>> {
  return await kv.get<string[]>(answerTermsOfKey(organizationId, answerId));
}

/** The index's count entry (checked by the commits that move it). */
export async function getAnswerTermCountEntry(
  kv: Deno.Kv,
  organizationId: string,
): Promise<Deno.KvEntryMaybe<number>> {
  return await kv.get<number>(answerTermCountKey(organizationId));
}

/**
 * The answers that may match query words `queryWords`, from the index: for each word, the
 * answers with an indexed word that starts with it, read up to `MAX_POSTINGS` entries; the
 * candidates are the answers every fully read word names. `answers` is null when the index
 * cannot answer (`indexed` false: it does not hold every answer) or every word is too common
 * to narrow the search: the caller reads every answer instead.
 */
export async function answerCandidates(
  kv: Deno.Kv,
  organizationId: string,
  queryWords: readonly string[],
): Promise<{ answers: TrustAnswer[] | null; total: number; indexed: boolean }> {
  const [counted, indexed] = await kv.getMany<[number, number]>([
    answerCountKey(organizationId),
    answerTermCountKey(organizationId),
  ]);
  const total = counted.value ?? 0;
  if ((indexed.value ?? 0) !== total) return { answers: null, total, indexed: false };
  if (queryWords.length === 0) return { answers: null, total, indexed: true };
  const heads = [...new Set(queryWords.map((w) => w.slice(0, MAX_WORD_LENGTH)))];
  // A first look of a few entries per word: a rare word settles it; else a longer one.
  let complete: Set<string>[] = [];
  for (const limit of [FIRST_LOOK, MAX_POSTINGS]) {
    const postings = await Promise.all(
      heads.map((head) => postingsOf(kv, organizationId, head, limit)),
    );
    complete = postings.filter((p): p is Set<string> => p !== null);
    if (complete.length > 0) break;
  }
  if (complete.length === 0) return { answers: null, total, indexed: true };
  complete.sort((a, b) => a.size - b.size);
  const ids = [...complete[0]].filter((id) => complete.every((p) => p.has(id)));
  const found = await getManyChunked<TrustAnswer>(
    kv,
    ids.map((id) => answerKey(organizationId, id)),
  );
  return { answers: found.flatMap((e) => (e.value ? [e.value] : [])), total, indexed: true };
}

/** The answers with a word starting with `head`, or null past `limit` index entries. */
async function postingsOf(
  kv: Deno.Kv,
  organizationId: string,
  head: string,
  limit: number,
): Promise<Set<string> | null> {
  const ids = new Set<string>();
  const prefix = answerTermsPrefix(organizationId);
  const entries = kv.list({ start: [...prefix, head], end: [...prefix, `${head}\u{10FFFF}`] }, {
    limit: limit + 1,
  });
  let read = 0;
  for await (const entry of entries) {
    if (++read > limit) return null;
    ids.add(entry.key[3] as string);
  }
  return ids;
}

/**
 * Indexes the answers of `answers` (all of them, as just read) that are not indexed yet, each
 * in its own commit checked against its words entry, then sets the index's count to theirs,
 * checked against the answer count read before them: a change meanwhile leaves the counts
 * apart, and the next search that reads every answer tries again.
 */
export async function rebuildAnswerTerms(
  kv: Deno.Kv,
  organizationId: string,
  counted: Deno.KvEntryMaybe<number>,
  answers: readonly TrustAnswer[],
): Promise<void> {
  const marks = await getManyChunked<string[]>(
    kv,
    answers.map((a) => answerTermsOfKey(organizationId, a.id)),
  );
  for (const [i, answer] of answers.entries()) {
    if (marks[i].versionstamp !== null) continue;
    const op = kv.atomic().check(marks[i]);
    stageAnswerTerms(op, organizationId, answer.id, null, answer);
    await op.commit();
  }
  await kv.atomic().check(counted)
    .set(answerTermCountKey(organizationId), answers.length)
    .commit();
}
