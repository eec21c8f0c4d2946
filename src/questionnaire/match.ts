/**
 * The questionnaire matcher: a buyer's questions against the organization's knowledge base,
 * deterministically, without any model (docs/questionnaires.md, "Matching").
 *
 * A question is matched first by its questionnaire id (its id column, or an id written at the
 * start of its text) against the ids stored on answers (score 1, `by: "id"`), then by its text
 * with BM25+ full-text ranking (minisearch) over the answers' questions, answers and
 * categories, the controls' titles and the framework criteria's titles (`by: "text"`, a score
 * in [0, 1)). The index is built once per knowledge base from inputs sorted first, so the same
 * knowledge base, in any array order, and the same questions give the same results, byte for
 * byte.
 */
import MiniSearch from "minisearch";
import type {
  KbAnswer,
  KbControl,
  KnowledgeBase,
  MatchResult,
  Question,
  Suggestion,
  SuggestionCitation,
} from "./types.ts";
import { compareCodePoints } from "../lib/order.ts";
import { isMatchableId, leadingId, looseId, writtenId } from "./match_ids.ts";
import { type AnalysedTerm, queryTerms, terms } from "./match_text.ts";
import { type Entry, normaliser, normaliserBuilder, type TextIndex } from "./match_score.ts";
import { controlCitation, controlText, type SortedKb, sortedKnowledgeBase } from "./match_kb.ts";

/**
 * The text score a suggestion needs to be taken as the row's answer (`best`), chosen on the
 * tuning half of the labelled set (tests/fixtures/questionnaires/labelled.json).
 */
export const DEFAULT_MATCH_THRESHOLD = 0.35;
/** Suggestions per question unless asked otherwise (id matches are never cut). */
export const DEFAULT_MAX_SUGGESTIONS = 5;

export interface MatcherOptions {
  /** The score `best` must reach; DEFAULT_MATCH_THRESHOLD unless given. */
  threshold?: number;
  /** Text suggestions stop at this many suggestions in all; DEFAULT_MAX_SUGGESTIONS. */
  maxSuggestions?: number;
}

export interface Matcher {
  /** One result per question, in the questions' order. */
  match(questions: Question[]): MatchResult[];
}

/** Search results read per question before suggestions are built (best first). */
const CANDIDATES = 40;
/** Controls and criteria weigh a little less than an answer written for the question. */
const NON_ANSWER_WEIGHT = 0.5;

/**
 * Builds the matcher of one knowledge base: the id table and the full-text index are made
 * once here, and `match` only reads them.
 */
export function createMatcher(kb: KnowledgeBase, options: MatcherOptions = {}): Matcher {
  const sorted = sortedKnowledgeBase(kb);
  return matcherOf(sorted, idTable(sorted), textIndex(sorted), options);
}

/** Gives the event loop a turn: what the yielding matcher awaits between pieces of work. */
export type Pause = () => Promise<void>;

/** A macrotask turn, so timers and I/O waiting behind the work run first. */
export const nextTurn: Pause = () => new Promise((resolve) => setTimeout(resolve, 0));

/** A matcher whose work pauses every few answers indexed and every few questions matched. */
export interface YieldingMatcher extends Matcher {
  /** The same results as `match`, pausing after every `every` questions. */
  matchYielding(questions: Question[], every?: number): Promise<MatchResult[]>;
}

/** Answers indexed between two pauses while a yielding matcher is built. */
const ENTRIES_PER_TURN = 5;

/**
 * `createMatcher`, built and matching in slices with a pause between them, so that a large
 * knowledge base (2,000 answers of 10,000 characters) never holds the event loop for long.
 * The index and the results are the same as `createMatcher`'s, byte for byte.
 */
export async function createYieldingMatcher(
  kb: KnowledgeBase,
  options: MatcherOptions = {},
  pause: Pause = nextTurn,
): Promise<YieldingMatcher> {
  const sorted = sortedKnowledgeBase(kb);
  await pause();
  const ids = idTable(sorted);
  const entries: Entry[] = [];
  const stats = normaliserBuilder(FIELDS, BOOST);
  for (const item of indexEntries(sorted)) {
    const built = item();
    entries.push(built);
    stats.add(built);
    if (entries.length % ENTRIES_PER_TURN === 0) await pause();
  }
  const search = newSearch();
  for (let i = 0; i < entries.length; i += ENTRIES_PER_TURN) {
    search.addAll(entries.slice(i, i + ENTRIES_PER_TURN));
    await pause();
  }
  const matcher = matcherOf(sorted, ids, { search, index: stats.done() }, options);
  return {
    ...matcher,
    async matchYielding(questions, every = 1) {
      const results: MatchResult[] = [];
      for (let i = 0; i < questions.length; i++) {
        results.push(...matcher.match([questions[i]]));
        if ((i + 1) % Math.max(1, every) === 0) await pause();
      }
      return results;
    },
  };
}

