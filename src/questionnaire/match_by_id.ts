/**
 * Matching a question by its questionnaire id (docs/questionnaires.md, "Matching"): the table of
 * the ids written on answers and on their learned phrasings, and the answers a question's id
 * (its id column, or an id at the start of its text) names, at score 1 (`by: "id"`).
 */
import type { KbAnswer, Question, Suggestion, SuggestionCitation } from "./types.ts";
import { compareCodePoints } from "../lib/order.ts";
import { isMatchableId, leadingId, looseId, writtenId } from "./match_ids.ts";
import type { SortedKb } from "./match_kb.ts";
import { aliasesOf, type Techniques } from "./match_index.ts";

export interface IdTable {
  /** Written form → answers carrying it (with the ref's own spelling). */
  written: Map<string, { answer: KbAnswer; id: string }[]>;
  /** Loose form → the distinct written forms of the knowledge base that have it. */
  loose: Map<string, Set<string>>;
  citations: (answer: KbAnswer) => SuggestionCitation[];
}

export function idTable(kb: SortedKb, techniques: Techniques): IdTable {
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
export function matchById(question: Question, table: IdTable): Suggestion[] {
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
