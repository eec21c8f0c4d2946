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
import { type AnalysedTerm, expansionTerms, qualifiers, queryTerms, terms } from "./match_text.ts";
import { type Entry, normaliser, normaliserBuilder, type TextIndex } from "./match_score.ts";
import { controlCitation, controlText, type SortedKb, sortedKnowledgeBase } from "./match_kb.ts";
import { type Pause, slicedPause } from "./match_pause.ts";

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

interface Techniques {
  text: boolean;
  similarity: boolean;
  aliases: boolean;
  synonyms: boolean;
  negatives: boolean;
  compounds: boolean;
  lead: boolean;
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

/** Search results read per question before suggestions are built (best first). */
const CANDIDATES = 40;
/** Controls and criteria weigh a little less than an answer written for the question. */
const NON_ANSWER_WEIGHT = 0.5;
/** What a term a synonym brought weighs against the buyer's own word. */
const SYNONYM_WEIGHT = 0.9;
/** A suggestion's score is multiplied by this for each qualifier of the question it lacks. */
const NEGATIVE_FACTOR = 0.5;
/** A top text suggestion LEAD_RATIO times the next one's, from LEAD_FLOOR, gains LEAD_BONUS. */
const LEAD_RATIO = 1.4;
const LEAD_FLOOR = 0.3;
const LEAD_BONUS = 0.1;

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

/** One question's search hit as matchByText reads it (a subset of minisearch's SearchResult). */
interface Hit {
  id: string;
  score: number;
  queryTerms: string[];
}

/** minisearch's raw result of a query, per short document id, before `search` ranks it. */
interface RawHit {
  score: number;
  terms: string[];
  match: Record<string, string[]>;
}

/** The minisearch 7 internals that `search` is made of (minisearch/dist/es/index.js). */
interface SearchInternals {
  executeQuery?: (query: string, options?: SearchOptions) => Map<number, RawHit>;
  _documentIds?: Map<number, string>;
}

/**
 * `search.search(terms.join(" "))` done a term at a time with `pause` between, giving the same
 * hits in the same order: `search` runs one query per term and combines them with OR in the
 * terms' order (the first term's map accumulates: scores added, new documents appended), then
 * multiplies each score by the number of query terms the document matched and sorts by score
 * (a stable sort). The same steps are taken here on the per-term results of minisearch's own
 * `executeQuery`. Without those internals (another minisearch), the search is one piece.
 */
function piecewiseSearch(
  search: MiniSearch<Entry>,
  pause: Pause,
): (terms: string[], options: SearchOptions) => Promise<Hit[]> {
  const internals = search as unknown as SearchInternals;
  const executeQuery = internals.executeQuery;
  const documentIds = internals._documentIds;
  if (typeof executeQuery !== "function" || !(documentIds instanceof Map)) {
    return (terms, options) => Promise.resolve(search.search(terms.join(" "), options) as Hit[]);
  }
  return async (terms, options) => {
    let combined: Map<number, RawHit> | null = null;
    for (const term of terms) {
      await pause();
      const results = executeQuery.call(search, term, options);
      if (combined === null) {
        combined = results;
        continue;
      }
      for (const [docId, hit] of results) {
        const existing = combined.get(docId);
        if (!existing) {
          combined.set(docId, hit);
          continue;
        }
        existing.score = existing.score + hit.score;
        existing.match = Object.assign(existing.match, hit.match);
        for (const t of hit.terms) if (!existing.terms.includes(t)) existing.terms.push(t);
      }
    }
    const hits: Hit[] = [];
    for (const [docId, { score, terms: matched }] of combined ?? []) {
      hits.push({
        id: documentIds.get(docId)!,
        score: score * (matched.length || 1),
        queryTerms: matched,
      });
    }
    return hits.sort((a, b) => b.score - a.score);
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

// ---------------------------------------------------------------------------------------------
// By id

interface IdTable {
  /** Written form → answers carrying it (with the ref's own spelling). */
  written: Map<string, { answer: KbAnswer; id: string }[]>;
  /** Loose form → the distinct written forms of the knowledge base that have it. */
  loose: Map<string, Set<string>>;
  citations: (answer: KbAnswer) => SuggestionCitation[];
}

function idTable(kb: SortedKb, techniques: Techniques): IdTable {
  const written = new Map<string, { answer: KbAnswer; id: string }[]>();
  const loose = new Map<string, Set<string>>();
  for (const answer of kb.answers) {
    const seen = new Set<string>();
    const ids = answer.questionnaireRefs.map((ref) => ref.id);
    if (techniques.aliases) ids.push(...aliasesOf(answer).flatMap((alias) => alias.ids));
    for (const id of ids) {
      if (typeof id !== "string" || !isMatchableId(id)) continue;
      const form = writtenId(id);
      if (seen.has(form)) continue;
      seen.add(form);
      const list = written.get(form) ?? [];
      list.push({ answer, id });
      written.set(form, list);
      const key = looseId(id);
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
  techniques: Techniques;
  /** The qualifier classes a suggestion's source names in any of its texts (memoised). */
  qualifiersOf: (key: string) => Set<string>;
  /** An answer's phrasings (its question, then its aliases) as sets of terms (memoised). */
  phrasingsOf: (answer: KbAnswer) => Set<string>[];
}

/** An answer's learned phrasings, as far as they are well formed (most MAX_ALIASES). */
function aliasesOf(answer: KbAnswer): { text: string; ids: string[] }[] {
  const list = Array.isArray(answer.aliases) ? answer.aliases : [];
  return list.slice(0, MAX_ALIASES).filter((alias) =>
    alias && typeof alias.text === "string" && Array.isArray(alias.ids)
  );
}

/** Most phrasings read per answer (the answers' own limit). */
const MAX_ALIASES = 50;

/**
 * What the text matcher reads of the sources beyond the index, each computed on first use for
 * the suggestions that need it: the qualifier classes (match_text.ts) a source names in any
 * of its texts (an answer's question, phrasings, answer and category; a control's title and
 * the titles of the criteria that cite it), and an answer's phrasings as term sets.
 */
function sourceReaders(
  kb: SortedKb,
  techniques: Techniques,
): Pick<TextMatcher, "qualifiersOf" | "phrasingsOf"> {
  const criteriaTitles = new Map<string, string[]>();
  for (const criterion of kb.criteria) {
    for (const controlId of criterion.controlIds) {
      const key = `control:${criterion.projectSlug}/${controlId}`;
      criteriaTitles.set(key, [...criteriaTitles.get(key) ?? [], criterion.title]);
    }
  }
  const qualifierMemo = new Map<string, Set<string>>();
  const phrasingMemo = new Map<string, Set<string>[]>();
  return {
    qualifiersOf(key) {
      let found = qualifierMemo.get(key);
      if (found) return found;
      const texts: string[] = [];
      if (key.startsWith("answer:")) {
        const answer = kb.answerById.get(key.slice(7));
        if (answer) {
          texts.push(answer.question, answer.answer, answer.category);
          if (techniques.aliases) texts.push(...aliasesOf(answer).map((a) => a.text));
        }
      } else {
        const control = kb.controlByKey.get(key.slice(8));
        if (control) texts.push(control.title);
        texts.push(...criteriaTitles.get(key) ?? []);
      }
      found = new Set(texts.flatMap((text) => [...qualifiers(String(text ?? ""))]));
      qualifierMemo.set(key, found);
      return found;
    },
    phrasingsOf(answer) {
      let list = phrasingMemo.get(answer.id);
      if (list) return list;
      const texts = [answer.question];
      if (techniques.aliases) texts.push(...aliasesOf(answer).map((a) => a.text));
      list = texts.map((text) => {
        const raw = String(text ?? "");
        return new Set(queryTerms(leadingId(raw)?.rest ?? raw).map((t) => t.term));
      });
      phrasingMemo.set(answer.id, list);
      return list;
    },
  };
}

/** The answer id of a phrasing's entry id (`p:<answer id>:<n>`). */
function aliasAnswerId(id: string): string {
  return id.slice(2, id.lastIndexOf(":"));
}

const FIELDS = ["question", "answer", "category"] as const;
const BOOST: Record<(typeof FIELDS)[number], number> = { question: 3, answer: 1, category: 0.5 };

function textIndex(kb: SortedKb, techniques: Techniques): TextMatcher {
  const entries = indexEntries(kb, techniques).map((item) => item());
  const search = newSearch();
  search.addAll(entries);
  return {
    search,
    index: normaliser(entries, FIELDS, BOOST),
    techniques,
    ...sourceReaders(kb, techniques),
  };
}

/**
 * The index's entries in order (answers, their learned phrasings, controls, criteria), each
 * built when called. A phrasing is an entry of its own, its text as the question: it matches
 * as the answer's question does, and the answer keeps the best of its entries' scores.
 */
function indexEntries(kb: SortedKb, techniques: Techniques): (() => Entry)[] {
  return [
    ...kb.answers.map((answer) => () =>
      entry(`a:${answer.id}`, answer.question, answer.answer, answer.category)
    ),
    ...(techniques.aliases ? kb.answers : []).flatMap((answer) =>
      aliasesOf(answer).map((alias, i) => () => entry(`p:${answer.id}:${i}`, alias.text, "", ""))
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

/** minisearch's options of one search (a subset of its SearchOptions). */
interface SearchOptions {
  boostTerm: (term: string) => number;
  prefix: (term: string) => boolean;
  fuzzy: (term: string) => number | false;
}

/** A question as searched: its own terms, the synonyms' terms, and the search's options. */
interface TextQuery {
  own: AnalysedTerm[];
  all: AnalysedTerm[];
  /** The terms the synonyms brought. */
  added: AnalysedTerm[];
  /** The qualifier classes the question names (empty when negative evidence is off). */
  qualifiers: Set<string>;
  options: SearchOptions;
}

/**
 * The question's analysed terms as searched (after a leading questionnaire id), with the terms
 * its words' synonyms bring (known to the index, weighing SYNONYM_WEIGHT, matched exactly).
 */
function textQuery(question: Question, text: TextMatcher): TextQuery {
  const raw = String(question.text ?? "");
  const rest = leadingId(raw)?.rest ?? raw;
  const own = queryTerms(rest);
  const added = text.techniques.synonyms && own.length > 0
    ? expansionTerms(rest, own, (term) => text.index.has(term), {
      compounds: text.techniques.compounds,
    })
    : [];
  const expanded = new Set(added.map((t) => t.term));
  return {
    own,
    all: [...own, ...added],
    added,
    qualifiers: text.techniques.negatives ? qualifiers(rest) : new Set(),
    options: {
      boostTerm: (term) => expanded.has(term) ? SYNONYM_WEIGHT : 1,
      prefix: (term) => term.length >= 5 && !expanded.has(term),
      fuzzy: (term) => term.length >= 6 && !expanded.has(term) ? 1 : false,
    },
  };
}

/** Suggestions by text, best first: answers, and controls found by title or by a criterion. */
function matchByText(question: Question, text: TextMatcher, kb: SortedKb): Suggestion[] {
  if (!text.techniques.text) return [];
  const query = textQuery(question, text);
  if (query.own.length === 0) return [];
  const found = text.search.search(query.all.map((t) => t.term).join(" "), query.options);
  return suggestionsOf(query, found, text, kb);
}

/** The suggestions of a question's search hits (ranked best first by the search). */
function suggestionsOf(
  query: TextQuery,
  found: Hit[],
  text: TextMatcher,
  kb: SortedKb,
): Suggestion[] {
  const self = text.index.selfScore(query.own.map((t) => t.term));
  const asked = [...query.qualifiers];
  /** The sources a qualifier of the question is missing from. */
  const lacking = new Set<string>();
  /** The score less the negative evidence: each qualifier asked that the source lacks. */
  const weighed = (score: number, key: string) => {
    if (asked.length === 0) return score;
    const held = text.qualifiersOf(key);
    const missing = asked.filter((name) => !held.has(name)).length;
    if (missing === 0) return score;
    lacking.add(key);
    return Math.floor(score * NEGATIVE_FACTOR ** missing * 10_000) / 10_000;
  };
  const hits = found.slice(0, CANDIDATES);
  const byKey = new Map<string, Suggestion>();
  for (const hit of hits) {
    const raw = normalisedScore(hit.score, self);
    const reason = reasonWords(hit.queryTerms, query.all);
    const id = String(hit.id);
    if (id.startsWith("a:") || id.startsWith("p:")) {
      const answer = kb.answerById.get(id.startsWith("a:") ? id.slice(2) : aliasAnswerId(id))!;
      const alike = text.techniques.similarity
        ? blend(raw, phrasingSimilarity(query, text.phrasingsOf(answer), text.index))
        : raw;
      const score = weighed(alike, `answer:${answer.id}`);
      add(byKey, {
        source: { kind: "answer", answerId: answer.id },
        text: answer.answer,
        score,
        by: "text",
        reason: { terms: reason },
        citations: kb.citationsOf(answer),
      });
    } else if (id.startsWith("c:")) {
      const score = weighed(raw, `control:${id.slice(2)}`);
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
        const key = `${criterion.projectSlug}/${controlId}`;
        const control = kb.controlByKey.get(key);
        const score = weighed(raw, `control:${key}`);
        if (control) add(byKey, controlSuggestion(control, score, reason, [cited]));
      }
    }
  }
  const ranked = [...byKey.values()].sort((a, b) =>
    b.score - a.score || compareCodePoints(sourceKey(a), sourceKey(b))
  );
  const leads = text.techniques.lead && ranked.length > 0 && !lacking.has(sourceKey(ranked[0]));
  return leads ? withLead(ranked) : ranked;
}

/**
 * The suggestions with the first one's score raised when it stands clear of the second: from
 * LEAD_FLOOR up, a top suggestion scoring at least LEAD_RATIO times the next one's (or alone)
 * gains LEAD_BONUS. Two suggestions scoring alike leave the question open; one well ahead of
 * every other is more likely its answer than its plain score says (chosen on the tuning split:
 * docs/questionnaires.md). A suggestion that negative evidence lowered (a qualifier of the
 * question it lacks) gains nothing: leading the others does not make it answer the question.
 * A control the first suggestion cites is no rival: it agrees with it (a scanning answer and
 * its scanning control), so the lead is over the next suggestion that is not one of those. And
 * the first must share more of the buyer's words than that next one: two suggestions matching
 * the same words differ in score by their lengths and wording, which says little (in a small
 * knowledge base every match stands far from the others).
 * The order does not change; the reason says the lead: the ratio of the two scores, two
 * decimals, at most 99.99 (a lone suggestion).
 */
function withLead(ranked: Suggestion[]): Suggestion[] {
  const first = ranked[0];
  if (!first || first.score < LEAD_FLOOR || !("terms" in first.reason)) return ranked;
  const cited = new Set(
    first.citations.flatMap((c) => c.kind === "control" ? [`${c.projectSlug}/${c.controlId}`] : []),
  );
  const second = ranked.slice(1).find((s) =>
    !(s.source.kind === "control" && cited.has(`${s.source.projectSlug}/${s.source.controlId}`))
  );
  const ratio = second && second.score > 0 ? first.score / second.score : Infinity;
  if (!(ratio >= LEAD_RATIO)) return ranked;
  // A lead in evidence, not in length: the first shares more of the buyer's words.
  const words = (s: Suggestion) => "terms" in s.reason ? s.reason.terms.length : 0;
  if (second && !(first.reason.terms.length > words(second))) return ranked;
  const score = Math.floor(Math.min(first.score + LEAD_BONUS, 0.9999) * 10_000) / 10_000;
  const lead = Math.floor(Math.min(ratio, 99.99) * 100) / 100;
  return [{ ...first, score, reason: { ...first.reason, lead } }, ...ranked.slice(1)];
}

/**
 * How alike the question and the closest of an answer's phrasings are, in [0, 1]: the harmonic
 * mean of the share of the question's terms the phrasing holds and the share of the phrasing's
 * terms the question holds, each term weighed by how telling it is (its inverse document
 * frequency among the indexed questions), a term met only through a synonym counting
 * SYNONYM_WEIGHT. BM25 measures how much of the question an entry covers; this also asks how
 * much of the phrasing is the question, which tells "Are backups encrypted?" from "Is customer
 * data encrypted at rest?" when the question is about backups.
 */
function phrasingSimilarity(query: TextQuery, phrasings: Set<string>[], index: TextIndex): number {
  const own = query.own.map((t) => t.term);
  const viaSynonym = new Map<string, string[]>();
  for (const t of query.added) {
    const from = query.own.filter((o) => o.word === t.word).map((o) => o.term);
    for (const o of from) viaSynonym.set(o, [...viaSynonym.get(o) ?? [], t.term]);
  }
  const addedTerms = new Set(query.added.map((t) => t.term));
  const ownTerms = new Set(own);
  const total = own.reduce((sum, term) => sum + index.weight(term), 0);
  let best = 0;
  for (const phrasing of phrasings) {
    if (phrasing.size === 0 || total <= 0) continue;
    let covered = 0;
    for (const term of own) {
      if (phrasing.has(term)) covered += index.weight(term);
      else if (viaSynonym.get(term)?.some((s) => phrasing.has(s))) {
        covered += SYNONYM_WEIGHT * index.weight(term);
      }
    }
    let mass = 0;
    let held = 0;
    for (const term of phrasing) {
      const w = index.weight(term);
      mass += w;
      if (ownTerms.has(term)) held += w;
      else if (addedTerms.has(term)) held += SYNONYM_WEIGHT * w;
    }
    const recall = covered / total;
    const precision = mass > 0 ? held / mass : 0;
    if (recall + precision > 0) {
      best = Math.max(best, 2 * recall * precision / (recall + precision));
    }
  }
  return best;
}

/** The score of an answer: its BM25+ score and its phrasing similarity together. */
function blend(bm25: number, alike: number): number {
  const score = PHRASING_SHARE * alike + (1 - PHRASING_SHARE) * bm25;
  return Math.floor(Math.min(score, 0.9999) * 10_000) / 10_000;
}

/** The share of the phrasing similarity in an answer's text score. */
const PHRASING_SHARE = 0.3;

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
