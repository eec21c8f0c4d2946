/**
 * What makes text scores comparable across questions. A BM25 score grows with the question's
 * length and the rarity of its words, so a raw score means nothing on its own; the matcher
 * divides it by the question's self score: the score the same question would get against an
 * entry that said exactly the question in every indexed field, computed with the index's own
 * statistics (documents holding each term per field, average field lengths), the same field
 * boosts and the same BM25+ formula and parameters as minisearch (k 1.2, b 0.7, d 0.5), and
 * minisearch's multiplication by the number of query terms matched. Missing terms lower the
 * ratio twice (less BM25 mass, fewer terms matched), which is why match.ts takes its square root.
 */

/** One indexed entry: its id and each field's analysed terms joined by spaces. */
export interface Entry {
  id: string;
  question: string;
  answer: string;
  category: string;
}

export interface TextIndex {
  /** The score of `terms` (distinct) against itself as an entry (> 0 for any term). */
  selfScore(terms: string[]): number;
  /** Whether some entry holds `term` in some field. */
  has(term: string): boolean;
  /** How telling `term` is among the entries' questions: its inverse document frequency there. */
  weight(term: string): number;
}

/** minisearch's default BM25+ parameters, which the index uses. */
const K = 1.2;
const B = 0.7;
const D = 0.5;

/** Gathers the statistics of a normaliser one entry at a time (so a caller may pause between). */
export interface NormaliserBuilder {
  add(entry: Entry): void;
  done(): TextIndex;
}

/** A normaliser built entry by entry: `add` each entry, then `done`. */
export function normaliserBuilder<F extends keyof Omit<Entry, "id">>(
  fields: readonly F[],
  boost: Record<F, number>,
): NormaliserBuilder {
  let count = 0;
  const frequency = new Map<F, Map<string, number>>(fields.map((field) => [field, new Map()]));
  const totals = new Map<F, number>(fields.map((field) => [field, 0]));
  return {
    add(entry) {
      count++;
      for (const field of fields) {
        const df = frequency.get(field)!;
        const unique = new Set(entry[field] === "" ? [] : entry[field].split(" "));
        totals.set(field, totals.get(field)! + unique.size);
        for (const term of unique) df.set(term, (df.get(term) ?? 0) + 1);
      }
    },
    done() {
      const average = new Map<F, number>(
        fields.map((field) => [field, count ? totals.get(field)! / count : 0]),
      );
      return selfScorer(count, fields, boost, frequency, average);
    },
  };
}

/** The self-score computer of a set of entries, for the given fields and boosts. */
export function normaliser<F extends keyof Omit<Entry, "id">>(
  entries: Entry[],
  fields: readonly F[],
  boost: Record<F, number>,
): TextIndex {
  const builder = normaliserBuilder(fields, boost);
  for (const entry of entries) builder.add(entry);
  return builder.done();
}

function selfScorer<F extends keyof Omit<Entry, "id">>(
  count: number,
  fields: readonly F[],
  boost: Record<F, number>,
  frequency: Map<F, Map<string, number>>,
  average: Map<F, number>,
): TextIndex {
  return {
    selfScore(terms) {
      const length = terms.length;
      let sum = 0;
      for (const field of fields) {
        const avg = average.get(field) || 1;
        const df = frequency.get(field)!;
        for (const term of terms) {
          const matching = df.get(term) ?? 0;
          const idf = Math.log(1 + (count - matching + 0.5) / (matching + 0.5));
          sum += boost[field] * idf * (D + (K + 1) / (1 + K * (1 - B + B * length / avg)));
        }
      }
      return sum * length;
    },
    has(term) {
      return fields.some((field) => frequency.get(field)!.has(term));
    },
    weight(term) {
      const matching = frequency.get(fields[0])!.get(term) ?? 0;
      return Math.log(1 + (count - matching + 0.5) / (matching + 0.5));
    },
  };
}
