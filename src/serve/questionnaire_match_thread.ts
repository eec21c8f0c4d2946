/**
 * Where public questionnaire matching runs (src/serve/questionnaire_public.ts): on a Web Worker
 * of its own (src/serve/questionnaire_match_worker.ts) when the runtime gives one, else here, in
 * time slices. On the worker, the search's garbage is collected in the worker's heap: the
 * service's isolate, which answers every tenant, neither runs the search nor pauses to collect
 * what it allocated (docs/bounded-work.md, "Public questionnaire matching").
 *
 * Deno Deploy runs standard Deno (2.5.0) with every permission, and a module worker is standard
 * Deno; still, where `Worker` is missing, cannot be started, or fails to load its module three
 * times, matching stays in this isolate (the yielding matcher, in slices of `sliceMs`), with the
 * same results.
 */
import type { KnowledgeBase, MatchResult, Question, Suggestion } from "../questionnaire/types.ts";
import type {
  FromMatchWorker,
  ToMatchWorker,
  WireSuggestion,
} from "./questionnaire_match_worker.ts";
import { loadEngines } from "./questionnaire_engines.ts";
import { slicedPause } from "../questionnaire/match_pause.ts";

/** The matcher of one knowledge base, wherever it runs. */
export interface KbMatcher {
  /** "worker" or "in-process". */
  where: MatchThread;
  /**
   * One result per question, in order; null when the worker no longer keeps this matcher (it
   * was restarted, or let it go for room): build it again.
   */
  match(questions: Question[]): Promise<MatchResult[] | null>;
}

export type MatchThread = "worker" | "in-process";

/**
 * Characters of answers sent to the worker in one message: copying a whole knowledge base of
 * 2,000 answers of 9 KB for the worker (structured clone) held this isolate for 90–180 ms.
 */
const PIECE_CHARS = 256 * 1024;
/** Starts (or failed starts) of the worker after which matching stays in this isolate. */
const MAX_WORKER_FAILURES = 3;

/**
 * A worker with nothing to do is ended after this long: a live worker keeps the process running
 * (Deno's workers have no `unref`), so a command or test that matched once would never exit.
 * The next request starts a new one.
 */
const IDLE_MS = 5_000;

interface Thread {
  worker: Worker;
  pending: Map<number, { resolve: (m: FromMatchWorker) => void; reject: (e: Error) => void }>;
  idle: ReturnType<typeof setTimeout> | null;
}

let thread: Thread | null = null;
let failures = 0;
let nextId = 1;

/** Which thread the next matcher is built on. */
export function matchThread(): MatchThread {
  return typeof Worker === "function" && failures < MAX_WORKER_FAILURES ? "worker" : "in-process";
}

/** The worker, started on first use; null when this runtime cannot start one. */
function currentThread(): Thread | null {
  if (thread) return thread;
  if (matchThread() !== "worker") return null;
  let worker: Worker;
  try {
    worker = new Worker(new URL("./questionnaire_match_worker.ts", import.meta.url), {
      type: "module",
    });
  } catch {
    failures = MAX_WORKER_FAILURES;
    return null;
  }
  const started: Thread = { worker, pending: new Map(), idle: null };
  const fail = (why: string) => {
    if (thread === started) thread = null;
    failures++;
    worker.terminate();
    for (const { reject } of started.pending.values()) reject(new Error(why));
    started.pending.clear();
  };
  worker.onmessage = (event: MessageEvent<FromMatchWorker>) => {
    const waiting = started.pending.get(event.data.id);
    if (!waiting) return;
    started.pending.delete(event.data.id);
    waiting.resolve(event.data);
    if (started.pending.size === 0) endWhenIdle(started);
  };
  worker.onerror = (event) => {
    event.preventDefault();
    fail(`questionnaire matching worker failed: ${event.message}`);
  };
  worker.onmessageerror = () => fail("questionnaire matching worker sent an unreadable message");
  thread = started;
  return started;
}

/** Ends the worker once it has had nothing to do for IDLE_MS (a new request cancels it). */
function endWhenIdle(on: Thread): void {
  if (on.idle !== null) clearTimeout(on.idle);
  on.idle = setTimeout(() => {
    on.idle = null;
    if (on.pending.size > 0) return;
    if (thread === on) thread = null;
    on.worker.terminate();
  }, IDLE_MS);
}

