/**
 * The thread that runs public questionnaire matching (src/serve/questionnaire_match_thread.ts
 * starts it as a module Web Worker). A worker is an isolate of its own with its own heap: the
 * full-text search's garbage (minisearch allocates a result per document per query term, and
 * collecting it paused the service's isolate for 20–90 ms at a time) is collected here, without
 * pausing the isolate that answers other tenants' requests. Matching here runs in one piece:
 * nothing else waits on this thread.
 *
 * It keeps the matchers the service asked it to build, by knowledge-base key, at most
 * `maxChars` characters of answers in all (least recently used out), and the newest version of
 * an organization only. A match against a key it no longer keeps answers `missing`, and the
 * service builds it again. Texts are sent once per matcher: a suggestion carries the number of
 * its text, and the text itself goes with the first result that uses it.
 */
import { createMatcher, type Matcher } from "../questionnaire/match.ts";
import type { KnowledgeBase, MatchResult, Question, Suggestion } from "../questionnaire/types.ts";

/** A suggestion as sent: its text replaced by the number of its text in the matcher's table. */
export type WireSuggestion = Omit<Suggestion, "text"> & { text: number };
export interface WireResult {
  key: string;
  suggestions: WireSuggestion[];
  best: WireSuggestion | null;
}

/** What the service sends. */
export type ToMatchWorker =
  /** Answers of the knowledge base `key` sent ahead of its build, a piece at a time. */
  | { op: "part"; key: string; answers: KnowledgeBase["answers"] }
  | {
    op: "build";
    id: number;
    key: string;
    organizationId: string;
    version: string;
    /** The knowledge base; its answers follow those sent before in parts. */
    kb: KnowledgeBase;
    /** Characters of the knowledge base's answers (what `maxChars` counts). */
    chars: number;
    maxChars: number;
  }
  | { op: "match"; id: number; key: string; questions: Question[] };

/** What the worker answers, by the request's id. */
export type FromMatchWorker =
  | { id: number; ok: true; results?: WireResult[]; texts?: [number, string][] }
  | { id: number; ok: false; missing: boolean; message: string };

interface Kept {
  organizationId: string;
  version: string;
  matcher: Matcher;
  chars: number;
  /** Text → its number, for the texts already sent with this matcher's results. */
  texts: Map<string, number>;
}

const kept = new Map<string, Kept>();
/** Answers received in parts, by the key of the build they belong to. */
const parts = new Map<string, KnowledgeBase["answers"]>();

function keptChars(): number {
  let sum = 0;
  for (const entry of kept.values()) sum += entry.chars;
  return sum;
}

function build(message: Extract<ToMatchWorker, { op: "build" }>): void {
  const before = parts.get(message.key) ?? [];
  parts.delete(message.key);
  const kb = { ...message.kb, answers: [...before, ...message.kb.answers] };
  for (const [key, entry] of kept) {
    if (entry.organizationId === message.organizationId && entry.version <= message.version) {
      kept.delete(key);
    }
  }
  const entry: Kept = {
    organizationId: message.organizationId,
    version: message.version,
    matcher: createMatcher(kb),
    chars: message.chars,
    texts: new Map(),
  };
  kept.set(message.key, entry);
  for (const key of kept.keys()) {
    if (keptChars() <= message.maxChars || key === message.key) break;
    kept.delete(key);
  }
}

function match(
  entry: Kept,
  questions: Question[],
): { results: WireResult[]; texts: [number, string][] } {
  const fresh: [number, string][] = [];
  const wire = new Map<Suggestion, WireSuggestion>();
  const numbered = (suggestion: Suggestion): WireSuggestion => {
    const done = wire.get(suggestion);
    if (done) return done;
    let number = entry.texts.get(suggestion.text);
    if (number === undefined) {
      number = entry.texts.size;
      entry.texts.set(suggestion.text, number);
      fresh.push([number, suggestion.text]);
    }
    const sent = { ...suggestion, text: number };
    wire.set(suggestion, sent);
    return sent;
  };
  const results = entry.matcher.match(questions).map((result: MatchResult) => ({
    key: result.key,
    suggestions: result.suggestions.map(numbered),
    best: result.best ? numbered(result.best) : null,
  }));
  return { results, texts: fresh };
}

const scope = self as unknown as {
  onmessage: ((event: MessageEvent<ToMatchWorker>) => void) | null;
  postMessage(message: FromMatchWorker): void;
};

scope.onmessage = (event) => {
  const message = event.data;
  if (message.op === "part") {
    const list = parts.get(message.key) ?? [];
    for (const answer of message.answers) list.push(answer);
    parts.set(message.key, list);
    return;
  }
  try {
    if (message.op === "build") {
      build(message);
      scope.postMessage({ id: message.id, ok: true });
      return;
    }
    const entry = kept.get(message.key);
    if (!entry) {
      scope.postMessage({ id: message.id, ok: false, missing: true, message: "not kept" });
      return;
    }
    // Used now: last out.
    kept.delete(message.key);
    kept.set(message.key, entry);
    scope.postMessage({ id: message.id, ok: true, ...match(entry, message.questions) });
  } catch (error) {
    scope.postMessage({
      id: message.id,
      ok: false,
      missing: false,
      message: error instanceof Error ? error.message : String(error),
    });
  }
};
