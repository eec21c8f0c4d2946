/**
 * The questionnaire matcher: a buyer's questions against the organization's knowledge base,
 * deterministically, without any model (docs/questionnaires.md, "Matching").
 *
 * A question is matched first by its questionnaire id (its id column, or an id written at the
 * start of its text) against the ids stored on answers and on their learned phrasings (score 1,
 * `by: "id"`), then by its text with BM25+ full-text ranking (minisearch) over the answers'
 * questions, learned phrasings, answers and categories, the controls' titles and the framework
 * criteria's titles (`by: "text"`, a score in [0, 1)). The text search also looks for the
 * terms its words' synonyms bring (WordNet, the trade's vocabulary, acronyms both ways); an
 * answer's score blends in how alike its closest phrasing is to the question; and a qualifier
 * the question names that a suggestion never does (a sub-processor, an internal tool, SCIM)
 * halves its score; a hyphenated word is also read whole ("post-mortems"); and a first
 * suggestion well ahead of the next gains a little (its reason says by how much). The index is
 * built once per knowledge base from inputs sorted first, so the same knowledge base, in any
 * array order, and the same questions give the same results, byte for byte.
 *
 * This module builds the matcher and joins its parts: matching by id is in match_by_id.ts, the
 * full-text index in match_index.ts and the text suggestions in match_suggest.ts.
 */
import type { KnowledgeBase, MatchResult, Question, Suggestion } from "./types.ts";
import { type Entry, normaliserBuilder } from "./match_score.ts";
import { type SortedKb, sortedKnowledgeBase } from "./match_kb.ts";
import { type Pause, slicedPause } from "./match_pause.ts";
import { type IdTable, idTable, matchById } from "./match_by_id.ts";
import {
  BOOST,
  FIELDS,
  indexEntries,
  newSearch,
  piecewiseSearch,
  sourceReaders,
  type Techniques,
  textIndex,
  type TextMatcher,
} from "./match_index.ts";
import { matchByText, sourceKey, suggestionsOf, textQuery } from "./match_suggest.ts";

/**
 * The text score a suggestion needs to be taken as the row's answer (`best`), chosen on the
 * tuning half of the labelled set (tests/fixtures/questionnaires/labelled.json) with every
 * technique on (`deno run -A --lock=tests/deno.lock tests/bench/questionnaire.ts --tune`).
 */
export const DEFAULT_MATCH_THRESHOLD = 0.41;
/** Suggestions per question unless asked otherwise (id matches are never cut). */
export const DEFAULT_MAX_SUGGESTIONS = 5;

export interface MatcherOptions {
  /** The score `best` must reach; DEFAULT_MATCH_THRESHOLD unless given. */
  threshold?: number;
  /** Text suggestions stop at this many suggestions in all; DEFAULT_MAX_SUGGESTIONS. */
  maxSuggestions?: number;
  /**
   * Techniques turned off, for measuring what each adds (tests/bench/questionnaire.ts); the
   * service never sets it, and every technique is on unless this says `false`.
   */
  techniques?: MatchTechniques;
}

/** The techniques of matching past ids (docs/questionnaires.md, "Matching"). */
export interface MatchTechniques {
  /** Matching by text at all (off: ids only). */
  text?: boolean;
  /** An answer's text score blends in how alike its phrasings and the question are. */
  similarity?: boolean;
  /** An answer's learned phrasings (`aliases`): their texts and ids match as its own. */
  aliases?: boolean;
  /** A question's words' synonyms (WordNet, the control vocabulary, acronyms) searched too. */
  synonyms?: boolean;
  /** A qualifier in the question that a suggestion lacks lowers its score. */
  negatives?: boolean;
  /** A hyphenated compound of the question is also read as one word ("post-mortems"). */
  compounds?: boolean;
  /** The top text suggestion's score rises with its lead over the next suggestion's. */
  lead?: boolean;
}

function techniquesOf(options: MatcherOptions): Techniques {
  const t = options.techniques ?? {};
  return {
    text: t.text !== false,
    similarity: t.similarity !== false,
    aliases: t.aliases !== false,
    synonyms: t.synonyms !== false,
    negatives: t.negatives !== false,
    compounds: t.compounds !== false,
    lead: t.lead !== false,
  };
}

export interface Matcher {
  /** One result per question, in the questions' order. */
  match(questions: Question[]): MatchResult[];
}

/**
 * Builds the matcher of one knowledge base: the id table and the full-text index are made
 * once here, and `match` only reads them.
 */
export function createMatcher(kb: KnowledgeBase, options: MatcherOptions = {}): Matcher {
  const sorted = sortedKnowledgeBase(kb);
  const techniques = techniquesOf(options);
  return matcherOf(
    sorted,
    idTable(sorted, techniques),
    textIndex(sorted, techniques),
    options,
  );
}

