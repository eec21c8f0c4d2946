/**
 * The questionnaire exports as requests get them when no stored copy answers (before a render,
 * and every export with a query): each is computed at most once per data version of the
 * organization and per query, by one computation however many requests ask at once, within a
 * budget of rows and bytes checked before anything is written, and a few at a time per
 * instance. An outside review measured 0.7 s and 100 MB per workbook of 500 long answers,
 * every request computing its own: eight at once held `/health` for 4.6 s.
 *
 * The data version is the versionstamp of the organization's `*` generation, which every
 * change of what its public pages show moves in its own commit (src/store/edge_pages.ts):
 * answers, citations' documents, certifications, projects and their publications. It is read
 * before the data, so what is kept under a version is never older than that version.
 */
import { MAX_EXPORT_BYTES, MAX_EXPORT_ROWS, type Questionnaire } from "../domain/answers.ts";
import { AppError, notFound, unavailable } from "../domain/errors.ts";
import type { Config } from "../config.ts";
import { sha256HexSync } from "../lib/hash.ts";
import { createLimiter, type LimiterOptions } from "../lib/limiter.ts";
import { CENTER_SCOPE, generationKey } from "../store/edge_pages.ts";
import { getOrganizationBySlug } from "../store/organizations.ts";
import { exportedAnswers, type ExportRow, exportRows } from "./answers.ts";
import { answersCsv, writeAnswersXlsx } from "./answers_export.ts";

/** An export as served: its bytes and their ETag. */
export interface AnswerExport {
  bytes: Uint8Array<ArrayBuffer>;
  etag: string;
  /** The organization's slug, for the file name. */
  slug: string;
}

/** What a request asks for. */
export interface ExportRequest {
  format: "csv" | "xlsx";
  questionnaire?: Questionnaire;
  /** Question ids the buyer named (of `questionnaire`), checked. */
  wanted: readonly string[];
}

/** Exports computed at once per instance, waiting, and the longest wait (then 503). */
export const EXPORT_LIMITS: LimiterOptions = { concurrency: 1, maxWaiting: 8, maxWaitMs: 30_000 };
/** Exports kept in memory, and their bytes at most (least recently asked for go first). */
const KEPT_EXPORTS = 64;
const KEPT_BYTES = 32 * 1024 * 1024;

interface Kept {
  organizationId: string;
  version: string;
  promise: Promise<AnswerExport>;
  bytes: number;
}

const kept = new Map<string, Kept>();
let keptBytes = 0;
let computations = 0;
const limiter = createLimiter(EXPORT_LIMITS);

/** How many exports this instance has computed, and what it keeps: for tests and benchmarks. */
export function answerExportStats(): { computations: number; kept: number; keptBytes: number } {
  return { computations, kept: kept.size, keptBytes };
}

/**
 * The export `request` asks of the organization `orgSlug`: the kept one of the current data
 * version, the one being computed, or a new computation. 404 for an unknown organization,
 * 413 over the budget (kept too: the same data is refused the same way), 503 when the
 * instance's exports are full.
 */
export async function answerExport(
  kv: Deno.Kv,
  orgSlug: string,
  options: { config: Config } & ExportRequest,
): Promise<AnswerExport> {
  const org = await getOrganizationBySlug(kv, orgSlug);
  if (!org) throw notFound("No public trust center by that name");
  const version = (await kv.get(generationKey(org.id, CENTER_SCOPE))).versionstamp ?? "";
  const { format, questionnaire, wanted } = options;
  const key = sha256HexSync(
    JSON.stringify([org.id, version, format, questionnaire ?? "", wanted]),
  );
  const hit = kept.get(key);
  if (hit) {
    kept.delete(key);
    kept.set(key, hit);
    return await hit.promise;
  }
  for (const [other, entry] of kept) {
    if (entry.organizationId === org.id && entry.version !== version) drop(other);
  }
  const entry: Kept = {
    organizationId: org.id,
    version,
    bytes: 0,
    promise: compute(async () => {
      const list = await exportedAnswers(kv, org, options.config);
      const rows = exportRows(list, {
        questionnaire,
        wanted,
        answerUrl: (id) => `${list.url}#answer-${id}`,
      });
      checkBudget(rows);
      const bytes = format === "csv" ? answersCsv(rows) : await writeAnswersXlsx(rows, {
        organization: list.organization.name,
        source: list.url,
        lastChanged: list.answers.map((a) => a.updatedAt).sort().at(-1) ?? null,
      });
      return { bytes, etag: `"${sha256HexSync(bytes)}"`, slug: org.slug };
    }),
  };
  kept.set(key, entry);
  entry.promise.then((result) => {
    if (kept.get(key) !== entry) return;
    entry.bytes = result.bytes.byteLength;
    keptBytes += entry.bytes;
    evict();
  }, (error) => {
    // A refusal over the budget holds for this data version; anything else is tried again.
    if (!(error instanceof AppError && error.code === "payload_too_large")) drop(key, entry);
  });
  return await entry.promise;
}

/** Runs `work` under the instance's export limiter; 503 when it is full or the wait too long. */
async function compute(work: () => Promise<AnswerExport>): Promise<AnswerExport> {
  const outcome = await limiter.run(() => {
    computations++;
    return work();
  });
  if (outcome.ran) return outcome.value;
  throw unavailable("Questionnaire exports are busy on this instance; retry in a few seconds", 5);
}

/** 413 when `rows` are over the budget, before anything is written. */
function checkBudget(rows: readonly ExportRow[]): void {
  const narrow = "ask for one questionnaire (questionnaire=) or for some question ids (ids=)";
  if (rows.length > MAX_EXPORT_ROWS) {
    throw new AppError(
      "payload_too_large",
      `An export may have at most ${MAX_EXPORT_ROWS} rows; this one would have ${rows.length}: ${narrow}`,
    );
  }
  let bytes = 0;
  for (const row of rows) {
    for (const value of Object.values(row)) bytes += utf8Length(value);
  }
  if (bytes > MAX_EXPORT_BYTES) {
    throw new AppError(
      "payload_too_large",
      `An export may hold at most ${mib(MAX_EXPORT_BYTES)} of text; this one would hold ${
        mib(bytes)
      }: ${narrow}`,
    );
  }
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(bytes % (1024 * 1024) === 0 ? 0 : 1)} MiB`;
}

/** The UTF-8 length of `text`, without encoding it. */
function utf8Length(text: string): number {
  let length = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    // A surrogate pair is 2 units and 4 bytes: each unit counts one more.
    if (code >= 0x80) length += code < 0x800 || (code >= 0xd800 && code <= 0xdfff) ? 1 : 2;
  }
  return length;
}

function drop(key: string, only?: Kept): void {
  const entry = kept.get(key);
  if (!entry || (only && entry !== only)) return;
  kept.delete(key);
  keptBytes -= entry.bytes;
}

function evict(): void {
  for (const key of kept.keys()) {
    if (kept.size <= KEPT_EXPORTS && keptBytes <= KEPT_BYTES) return;
    drop(key);
  }
}
