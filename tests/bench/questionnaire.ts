/**
 * Questionnaire matching, measured: precision and recall of the accepted suggestions (`best`,
 * a score at or above the threshold) on the labelled set at the default threshold, for all
 * questions, those asked by id, those in the buyer's own words, and the held-out half; then
 * the time to match 400 questions against 2,000 answers, as a ratio to the same 400 questions
 * against the 10-answer base measured in the same run (index building timed apart).
 */
import { createMatcher, DEFAULT_MATCH_THRESHOLD } from "../../src/questionnaire/match.ts";
import type { KnowledgeBase, MatchResult, Question } from "../../src/questionnaire/types.ts";
import { knowledgeBase } from "../fixtures/questionnaires/match_kb.ts";
import { paddedKnowledgeBase } from "../fixtures/questionnaires/match_distractors.ts";
import { median } from "./_harness.ts";

export interface Labelled {
  key: string;
  kind: "id" | "paraphrase" | "none";
  id: string | null;
  text: string;
  /** Acceptable answer ids; empty: nothing in the knowledge base answers it. */
  expect: string[];
  split: "tune" | "held";
}

/** The labelled set, each question in the tuning or the held-out split (alternately per kind). */
export async function labelledSet(): Promise<Labelled[]> {
  const file = JSON.parse(
    await Deno.readTextFile(
      new URL("../fixtures/questionnaires/labelled.json", import.meta.url),
    ),
  ) as { questions: Omit<Labelled, "split">[] };
  const seen: Record<string, number> = {};
  return file.questions.map((q) => {
    const n = seen[q.kind] = (seen[q.kind] ?? -1) + 1;
    return { ...q, split: n % 2 === 0 ? "tune" : "held" };
  });
}

export interface Quality {
  questions: number;
  accepted: number;
  correct: number;
  /** Questions the knowledge base answers. */
  answerable: number;
  precision: number;
  recall: number;
}

/** Precision and recall of the accepted suggestions of `results` against the labels. */
export function quality(set: Labelled[], results: Map<string, MatchResult>): Quality {
  let accepted = 0;
  let correct = 0;
  let answerable = 0;
  for (const q of set) {
    if (q.expect.length > 0) answerable++;
    const best = results.get(q.key)?.best;
    if (!best) continue;
    accepted++;
    if (best.source.kind === "answer" && q.expect.includes(best.source.answerId)) correct++;
  }
  return {
    questions: set.length,
    accepted,
    correct,
    answerable,
    precision: accepted ? correct / accepted : 1,
    recall: answerable ? correct / answerable : 1,
  };
}

/** The labelled set matched against the evaluation knowledge base. */
export function matchLabelled(
  set: Labelled[],
  threshold = DEFAULT_MATCH_THRESHOLD,
  kb: KnowledgeBase = knowledgeBase(),
): Map<string, MatchResult> {
  const questions: Question[] = set.map((q) => ({ key: q.key, id: q.id, text: q.text }));
  const results = createMatcher(kb, { threshold }).match(questions);
  return new Map(results.map((r) => [r.key, r]));
}

/**
 * The threshold chosen on the tuning split alone: the one of 0.01…0.99 that maximises F0.5 of
 * the accepted suggestions (precision weighed twice as much as recall: a wrong answer sent to
 * a buyer costs more than a blank one a person fills in), the lowest of equals.
 */
export function tuneThreshold(set: Labelled[]): { threshold: number; f: number } {
  const tuning = set.filter((q) => q.split === "tune");
  const results = matchLabelled(tuning, 0);
  let best = { threshold: 0.01, f: -1 };
  for (let i = 1; i <= 99; i++) {
    const threshold = i / 100;
    const accepted = new Map([...results].map(([key, r]) => [key, {
      ...r,
      best: r.suggestions[0] && r.suggestions[0].score >= threshold ? r.suggestions[0] : null,
    }]));
    const { precision, recall } = quality(tuning, accepted);
    const f = precision + recall === 0
      ? 0
      : 1.25 * precision * recall / (0.25 * precision + recall);
    if (f > best.f + 1e-12) best = { threshold, f };
  }
  return best;
}

/** 400 questions cycled from the labelled set, with distinct keys. */
function questions400(set: Labelled[]): Question[] {
  return Array.from({ length: 400 }, (_, i) => {
    const q = set[i % set.length];
    return { key: `b${i}`, id: q.id, text: q.text };
  });
}

function timeMatch(kb: KnowledgeBase, questions: Question[], rounds: number) {
  const build: number[] = [];
  const match: number[] = [];
  for (let i = 0; i < rounds; i++) {
    let start = performance.now();
    const matcher = createMatcher(kb);
    build.push(performance.now() - start);
    start = performance.now();
    matcher.match(questions);
    match.push(performance.now() - start);
  }
  return { build: median(build), match: median(match) };
}

const percent = (x: number) => `${(x * 100).toFixed(1)}%`;
const pr = (q: Quality) =>
  `P ${percent(q.precision)} R ${
    percent(q.recall)
  } (${q.correct}/${q.accepted} accepted, ${q.answerable} answerable)`;

export async function benchQuestionnaire(): Promise<{ line: string }> {
  const set = await labelledSet();
  const results = matchLabelled(set);
  const all = quality(set, results);
  const byId = quality(set.filter((q) => q.kind === "id"), results);
  const paraphrased = quality(set.filter((q) => q.kind === "paraphrase"), results);
  const held = quality(set.filter((q) => q.split === "held"), results);
  const heldParaphrased = quality(
    set.filter((q) => q.split === "held" && q.kind === "paraphrase"),
    results,
  );
  const none = set.filter((q) => q.kind === "none");
  const answerable = set.filter((q) => q.kind === "paraphrase");
  const offered =
    answerable.filter((q) =>
      results.get(q.key)?.suggestions.some((s) =>
        s.source.kind === "answer" && q.expect.includes(s.source.answerId)
      )
    ).length;
  const falseOnNone = none.filter((q) => results.get(q.key)?.best).length;

  const questions = questions400(set);
  const small = { ...knowledgeBase(), answers: knowledgeBase().answers.slice(0, 10) };
  const large = paddedKnowledgeBase(2000);
  timeMatch(small, questions, 1);
  timeMatch(large, questions, 1);
  const base = timeMatch(small, questions, 5);
  const big = timeMatch(large, questions, 5);
  return {
    line: [
      `questionnaire matching at threshold ${DEFAULT_MATCH_THRESHOLD}: all ${pr(all)};`,
      `by id ${pr(byId)}; paraphrased ${pr(paraphrased)}; held-out ${pr(held)},`,
      `of which paraphrased ${pr(heldParaphrased)};`,
      `not covered: ${falseOnNone}/${none.length} accepted wrongly;`,
      `paraphrased with the right answer among the suggestions: ${offered}/${answerable.length}.`,
      `400 questions × 2,000 answers: index ${big.build.toFixed(0)} ms, match ${
        big.match.toFixed(0)
      } ms (× 10 answers: ${base.match.toFixed(0)} ms; ratio ${
        (big.match / base.match).toFixed(1)
      })`,
    ].join(" "),
  };
}

if (import.meta.main) {
  if (Deno.args.includes("--tune")) {
    const { threshold, f } = tuneThreshold(await labelledSet());
    console.log(`threshold ${threshold} (F0.5 ${f.toFixed(3)} on the tuning split)`);
  } else {
    console.log((await benchQuestionnaire()).line);
  }
}
