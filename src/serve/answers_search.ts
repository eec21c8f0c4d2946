/**
 * The answer library's order and matching: reading order (by category, question and id, in
 * code-point order whatever the locale), a query's terms and how well an answer matches them.
 * Nothing here reads the store.
 */
import type { TrustAnswer } from "../domain/answers.ts";

/** Code-point order, the same on every instance whatever its locale. */
export const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Answers in reading order: by category, then question, then id. */
export function inAnswerOrder<T extends Pick<TrustAnswer, "category" | "question" | "id">>(
  answers: readonly T[],
): T[] {
  return [...answers].sort((a, b) =>
    byText(a.category.toLowerCase(), b.category.toLowerCase()) ||
    byText(a.question.toLowerCase(), b.question.toLowerCase()) || byText(a.id, b.id)
  );
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
