/**
 * The text analysis of questionnaire matching: the same steps for a knowledge-base entry and a
 * buyer's question, so both meet on the same terms. Unicode-normalised (NFKD, marks dropped),
 * lower-cased, split on anything that is not a letter or a digit, stop words dropped, a short
 * table of security abbreviations spelled out ("MFA" → multi factor authentication) and a few
 * words and phrases of the trade brought to one term (staff, personnel, employees; "log in",
 * "sign on"), then Porter-stemmed.
 * No locale, no randomness: the same text gives the same terms on every machine. The tables it
 * reads are in match_vocabulary.ts.
 */
import { stemmer } from "stemmer";
import { SYNONYM_LINES } from "./match_synonyms.ts";
import {
  ABBREVIATIONS,
  ACRONYMS,
  CONTROL_VOCABULARY,
  PHRASES,
  QUALIFIER_CLASSES,
  STOP_WORDS,
  SYNONYMS,
} from "./match_vocabulary.ts";

/** A term as indexed, and the buyer's own word it came from (shown as the match's reason). */
export interface AnalysedTerm {
  term: string;
  word: string;
}

/** Most terms one question contributes: a 10,000-character cell is cut, not scored whole. */
export const MAX_QUERY_TERMS = 64;

const WORD = /[\p{L}\p{N}]+/gu;
const MARKS = /\p{M}+/gu;

/** The text's words, normalised: NFKD without marks, lower case (locale-free). */
export function words(text: string): string[] {
  return text.normalize("NFKD").replace(MARKS, "").toLowerCase().match(WORD) ?? [];
}

function stemOf(word: string): string {
  if (/^\d+$/.test(word)) return word;
  const stem = word.length > 2 ? stemmer(word) : word;
  return SYNONYMS.get(stem) ?? stem;
}

/**
 * The words with the known phrases (two words) each replaced by their one word; `shown` is
 * what the text said, for the match's reason.
 */
function phrased(list: string[]): { word: string; shown: string }[] {
  const out: { word: string; shown: string }[] = [];
  for (let i = 0; i < list.length; i++) {
    const pair = `${list[i]} ${list[i + 1]}`;
    const phrase = i + 1 < list.length ? PHRASES.get(pair) : undefined;
    if (phrase) {
      out.push({ word: phrase, shown: pair });
      i++;
    } else {
      out.push({ word: list[i], shown: list[i] });
    }
  }
  return out;
}

/**
 * The terms of `text` in order of appearance, each with the word it came from; repeated terms
 * stay (an index counts them), stop words and one-letter words go.
 */
export function analyse(text: string): AnalysedTerm[] {
  const out: AnalysedTerm[] = [];
  for (const { word, shown } of phrased(words(text))) {
    if (word.length < 2 || STOP_WORDS.has(word)) continue;
    const expansion = ABBREVIATIONS.get(word);
    if (expansion) {
      for (const part of expansion.split(" ")) {
        if (!STOP_WORDS.has(part)) out.push({ term: stemOf(part), word: shown });
      }
    }
    out.push({ term: stemOf(word), word: shown });
  }
  return out;
}

/** The indexed terms of `text` (what the full-text index is given for a field). */
export function terms(text: string): string[] {
  return analyse(text).map((t) => t.term);
}

/**
 * The distinct terms of a question, first occurrence first, at most MAX_QUERY_TERMS, each
 * with the first word of the question that gave it.
 */
export function queryTerms(text: string): AnalysedTerm[] {
  const seen = new Map<string, AnalysedTerm>();
  for (const t of analyse(text)) {
    if (seen.size >= MAX_QUERY_TERMS) break;
    if (!seen.has(t.term)) seen.set(t.term, t);
  }
  return [...seen.values()];
}

// ---------------------------------------------------------------------------------------------
// Synonyms (query expansion) and qualifiers (negative evidence)

const QUALIFIER_OF = new Map(
  Object.entries(QUALIFIER_CLASSES).flatMap(([name, list]) => list.map((w) => [w, name])),
);

/** The qualifier classes a text names ("sub-processors" and "sub processors" count too). */
export function qualifiers(text: string): Set<string> {
  const found = new Set<string>();
  const list = words(text);
  for (let i = 0; i < list.length; i++) {
    const joined = list[i] === "sub" && i + 1 < list.length ? `sub${list[i + 1]}` : "";
    const name = QUALIFIER_OF.get(list[i]) ?? (joined ? QUALIFIER_OF.get(joined) : undefined);
    if (name) found.add(name);
  }
  return found;
}

let synonymIndex: Map<string, string[]> | null = null;

/** Word → the other words of its WordNet synsets and control-vocabulary groups (built once). */
function synonymsOf(word: string): string[] {
  if (!synonymIndex) {
    const index = new Map<string, Set<string>>();
    const addLine = (line: string) => {
      const group = line.split(" ");
      for (const w of group) {
        const set = index.get(w) ?? new Set<string>();
        for (const other of group) if (other !== w) set.add(other);
        index.set(w, set);
      }
    };
    for (const line of SYNONYM_LINES.split("\n")) addLine(line);
    for (const line of CONTROL_VOCABULARY) addLine(line);
    for (const [acronym, spelled] of Object.entries(ACRONYMS)) {
      const set = index.get(acronym) ?? new Set<string>();
      set.add(spelled);
      index.set(acronym, set);
    }
    synonymIndex = new Map([...index].map(([w, set]) => [w, [...set].sort()]));
  }
  return synonymIndex.get(word) ?? [];
}

