/**
 * A buyer's own questions matched against an organization's public knowledge base (the body of
 * POST /public/trust/{orgSlug}/questionnaire-answers and of the MCP tool answer_questionnaire):
 * public answers with their text (as safe Markdown) and citations; restricted answers matched by
 * their question and questionnaire ids only, and shown by question, without text or citations,
 * marked restricted with the access request form's address, never a question's best nor counted
 * as answered (a question only they reach has status "restricted");
 * controls only of public projects' latest published versions. No sign-in, so the work one
 * anonymous request may cause is bounded (docs/bounded-work.md, "Public questionnaire
 * matching"). An outside review measured 9.6 s and 13.9 MB for 400 questions against 2,000
 * answers of 9 KB, and two such callers held another tenant's /health at 9.4 s (p50).
 *
 * - Rate limits: PUBLIC_MATCHING_RATE per client address (src/http/client_ip.ts) and per
 *   organization, in fixed windows, counted before any work; beyond, 429 with Retry-After.
 * - A cache per knowledge-base version: the version is the versionstamp of the organization's
 *   `*` generation, which every change of its public data moves in the same commit (answers,
 *   documents and the NDA, certifications, projects, publications, controls and criteria:
 *   src/store/edge_pages.ts), read BEFORE the data, so what is kept under a version is never
 *   older than it; an achieved certification's expiry (which changes the status by itself)
 *   ends what was kept at that moment. The matcher (its minisearch index) is kept per version,
 *   and each body per version and question list, both least recently used out by size.
 * - The body fits a byte budget: texts cut at a word beyond MAX_PUBLIC_MATCH_TEXT characters,
 *   then, when the whole does not fit MAX_PUBLIC_MATCHES_BYTES, previews for the suggestions
 *   after the first, then questions omitted (src/serve/questionnaire_bounds.ts).
 * - CPU work off this isolate, or that yields: the matcher is built and matches on a Web Worker
 *   of its own (src/serve/questionnaire_match_thread.ts), so neither the search nor collecting
 *   its garbage pauses the isolate that answers other tenants; where no worker can run, in
 *   slices of about PUBLIC_SLICE_MS with the event loop served between them (each question a term at
 *   a time). Results are shown and sized in slices here, and the body is written as a stream a
 *   few results at a time (publicMatchesJson); one matching runs at a time per instance
 *   (PUBLIC_MATCHING_WORK), a few wait, and beyond that the answer is 503 with Retry-After.
 */
import type { Config } from "../config.ts";
import { notFound, rateLimited, unavailable } from "../domain/errors.ts";
import {
  MAX_PUBLIC_MATCH_TEXT,
  MAX_PUBLIC_MATCHES_BYTES,
  PUBLIC_MATCH_PREVIEW,
  type PublicQuestionnaireMatches,
} from "../domain/questionnaires.ts";
import type { Organization } from "../domain/workspace.ts";
import { slicedPause } from "../questionnaire/match_pause.ts";
import { sha256HexSync } from "../lib/hash.ts";
import { createLimiter, type LimiterOptions } from "../lib/limiter.ts";
import { loadMarkdown } from "../lib/load_markdown.ts";
import { trustCenterUrl } from "../publish/urls.ts";
import { CENTER_SCOPE, generationKey } from "../store/edge_pages.ts";
import { currentNda } from "../store/documents.ts";
import { getOrganizationBySlug } from "../store/organizations.ts";
import { answersAccessUrl } from "./answers.ts";
import {
  type BudgetChoice,
  createByteLru,
  createRateWindows,
  fitToBudget,
  jsonBytes,
} from "./questionnaire_bounds.ts";
import { loadEngines } from "./questionnaire_engines.ts";
import { buildKbMatcher, type MatchThread } from "./questionnaire_match_thread.ts";
import { assembleKnowledgeBase } from "./questionnaire_kb.ts";
import {
  type KeptKb,
  PUBLIC_SLICE_MS,
  publicKnowledgeBase,
  resultChoice,
} from "./questionnaire_public_show.ts";
import type { PublicReads } from "./public_read.ts";