function matcherOf(
  sorted: SortedKb,
  ids: IdTable,
  text: TextMatcher,
  options: MatcherOptions,
): Matcher {
  const threshold = options.threshold ?? DEFAULT_MATCH_THRESHOLD;
  const maxSuggestions = Math.max(1, Math.floor(options.maxSuggestions ?? DEFAULT_MAX_SUGGESTIONS));
  return {
    match(questions) {
      return questions.map((question) => {
        const byId = matchById(question, ids);
        const taken = new Set(byId.map((s) => sourceKey(s)));
        const room = Math.max(0, maxSuggestions - byId.length);
        const byText = room === 0 ? [] : matchByText(question, text, sorted)
          .filter((s) => !taken.has(sourceKey(s))).slice(0, room);
        const suggestions = [...byId, ...byText];
        const top = suggestions[0] ?? null;
        return {
          key: question.key,
          suggestions,
          best: top && top.score >= threshold ? top : null,
        };
      });
    },
  };
}

// ---------------------------------------------------------------------------------------------
// By id

interface IdTable {
  /** Written form → answers carrying it (with the ref's own spelling). */
  written: Map<string, { answer: KbAnswer; id: string }[]>;
  /** Loose form → the distinct written forms of the knowledge base that have it. */
  loose: Map<string, Set<string>>;
  citations: (answer: KbAnswer) => SuggestionCitation[];
}

function idTable(kb: SortedKb): IdTable {
  const written = new Map<string, { answer: KbAnswer; id: string }[]>();
  const loose = new Map<string, Set<string>>();
  for (const answer of kb.answers) {
    const seen = new Set<string>();
    for (const ref of answer.questionnaireRefs) {
      if (!isMatchableId(ref.id)) continue;
      const form = writtenId(ref.id);
      if (seen.has(form)) continue;
      seen.add(form);
      const list = written.get(form) ?? [];
      list.push({ answer, id: ref.id });
      written.set(form, list);
      const key = looseId(ref.id);
      loose.set(key, (loose.get(key) ?? new Set()).add(form));
    }
  }
  return { written, loose, citations: kb.citationsOf };
}

/** The written form a question id stands for in this knowledge base, or null. */
function resolveId(id: string, table: IdTable): string | null {
  if (!isMatchableId(id)) return null;
  const form = writtenId(id);
  if (table.written.has(form)) return form;
  const forms = table.loose.get(looseId(id));
  return forms && forms.size === 1 ? [...forms][0] : null;
}

/**
 * The answers claiming the question's id, all of them (several are a conflict the reviewer
 * sees): the most recently updated first, then by answer id.
 */
function matchById(question: Question, table: IdTable): Suggestion[] {
  const candidates = [question.id, leadingId(String(question.text ?? ""))?.id ?? null];
  for (const id of candidates) {
    if (typeof id !== "string") continue;
    const form = resolveId(id, table);
    if (!form) continue;
    const claims = [...table.written.get(form)!].sort((a, b) =>
      compareCodePoints(b.answer.updatedAt, a.answer.updatedAt) ||
      compareCodePoints(a.answer.id, b.answer.id)
    );
    return claims.map(({ answer, id }) => ({
      source: { kind: "answer", answerId: answer.id },
      text: answer.answer,
      score: 1,
      by: "id",
      reason: { questionnaireId: id },
      citations: table.citations(answer),
    }));
  }
  return [];
}

// ---------------------------------------------------------------------------------------------
// By text

interface TextMatcher {
  search: MiniSearch<Entry>;
  index: TextIndex;
}

const FIELDS = ["question", "answer", "category"] as const;
const BOOST: Record<(typeof FIELDS)[number], number> = { question: 3, answer: 1, category: 0.5 };

function textIndex(kb: SortedKb): TextMatcher {
  const entries = indexEntries(kb).map((item) => item());
  const search = newSearch();
  search.addAll(entries);
  return { search, index: normaliser(entries, FIELDS, BOOST) };
}

/** The index's entries in order (answers, controls, criteria), each built when called. */
function indexEntries(kb: SortedKb): (() => Entry)[] {
  return [
    ...kb.answers.map((answer) => () =>
      entry(`a:${answer.id}`, answer.question, answer.answer, answer.category)
    ),
    ...kb.controls.map((control) => () =>
      entry(`c:${control.projectSlug}/${control.controlId}`, control.title, "", "")
    ),
    ...kb.criteria.map((criterion, i) => () => entry(`k:${i}`, criterion.title, "", "")),
  ];
}

