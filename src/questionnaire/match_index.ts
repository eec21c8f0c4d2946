/**
 * The full-text index of questionnaire matching (docs/questionnaires.md, "Matching"): the
 * techniques in force, the entries (answers, their learned phrasings, controls, criteria) with
 * their fields and boosts, the minisearch index built of them, what the text matcher reads of
 * the sources beyond the index (qualifiers, phrasings), and a search done a term at a time.
 */
import MiniSearch from "minisearch";
import type { KbAnswer } from "./types.ts";
import { leadingId } from "./match_ids.ts";
import { qualifiers, queryTerms, terms } from "./match_text.ts";
import { type Entry, normaliser, type TextIndex } from "./match_score.ts";
import type { SortedKb } from "./match_kb.ts";
import type { Pause } from "./match_pause.ts";

/** The techniques in force: each on unless MatcherOptions.techniques (match.ts) turns it off. */
export interface Techniques {
  text: boolean;
  similarity: boolean;
  aliases: boolean;
  synonyms: boolean;
  negatives: boolean;
  compounds: boolean;
  lead: boolean;
}

/** Controls and criteria weigh a little less than an answer written for the question. */
const NON_ANSWER_WEIGHT = 0.5;

/** One question's search hit as matchByText reads it (a subset of minisearch's SearchResult). */
export interface Hit {
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
export function piecewiseSearch(
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

export interface TextMatcher {
  search: MiniSearch<Entry>;
  index: TextIndex;
  techniques: Techniques;
  /** The qualifier classes a suggestion's source names in any of its texts (memoised). */
  qualifiersOf: (key: string) => Set<string>;
  /** An answer's phrasings (its question, then its aliases) as sets of terms (memoised). */
  phrasingsOf: (answer: KbAnswer) => Set<string>[];
}

/** An answer's learned phrasings, as far as they are well formed (most MAX_ALIASES). */
export function aliasesOf(answer: KbAnswer): { text: string; ids: string[] }[] {
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
export function sourceReaders(
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
export function aliasAnswerId(id: string): string {
  return id.slice(2, id.lastIndexOf(":"));
}

export const FIELDS = ["question", "answer", "category"] as const;
export const BOOST: Record<(typeof FIELDS)[number], number> = {
  question: 3,
  answer: 1,
  category: 0.5,
};

export function textIndex(kb: SortedKb, techniques: Techniques): TextMatcher {
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
export function indexEntries(kb: SortedKb, techniques: Techniques): (() => Entry)[] {
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

export function newSearch(): MiniSearch<Entry> {
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
export interface SearchOptions {
  boostTerm: (term: string) => number;
  prefix: (term: string) => boolean;
  fuzzy: (term: string) => number | false;
}