/** Requests per client address and per organization in each window (cache hits count too). */
export const PUBLIC_MATCHING_RATE = { perClient: 10, perOrganization: 30, windowMs: 60_000 };
/** Matchings computed at once per instance, waiting, and the longest wait (then 503). */
export const PUBLIC_MATCHING_WORK: LimiterOptions = {
  concurrency: 1,
  maxWaiting: 4,
  maxWaitMs: 20_000,
};
/** Bodies kept (bytes of their JSON) and knowledge bases kept (characters of their text). */
const KEPT_BODY_BYTES = 32 * 1024 * 1024;
const KEPT_KB_CHARS = 40 * 1024 * 1024;
/** Client addresses and organizations tracked at once (the oldest window goes beyond). */
const MAX_TRACKED = 10_000;
/** Retry-After when the instance's matching queue is full. */
const BUSY_RETRY_SECONDS = 5;

/** A body as kept for one version and question list. */
interface KeptBody {
  body: PublicQuestionnaireMatches;
  /** UTF-8 bytes of its JSON text (counted from its results' sizes, not by writing it again). */
  bytes: number;
  changesAt: number | null;
}

/** What is kept, with the organization and version it belongs to. */
interface Versioned<T> {
  organizationId: string;
  version: string;
  value: T;
}

const clients = createRateWindows({
  limit: PUBLIC_MATCHING_RATE.perClient,
  windowMs: PUBLIC_MATCHING_RATE.windowMs,
  maxKeys: MAX_TRACKED,
});
const organizations = createRateWindows({
  limit: PUBLIC_MATCHING_RATE.perOrganization,
  windowMs: PUBLIC_MATCHING_RATE.windowMs,
  maxKeys: MAX_TRACKED,
});
const work = createLimiter(PUBLIC_MATCHING_WORK);
const keptKbs = createByteLru<Versioned<Promise<KeptKb>>>(KEPT_KB_CHARS);
const keptBodies = createByteLru<Versioned<KeptBody>>(KEPT_BODY_BYTES);
/** The newest version seen of each organization (what is kept of older ones is dropped). */
const newest = new Map<string, string>();
/** Computations under way, by body key: a second identical request waits for the first. */
const underWay = new Map<string, Promise<KeptBody>>();
const counts = { matchings: 0, indexes: 0 };
/** Where the last matching ran (src/serve/questionnaire_match_thread.ts). */
let lastThread: MatchThread | null = null;

/**
 * How many matchings and matcher builds this instance did, and where the last matching ran:
 * for tests and benchmarks.
 */
export function publicMatchingStats(): {
  matchings: number;
  indexes: number;
  keptBodies: number;
  keptBodyBytes: number;
  thread: MatchThread | null;
} {
  const bodies = keptBodies.stats();
  return {
    ...counts,
    keptBodies: bodies.entries,
    keptBodyBytes: bodies.bytes,
    thread: lastThread,
  };
}

/** Drops what is kept of the organization's versions older than `version`. */
function forgetOlder(organizationId: string, version: string): void {
  const seen = newest.get(organizationId);
  if (seen !== undefined && seen >= version) return;
  if (newest.size >= MAX_TRACKED) newest.delete(newest.keys().next().value!);
  newest.set(organizationId, version);
  const older = (kept: Versioned<unknown>) =>
    kept.organizationId === organizationId && kept.version < version;
  keptKbs.sweep(older);
  keptBodies.sweep(older);
}