/** A word's base forms to look up (WordNet lists lemmas: "keys" is found as "key"). */
function lemmas(word: string): string[] {
  const out = [word];
  if (word.endsWith("ies")) out.push(`${word.slice(0, -3)}y`);
  if (word.endsWith("es")) out.push(word.slice(0, -2));
  if (word.endsWith("s") && !word.endsWith("ss")) out.push(word.slice(0, -1));
  if (word.endsWith("ed")) out.push(word.slice(0, -2), word.slice(0, -1));
  if (word.endsWith("ing")) out.push(word.slice(0, -3), `${word.slice(0, -3)}e`);
  return out;
}

/** A run of letters and digits (a word), and the hyphens that join two words into a compound:
 * ASCII's, and Unicode's hyphen and non-breaking hyphen. */
const WORD_RUN = /[\p{L}\p{N}]+/gu;
const HYPHENS = new Set(["-", "\u2010", "\u2011"]);

/**
 * The hyphenated pairs of `text`, left to right: two words with one hyphen between them, a word
 * that ended a pair not starting the next ("a-b-c" gives a-b). Found from the words' runs (each
 * read once), as a pattern with a word on each side of the hyphen would retry from every letter
 * of a long word (quadratic; tests/quality/regex_test.ts).
 */
function* hyphenatedPairs(text: string): Generator<[string, string]> {
  let previous: { word: string; end: number } | null = null;
  for (const match of text.matchAll(WORD_RUN)) {
    const word = match[0];
    const start = match.index!;
    if (previous && start === previous.end + 1 && HYPHENS.has(text[previous.end])) {
      yield [previous.word, word];
      previous = null;
      continue;
    }
    previous = { word, end: start + word.length };
  }
}

/**
 * The terms of a question's hyphenated compounds read as one word ("post-mortems" is a
 * postmortem, "sub-processors" a subprocessor, which the trade's table makes a vendor), each
 * with the compound as the buyer's word: the split parts alone miss the word the knowledge base
 * writes whole or the trade's table knows. Only terms the index knows (`known`), only
 * compounds with a part among the question's own terms (the first MAX_QUERY_TERMS of those: a
 * long cell is cut), in order, each term once.
 */
export function compoundTerms(
  text: string,
  query: AnalysedTerm[],
  known: (term: string) => boolean,
): AnalysedTerm[] {
  const asked = new Set(query.flatMap((t) => t.word.split(" ")));
  const seen = new Set(query.map((t) => t.term));
  const out: AnalysedTerm[] = [];
  const normal = text.normalize("NFKD").replace(MARKS, "").toLowerCase();
  let read = 0;
  for (const [first, second] of hyphenatedPairs(normal)) {
    if (!asked.has(first) && !asked.has(second)) continue;
    if (++read > MAX_QUERY_TERMS) break;
    for (const { term } of analyse(`${first}${second}`)) {
      if (seen.has(term) || !known(term)) continue;
      seen.add(term);
      out.push({ term, word: `${first}-${second}` });
    }
  }
  return out;
}

/** Most expansion terms per word of the question, and per question. */
const PER_WORD = 4;
const PER_QUESTION = 32;

/**
 * The terms a question's words' synonyms add (a synonym analysed as any text: stemmed, a phrase
 * of the trade brought to its one term) (each with the buyer's word that brought it), new
 * to the question and known to the index (`known`), at most PER_WORD per word, in order;
 * first the terms of its hyphenated compounds read as one word (compoundTerms) unless
 * `compounds` is false.
 */
export function expansionTerms(
  text: string,
  query: AnalysedTerm[],
  known: (term: string) => boolean,
  options: { compounds?: boolean } = {},
): AnalysedTerm[] {
  const seen = new Set(query.map((t) => t.term));
  const out: AnalysedTerm[] = [];
  if (options.compounds !== false) {
    for (const t of compoundTerms(text, query, known)) {
      if (seen.has(t.term) || out.length >= PER_QUESTION) continue;
      seen.add(t.term);
      out.push(t);
    }
  }
  // A spelled-out name brings its acronym ("California Consumer Privacy Act" → CCPA).
  const spelledText = ` ${words(text).join(" ")} `;
  for (const [acronym, spelled] of Object.entries(ACRONYMS)) {
    if (!spelledText.includes(` ${spelled} `)) continue;
    const term = stemOf(acronym);
    if (seen.has(term) || !known(term) || out.length >= PER_QUESTION) continue;
    seen.add(term);
    out.push({ term, word: spelled });
  }
  // The words behind the question's own terms only (so a long cell's words past its first
  // MAX_QUERY_TERMS terms bring nothing either).
  const asked = new Set(query.flatMap((t) => t.word.split(" ")));
  for (const word of new Set(words(text))) {
    if (word.length < 2 || STOP_WORDS.has(word) || !asked.has(word)) continue;
    let added = 0;
    for (const lemma of lemmas(word)) {
      for (const synonym of synonymsOf(lemma)) {
        if (added >= PER_WORD || out.length >= PER_QUESTION) break;
        for (const { term } of analyse(synonym)) {
          if (added >= PER_WORD || out.length >= PER_QUESTION) break;
          if (seen.has(term) || !known(term)) continue;
          seen.add(term);
          out.push({ term, word });
          added++;
        }
      }
    }
    if (out.length >= PER_QUESTION) break;
  }
  return out;
}