/** Cancels the worker's idle end: a build or a request is starting on it. */
function keepAwake(on: Thread): void {
  if (on.idle === null) return;
  clearTimeout(on.idle);
  on.idle = null;
}

function ask(
  on: Thread,
  message: Exclude<ToMatchWorker, { op: "part" }>,
): Promise<FromMatchWorker> {
  keepAwake(on);
  return new Promise((resolve, reject) => {
    on.pending.set(message.id, { resolve, reject });
    on.worker.postMessage(message);
  });
}

/** What a matcher is built for, and the bounds it is built within (see `buildKbMatcher`). */
interface MatcherOptions {
  key: string;
  organizationId: string;
  version: string;
  chars: number;
  maxChars: number;
  sliceMs: number;
}

/**
 * The matcher of `kb` (already without restricted answers' text): built on the worker, or here
 * when there is none. `key` names the knowledge base (organization and version); `chars` is its
 * size as the caller counts it, `maxChars` what the worker keeps in all.
 */
export async function buildKbMatcher(
  kb: KnowledgeBase,
  options: MatcherOptions,
): Promise<KbMatcher> {
  const on = currentThread();
  if (on) {
    try {
      return await workerMatcher(on, kb, options);
    } catch (error) {
      // An error of the matcher itself is the caller's; a worker that stopped while building is
      // counted, and the build tries a new one (at most MAX_WORKER_FAILURES) or runs here.
      if (thread === on) throw error;
      return await buildKbMatcher(kb, options);
    }
  }
  const engines = await loadEngines();
  const matcher = await engines.yieldingMatcher(kb, options.sliceMs);
  return {
    where: "in-process",
    match: (questions) => matcher.matchYielding(questions),
  };
}

async function workerMatcher(
  on: Thread,
  kb: KnowledgeBase,
  options: MatcherOptions,
): Promise<KbMatcher> {
  keepAwake(on);
  // The answers go in pieces, with the event loop served between them once a slice is used.
  const { sliceMs, ...build } = options;
  // Each build its own key on the worker, so a matcher never reads another build's texts.
  const key = `${options.key}#${nextId++}`;
  const pause = slicedPause(sliceMs);
  let piece: KnowledgeBase["answers"] = [];
  let size = 0;
  for (const answer of kb.answers) {
    piece.push(answer);
    size += answer.answer.length + answer.question.length;
    if (size < PIECE_CHARS) continue;
    on.worker.postMessage({ op: "part", key, answers: piece } as ToMatchWorker);
    piece = [];
    size = 0;
    await pause();
    if (thread !== on) throw new Error("questionnaire matching worker stopped");
  }
  const built = await ask(on, {
    op: "build",
    id: nextId++,
    kb: { ...kb, answers: piece },
    ...build,
    key,
  });
  if (!built.ok) throw new Error(built.message);
  /** The texts the worker sent with this matcher's results, by number. */
  const texts: string[] = [];
  return {
    where: "worker",
    async match(questions) {
      if (thread !== on) return null;
      let answer: FromMatchWorker;
      try {
        answer = await ask(on, { op: "match", id: nextId++, key, questions });
      } catch {
        return null; // the worker stopped: built again on a new one (or here)
      }
      if (!answer.ok) {
        if (answer.missing) return null;
        throw new Error(answer.message);
      }
      for (const [number, text] of answer.texts ?? []) texts[number] = text;
      // The same suggestion object may be both a result's best and its first suggestion.
      const shown = new Map<WireSuggestion, Suggestion>();
      const suggestion = (sent: WireSuggestion): Suggestion => {
        let done = shown.get(sent);
        if (!done) {
          done = { ...sent, text: texts[sent.text] };
          shown.set(sent, done);
        }
        return done;
      };
      return (answer.results ?? []).map((result) => ({
        key: result.key,
        suggestions: result.suggestions.map(suggestion),
        best: result.best ? suggestion(result.best) : null,
      }));
    },
  };
}
