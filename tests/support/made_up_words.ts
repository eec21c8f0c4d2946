/**
 * Text for matching loads: a fixed pseudo-random sequence, 3,000 made-up words and a few real
 * ones (so an index has a realistic vocabulary), and questions made of them. The same each run.
 */

/** A fixed pseudo-random sequence (the same each run). */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const SYLLABLES = ["ka", "ro", "mi", "tel", "sun", "dra", "vo", "pen", "lis", "qua", "ber", "zo"];
/** 3,000 made-up words and a few real ones, so the index has a realistic vocabulary. */
const WORDS = [
  ..."encryption access backup audit logging incident vendor retention password network".split(
    " ",
  ),
  ...Array.from({ length: 3000 }, (_, i) => {
    const next = random(i + 1);
    return Array.from(
      { length: 2 + Math.floor(next() * 3) },
      () => SYLLABLES[Math.floor(next() * SYLLABLES.length)],
    ).join("") + String(i % 97);
  }),
];

/** `count` words drawn by `next`. */
export function words(next: () => number, count: number): string {
  return Array.from({ length: count }, () => WORDS[Math.floor(next() * WORDS.length)]).join(" ");
}

/** `count` questions of about ten words each, from `seed`. */
export function questions(seed: number, count: number): { text: string }[] {
  const next = random(seed);
  return Array.from({ length: count }, () => ({ text: `${words(next, 10)}?` }));
}

/** The value at fraction `p` (0–1) of the sorted values. */
export const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
};
