/**
 * How public questionnaire matching shows what it found (src/serve/questionnaire_public.ts):
 * the knowledge base the public may match against (restricted answers without text or
 * citations), a suggestion as the public may see it (a restricted answer marked, with the access
 * request form's address; a long text cut at a word, with where to read it whole), and the
 * body's JSON written as a stream a few results at a time.
 */
import { type PublicQuestionnaireMatches } from "../domain/questionnaires.ts";
import type { KnowledgeBase, MatchResult, Suggestion } from "../questionnaire/types.ts";
import { slicedPause } from "../questionnaire/match_pause.ts";
import { type BudgetChoice, cutAtWord, jsonPieces } from "./questionnaire_bounds.ts";
import type { KbMatcher } from "./questionnaire_match_thread.ts";

/**
 * Milliseconds of work between two turns of the event loop (building the matcher, matching,
 * showing, writing the body): another tenant's read waits about this long behind it at most.
 */
export const PUBLIC_SLICE_MS = 10;
/** Characters of the body's JSON text written at a time (then a turn when the slice is used). */
const CHUNK_CHARS = 64 * 1024;
/** A knowledge base as kept for one version: its matcher and what showing a match needs. */
export interface KeptKb {
  matcher: KbMatcher;
  threshold: number;
  restricted: Set<string>;
  /** The access request form, or null while the organization takes no requests (no NDA). */
  requestUrl: string | null;
  /** Answers' and controls' texts as safe Markdown, by source key, made once. */
  shownText: Map<string, string>;
  /** When it ends by itself (epoch ms), or null. */
  changesAt: number | null;
}

/** The knowledge base with restricted answers' text and citations taken out. */
export function publicKnowledgeBase(kb: KnowledgeBase): KnowledgeBase {
  return {
    ...kb,
    answers: kb.answers.map((a) =>
      a.visibility === "public" ? a : { ...a, answer: "", citations: [] }
    ),
  };
}

const sourceKey = (s: Suggestion) =>
  s.source.kind === "answer"
    ? `a:${s.source.answerId}`
    : `c:${s.source.projectSlug}/${s.source.controlId}`;

export const isRestricted = (suggestion: Suggestion, kb: KeptKb) =>
  suggestion.source.kind === "answer" && kb.restricted.has(suggestion.source.answerId);

type Shown = PublicQuestionnaireMatches["results"][number]["suggestions"][number];

/** A suggestion as the public may see it, its text cut at `max` characters. */
export function shown(
  suggestion: Suggestion,
  kb: KeptKb,
  context: { neutralize: (markdown: string) => string; answersUrl: string; max: number },
): Shown {
  const source = suggestion.source;
  if (isRestricted(suggestion, kb)) {
    return {
      ...suggestion,
      text: "",
      citations: suggestion.citations.filter((c) => c.kind === "answer"),
      restricted: true,
      requestAccessUrl: kb.requestUrl,
    };
  }
  const key = sourceKey(suggestion);
  let safe = kb.shownText.get(key);
  if (safe === undefined) {
    safe = context.neutralize(suggestion.text);
    kb.shownText.set(key, safe);
  }
  const { text, cut } = cutAtWord(safe, context.max);
  if (!cut) return { ...suggestion, text: safe };
  const control = suggestion.citations.find((c) => c.kind === "control");
  const fullTextUrl = source.kind === "answer"
    ? `${context.answersUrl}#answer-${source.answerId}`
    : control?.kind === "control"
    ? control.url
    : context.answersUrl;
  return { ...suggestion, text, truncated: true, fullTextUrl };
}

type Result = PublicQuestionnaireMatches["results"][number];
type ShowContext = Parameters<typeof shown>[2];

/**
 * One question's result in the three forms the body's budget chooses from: whole, with
 * previews after the first suggestion, or omitted.
 */
export function resultChoice(
  index: number,
  question: { text: string; id: string | null },
  match: MatchResult,
  kb: KeptKb,
  contexts: { full: ShowContext; preview: ShowContext },
): BudgetChoice<Result> {
  const head = { index, id: question.id, question: question.text };
  // A restricted answer is never best: the best public suggestion reaching the threshold is,
  // and a question only restricted answers reach says so, with where to ask for them.
  const reaching = match.best ? match.suggestions.filter((s) => s.score >= kb.threshold) : [];
  const publicBest = reaching.find((s) => !isRestricted(s, kb)) ?? null;
  const best = publicBest ? shown(publicBest, kb, contexts.full) : null;
  const status = best
    ? "answered" as const
    : reaching.length > 0
    ? "restricted" as const
    : "unanswered" as const;
  const access = status === "restricted" ? { requestAccessUrl: kb.requestUrl } : {};
  return {
    full: {
      ...head,
      best,
      status,
      ...access,
      suggestions: match.suggestions.map((s) => shown(s, kb, contexts.full)),
    },
    lean: {
      ...head,
      best,
      status,
      ...access,
      suggestions: match.suggestions.map((s, i) =>
        shown(s, kb, i === 0 ? contexts.full : contexts.preview)
      ),
    },
    none: {
      ...head,
      best: null,
      status: "omitted" as const,
      suggestions: [],
      omitted: true,
    },
  };
}

/**
 * The body's JSON text (what `JSON.stringify(body)` gives) as a stream, written about
 * CHUNK_CHARS at a time with a turn of the event loop whenever a slice of work is used: a
 * body of 2 MiB written in one piece held the event loop for as long as its stringify took.
 */
export function publicMatchesJson(body: PublicQuestionnaireMatches): ReadableStream<Uint8Array> {
  const pieces = jsonPieces(body as unknown as Record<string, unknown>, "results");
  const encoder = new TextEncoder();
  const pause = slicedPause(PUBLIC_SLICE_MS);
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      await pause();
      let chunk = "";
      let next = pieces.next();
      for (; !next.done; next = pieces.next()) {
        chunk += next.value;
        if (chunk.length >= CHUNK_CHARS) break;
      }
      if (chunk !== "") controller.enqueue(encoder.encode(chunk));
      if (next.done) controller.close();
    },
    cancel() {
      pieces.return(undefined);
    },
  });
}
