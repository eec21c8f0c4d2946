/**
 * Questionnaire ids as the matcher compares them. Buyers write the same id in several ways
 * ("IAM-02.1", "iam-02.1", "IAM 02.1", "A&A-1.1" for "A&A-01.1"); two forms are compared at
 * two strengths:
 * - the written form: upper case, white space removed;
 * - the loose form: the runs of letters and of digits, digits without leading zeros, joined by
 *   "|" ("A&A-01.1" → "A|A|1|1").
 * A written-form match always wins; a loose-form match counts only when every id of the
 * knowledge base with that loose form is written the same way (otherwise it is ambiguous which
 * one the buyer meant, and the text match decides).
 */

/** An id made of digits and separators only ("1.1", "12") is every buyer's row numbering. */
const NUMBERING_ONLY = /^[\d\s.\-_/]*$/;

/**
 * A questionnaire id at the start of a question's text: letters (with "&"), a digit group and
 * at least one more ("A&A-01.1 …", "IAM-02.1: …", "A.1.2 …", "SIG-A.1 …"), then a separator.
 */
const LEADING_ID =
  /^\s*\(?([A-Za-z][A-Za-z&]{0,9}(?:[-.\s]?[A-Za-z]{1,4})?[-.\s]?\d{1,3}(?:[.\-]\d{1,3}){1,3})\)?(?:[\s:.)\]–—-]+|$)/;

/** The written form: upper case without white space. */
export function writtenId(id: string): string {
  return id.normalize("NFKC").toUpperCase().replace(/\s+/g, "");
}

/** The loose form: letter and digit runs, digits without leading zeros, joined by "|". */
export function looseId(id: string): string {
  const runs = writtenId(id).match(/[A-Z]+|\d+/g) ?? [];
  return runs.map((run) => /^\d/.test(run) ? String(BigInt(run)) : run).join("|");
}

/** Whether `id` can be matched by id at all (not empty, not a bare row number). */
export function isMatchableId(id: string): boolean {
  return looseId(id) !== "" && !NUMBERING_ONLY.test(id);
}

/** The id written at the start of a question's text, if any, and the text after it. */
export function leadingId(text: string): { id: string; rest: string } | null {
  const match = LEADING_ID.exec(text.slice(0, 80));
  if (!match) return null;
  return { id: match[1].trim(), rest: text.slice(match[0].length) };
}
