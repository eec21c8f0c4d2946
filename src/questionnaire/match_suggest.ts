/**
 * The text suggestions of questionnaire matching (docs/questionnaires.md, "Matching"): a
 * question as searched (its terms and its synonyms' terms), the search's hits made
 * suggestions, each scored by BM25+ over the question's self score, blended with phrasing
 * similarity, lowered by negative evidence and raised by a clear lead, then merged by source.
 */
import type { KbControl, Question, Suggestion, SuggestionCitation } from "./types.ts";
import { compareCodePoints } from "../lib/order.ts";
import { leadingId } from "./match_ids.ts";
import { type AnalysedTerm, expansionTerms, qualifiers, queryTerms } from "./match_text.ts";
import type { TextIndex } from "./match_score.ts";
import { controlCitation, controlText, type SortedKb } from "./match_kb.ts";
import { aliasAnswerId, type Hit, type SearchOptions, type TextMatcher } from "./match_index.ts";

/** Search results read per question before suggestions are built (best first). */
const CANDIDATES = 40;
/** What a term a synonym brought weighs against the buyer's own word. */
const SYNONYM_WEIGHT = 0.9;
/** A suggestion's score is multiplied by this for each qualifier of the question it lacks. */
const NEGATIVE_FACTOR = 0.5;
/** A top text suggestion LEAD_RATIO times the next one's, from LEAD_FLOOR, gains LEAD_BONUS. */
const LEAD_RATIO = 1.4;
const LEAD_FLOOR = 0.3;
const LEAD_BONUS = 0.1;

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
export function textQuery(question: Question, text: TextMatcher): TextQuery {
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
export function matchByText(question: Question, text: TextMatcher, kb: SortedKb): Suggestion[] {
  if (!text.techniques.text) return [];
  const query = textQuery(question, text);
  if (query.own.length === 0) return [];
  const found = text.search.search(query.all.map((t) => t.term).join(" "), query.options);
  return suggestionsOf(query, found, text, kb);
}

/** The suggestions of a question's search hits (ranked best first by the search). */
export function suggestionsOf(
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

export function sourceKey(suggestion: Suggestion): string {
  const source = suggestion.source;
  return source.kind === "answer"
    ? `answer:${source.answerId}`
    : `control:${source.projectSlug}/${source.controlId}`;
}