function newSearch(): MiniSearch<Entry> {
  return new MiniSearch<Entry>({
    fields: [...FIELDS],
    tokenize: (text) => text === "" ? [] : text.split(" "),
    processTerm: (term) => term || null,
    searchOptions: {
      boost: BOOST,
      boostDocument: (id: string) => id.startsWith("a:") ? 1 : NON_ANSWER_WEIGHT,
      prefix: (term) => term.length >= 5,
      fuzzy: (term) => term.length >= 6 ? 1 : false,
    },
    autoVacuum: false,
  });
}

function entry(id: string, question: string, answer: string, category: string): Entry {
  return {
    id,
    question: terms(question).join(" "),
    answer: terms(answer).join(" "),
    category: terms(category).join(" "),
  };
}

/** Suggestions by text, best first: answers, and controls found by title or by a criterion. */
function matchByText(question: Question, text: TextMatcher, kb: SortedKb): Suggestion[] {
  const raw = String(question.text ?? "");
  const query = queryTerms(leadingId(raw)?.rest ?? raw);
  if (query.length === 0) return [];
  const self = text.index.selfScore(query.map((t) => t.term));
  const hits = text.search.search(query.map((t) => t.term).join(" ")).slice(0, CANDIDATES);
  const byKey = new Map<string, Suggestion>();
  for (const hit of hits) {
    const score = normalisedScore(hit.score, self);
    const reason = reasonWords(hit.queryTerms as string[], query);
    const id = String(hit.id);
    if (id.startsWith("a:")) {
      const answer = kb.answerById.get(id.slice(2))!;
      add(byKey, {
        source: { kind: "answer", answerId: answer.id },
        text: answer.answer,
        score,
        by: "text",
        reason: { terms: reason },
        citations: kb.citationsOf(answer),
      });
    } else if (id.startsWith("c:")) {
      add(byKey, controlSuggestion(kb.controlByKey.get(id.slice(2))!, score, reason, []));
    } else {
      const criterion = kb.criteria[Number(id.slice(2))];
      const cited: SuggestionCitation = {
        kind: "criterion",
        framework: criterion.framework,
        criterionId: criterion.criterionId,
        title: criterion.title,
      };
      for (const controlId of [...criterion.controlIds].sort(compareCodePoints)) {
        const control = kb.controlByKey.get(`${criterion.projectSlug}/${controlId}`);
        if (control) add(byKey, controlSuggestion(control, score, reason, [cited]));
      }
    }
  }
  return [...byKey.values()].sort((a, b) =>
    b.score - a.score || compareCodePoints(sourceKey(a), sourceKey(b))
  );
}

/**
 * A text score in [0, 1): the square root of the hit's BM25+ score over the question's self
 * score (match_score.ts), at most 0.9999, cut to four decimals so that equal-looking scores
 * are equal and ordered by source. The root undoes the square that minisearch's multiplying
 * by the number of matched terms puts on the ratio (half the terms → about a quarter).
 */
function normalisedScore(score: number, self: number): number {
  if (!(self > 0) || !(score > 0)) return 0;
  return Math.floor(Math.min(Math.sqrt(score / self), 0.9999) * 10_000) / 10_000;
}

/** The buyer's words behind the matched terms, sorted by code point. */
function reasonWords(matched: string[], query: AnalysedTerm[]): string[] {
  const wordOf = new Map(query.map((t) => [t.term, t.word]));
  const words = new Set(matched.map((term) => wordOf.get(term) ?? term));
  return [...words].sort(compareCodePoints);
}

function controlSuggestion(
  control: KbControl,
  score: number,
  terms: string[],
  criteria: SuggestionCitation[],
): Suggestion {
  return {
    source: { kind: "control", projectSlug: control.projectSlug, controlId: control.controlId },
    text: controlText(control),
    score,
    by: "text",
    reason: { terms },
    citations: [controlCitation(control), ...criteria],
  };
}

/** Adds a suggestion, or merges it into the one of the same source (best score, all reasons). */
function add(byKey: Map<string, Suggestion>, suggestion: Suggestion): void {
  const key = sourceKey(suggestion);
  const existing = byKey.get(key);
  if (!existing) {
    byKey.set(key, suggestion);
    return;
  }
  const words = (s: Suggestion) => "terms" in s.reason ? s.reason.terms : [];
  const citations = new Map<string, SuggestionCitation>();
  for (const c of [...existing.citations, ...suggestion.citations]) {
    citations.set(JSON.stringify(c), c);
  }
  byKey.set(key, {
    ...existing,
    score: Math.max(existing.score, suggestion.score),
    reason: {
      terms: [...new Set([...words(existing), ...words(suggestion)])].sort(compareCodePoints),
    },
    citations: [...citations.values()],
  });
}

function sourceKey(suggestion: Suggestion): string {
  const source = suggestion.source;
  return source.kind === "answer"
    ? `answer:${source.answerId}`
    : `control:${source.projectSlug}/${source.controlId}`;
}