/** The matcher of the organization's knowledge base of `version`: kept, or built once. */
async function keptKnowledgeBase(
  reads: PublicReads & { config: Config },
  organization: Organization,
  options: { key: string; version: string; now: Date },
): Promise<KeptKb> {
  const { key, now } = options;
  const hit = keptKbs.get(key);
  if (hit) {
    const kb = await hit.value;
    if (kb.changesAt === null || kb.changesAt > now.getTime()) return kb;
    if (keptKbs.get(key) === hit) keptKbs.delete(key);
  }
  const promise = (async () => {
    // The NDA is public data of the organization: its change moves the version too.
    const [engines, assembled, nda] = await Promise.all([
      loadEngines(),
      assembleKnowledgeBase(reads, organization, now),
      currentNda(reads.kv, organization.id),
    ]);
    counts.indexes++;
    const kb = publicKnowledgeBase(assembled.kb);
    const chars = kb.answers.reduce((sum, a) => sum + a.answer.length + a.question.length, 0);
    const kept: KeptKb = {
      // On the matching worker when there is one: this isolate keeps no copy of the texts.
      matcher: await buildKbMatcher(kb, {
        key,
        organizationId: organization.id,
        version: options.version,
        chars,
        maxChars: KEPT_KB_CHARS,
        sliceMs: PUBLIC_SLICE_MS,
      }),
      threshold: engines.threshold,
      restricted: new Set(
        assembled.kb.answers.filter((a) => a.visibility !== "public").map((a) => a.id),
      ),
      requestUrl: nda ? answersAccessUrl(reads.config, organization.slug) : null,
      shownText: new Map(),
      changesAt: assembled.changesAt,
    };
    return { kept, chars };
  })();
  const entry = {
    organizationId: organization.id,
    version: options.version,
    value: promise.then(({ kept }) => kept),
  };
  keptKbs.set(key, entry, 0);
  // Sized by its text once built; a failed build is not kept.
  promise.then(({ chars }) => {
    if (keptKbs.get(key) === entry) keptKbs.set(key, entry, chars);
  }, () => {
    if (keptKbs.get(key) === entry) keptKbs.delete(key);
  });
  return await entry.value;
}

/**
 * The public matches of `questions`: 404 for an unknown organization, 429 over a rate limit,
 * 503 while the instance's matching is full. `client` is the caller's address as the service
 * identifies it (src/http/client_ip.ts).
 */
export async function publicQuestionnaireMatches(
  reads: PublicReads & { config: Config },
  orgSlug: string,
  options: { questions: { text: string; id?: string }[]; now: Date; client?: string },
): Promise<PublicQuestionnaireMatches> {
  const at = options.now.getTime();
  const { perClient, perOrganization, windowMs } = PUBLIC_MATCHING_RATE;
  const minute = windowMs / 1000;
  const clientWait = clients.take(options.client ?? "unknown", at);
  if (clientWait > 0) {
    throw rateLimited(
      `At most ${perClient} questionnaire matchings per client in ${minute} s; try again in ${
        Math.ceil(clientWait / 1000)
      } s`,
      clientWait / 1000,
    );
  }
  const organization = await getOrganizationBySlug(reads.kv, orgSlug);
  if (!organization) throw notFound("No public trust center by that name");
  const organizationWait = organizations.take(organization.id, at);
  if (organizationWait > 0) {
    throw rateLimited(
      `At most ${perOrganization} questionnaire matchings per organization in ${minute} s; try again in ${
        Math.ceil(organizationWait / 1000)
      } s`,
      organizationWait / 1000,
    );
  }
  // The version is read before the data: what is kept under it is never older than it.
  const version = (await reads.kv.get(generationKey(organization.id, CENTER_SCOPE))).versionstamp ??
    "";
  forgetOlder(organization.id, version);
  const kbKey = JSON.stringify([reads.config.baseUrl, organization.id, version]);
  const questions = options.questions.map((q) => ({ text: q.text, id: q.id ?? null }));
  const bodyKey = sha256HexSync(
    JSON.stringify([kbKey, organization.name, organization.slug, questions]),
  );
  const live = (kept: { changesAt: number | null }) =>
    kept.changesAt === null || kept.changesAt > at;
  const hit = keptBodies.get(bodyKey);
  if (hit && live(hit.value)) return hit.value.body;
  let pending = underWay.get(bodyKey);
  if (!pending) {
    pending = (async () => {
      const outcome = await work.run(() =>
        matchNow(reads, organization, { kbKey, version, questions, now: options.now })
      );
      if (!outcome.ran) {
        throw unavailable(
          `Too many questionnaire matchings at once on this instance; try again in ${BUSY_RETRY_SECONDS} s`,
          BUSY_RETRY_SECONDS,
        );
      }
      return outcome.value;
    })();
    underWay.set(bodyKey, pending);
    pending.then((kept) => {
      if (!live(kept) || (newest.get(organization.id) ?? "") > version) return;
      const entry = { organizationId: organization.id, version, value: kept };
      keptBodies.set(bodyKey, entry, kept.bytes);
    }, () => {}).finally(() => underWay.delete(bodyKey));
  }
  return (await pending).body;
}