export { DEFAULT_SLICE_MS, nextTurn, type Pause, slicedPause } from "./match_pause.ts";

/** A matcher whose work pauses between answers indexed and between questions matched. */
export interface YieldingMatcher extends Matcher {
  /**
   * The same results as `match`, pausing after every `every` questions, and, when the matcher
   * was made with `pauseInQuestions`, also between the terms of one question's search.
   */
  matchYielding(questions: Question[], every?: number): Promise<MatchResult[]>;
}

export interface YieldingMatcherOptions extends MatcherOptions {
  /**
   * Pause between the terms of a question's full-text search as well (each term is searched
   * with its prefix and fuzzy variants over every field: with 64 terms against 2,000 long
   * answers, one question is far more than one slice). Off unless asked.
   */
  pauseInQuestions?: boolean;
}

/**
 * `createMatcher`, built and matching in pieces with a pause between them (after every answer
 * analysed and every answer indexed, every few questions, and, if asked, every term searched),
 * so that a large knowledge base (2,000 answers of 10,000 characters) never holds the event loop
 * for long; `pause` decides when a turn is due (by default every DEFAULT_SLICE_MS of work). The
 * index and the results are the same as `createMatcher`'s, byte for byte.
 */
export async function createYieldingMatcher(
  kb: KnowledgeBase,
  options: YieldingMatcherOptions = {},
  pause: Pause = slicedPause(),
): Promise<YieldingMatcher> {
  const sorted = sortedKnowledgeBase(kb);
  const techniques = techniquesOf(options);
  await pause();
  const ids = idTable(sorted, techniques);
  const entries: Entry[] = [];
  const stats = normaliserBuilder(FIELDS, BOOST);
  for (const item of indexEntries(sorted, techniques)) {
    const built = item();
    entries.push(built);
    stats.add(built);
    await pause();
  }
  const search = newSearch();
  for (const entry of entries) {
    search.add(entry);
    await pause();
  }
  const text: TextMatcher = {
    search,
    index: stats.done(),
    techniques,
    ...sourceReaders(sorted, techniques),
  };
  const matcher = matcherOf(sorted, ids, text, options);
  const searchInPieces = options.pauseInQuestions ? piecewiseSearch(search, pause) : null;
  return {
    ...matcher,
    async matchYielding(questions, every = 1) {
      const results: MatchResult[] = [];
      for (let i = 0; i < questions.length; i++) {
        const question = questions[i];
        if (searchInPieces) {
          const byText = async () => {
            const query = textQuery(question, text);
            if (query.own.length === 0 || !techniques.text) return [];
            const hits = await searchInPieces(query.all.map((t) => t.term), query.options);
            return suggestionsOf(query, hits, text, sorted);
          };
          results.push(await matcher.matchOne(question, byText));
        } else {
          results.push(...matcher.match([question]));
        }
        if ((i + 1) % Math.max(1, every) === 0) await pause();
      }
      return results;
    },
  };
}

interface MatcherWithParts extends Matcher {
  /** One question's result, its text suggestions from `byText` (asked only when there is room). */
  matchOne(question: Question, byText: () => Promise<Suggestion[]>): Promise<MatchResult>;
}

function matcherOf(
  sorted: SortedKb,
  ids: IdTable,
  text: TextMatcher,
  options: MatcherOptions,
): MatcherWithParts {
  const threshold = options.threshold ?? DEFAULT_MATCH_THRESHOLD;
  const maxSuggestions = Math.max(1, Math.floor(options.maxSuggestions ?? DEFAULT_MAX_SUGGESTIONS));
  const resultOf = (question: Question, byId: Suggestion[], found: Suggestion[]): MatchResult => {
    const taken = new Set(byId.map((s) => sourceKey(s)));
    const room = Math.max(0, maxSuggestions - byId.length);
    const byText = found.filter((s) => !taken.has(sourceKey(s))).slice(0, room);
    const suggestions = [...byId, ...byText];
    const top = suggestions[0] ?? null;
    return {
      key: question.key,
      suggestions,
      best: top && top.score >= threshold ? top : null,
    };
  };
  const roomFor = (byId: Suggestion[]) => maxSuggestions - byId.length > 0;
  return {
    match(questions) {
      return questions.map((question) => {
        const byId = matchById(question, ids);
        return resultOf(question, byId, roomFor(byId) ? matchByText(question, text, sorted) : []);
      });
    },
    async matchOne(question, byText) {
      const byId = matchById(question, ids);
      return resultOf(question, byId, roomFor(byId) ? await byText() : []);
    },
  };
}