/** Matches the questions now (inside the instance's matching limit). */
async function matchNow(
  reads: PublicReads & { config: Config },
  organization: Organization,
  options: {
    kbKey: string;
    version: string;
    questions: { text: string; id: string | null }[];
    now: Date;
  },
): Promise<KeptBody> {
  const kbOptions = { key: options.kbKey, version: options.version, now: options.now };
  const asked = options.questions.map((q, i) => ({ key: String(i), id: q.id, text: q.text }));
  const markdown = await loadMarkdown();
  let kb = await keptKnowledgeBase(reads, organization, kbOptions);
  counts.matchings++;
  let matches = await kb.matcher.match(asked);
  if (matches === null) {
    // The worker no longer keeps this matcher (restarted, or let it go for room): built again.
    keptKbs.delete(options.kbKey);
    kb = await keptKnowledgeBase(reads, organization, kbOptions);
    matches = await kb.matcher.match(asked);
    if (matches === null) {
      throw unavailable(
        `Questionnaire matching is restarting on this instance; try again in ${BUSY_RETRY_SECONDS} s`,
        BUSY_RETRY_SECONDS,
      );
    }
  }
  lastThread = kb.matcher.where;
  const pause = slicedPause(PUBLIC_SLICE_MS);
  const answersUrl = `${trustCenterUrl(reads.config, organization.slug)}/answers`;
  const context = (max: number) => ({
    neutralize: markdown.neutralizeMarkdown,
    answersUrl,
    max,
  });
  const full = context(MAX_PUBLIC_MATCH_TEXT);
  const preview = context(PUBLIC_MATCH_PREVIEW);
  type Result = PublicQuestionnaireMatches["results"][number];
  const choices: BudgetChoice<Result>[] = [];
  const sizes = new Map<Result, number>();
  for (const [index, match] of matches.entries()) {
    const choice = resultChoice(index, options.questions[index], match, kb, { full, preview });
    // Sized here, a question at a time, so no long stretch of work holds the event loop.
    for (const form of [choice.full, choice.lean, choice.none]) {
      sizes.set(form, jsonBytes({ ...form, question: "" }) + 1);
    }
    choices.push(choice);
    await pause();
  }
  const frame = {
    organization: { name: organization.name, slug: organization.slug },
    threshold: kb.threshold,
    results: [],
    answered: options.questions.length,
    restricted: options.questions.length,
    truncated: true,
    url: answersUrl,
  };
  // The questions repeated are the caller's own bytes: the budget is for everything else.
  const fitted = fitToBudget(
    choices,
    MAX_PUBLIC_MATCHES_BYTES - jsonBytes(frame),
    (result) => sizes.get(result)!,
  );
  const cut = fitted.results.some((r) =>
    r.omitted || r.suggestions.some((s) => s.truncated) || r.best?.truncated
  );
  const body: PublicQuestionnaireMatches = {
    organization: frame.organization,
    threshold: kb.threshold,
    results: fitted.results,
    answered: fitted.results.filter((r) => r.best !== null).length,
    restricted: fitted.results.filter((r) => r.status === "restricted").length,
    ...(cut ? { truncated: true } : {}),
    url: answersUrl,
  };
  // A result's size was counted with its question as "" (2 bytes) and a comma (1 byte).
  const bytes = fitted.results.reduce(
    (sum, result) => sum + sizes.get(result)! - 3 + jsonBytes(result.question),
    jsonBytes({ ...body, results: [] }) + Math.max(0, fitted.results.length - 1),
  );
  return { body, bytes, changesAt: kb.changesAt };
}

export { publicMatchesJson } from "./questionnaire_public_show.ts";
