/**
 * The collector CLI's commands (heartbeat, evidence, signals, help): each sends its request
 * and prints what the service did with it.
 *
 * @module
 */
import { type Options, usage } from "./args.ts";
import { NotUnderstoodError } from "./errors.ts";
import { post } from "./http.ts";
import { readJsonDocument, readJsonObject } from "./input.ts";
import {
  type ControlEffect,
  controlLines,
  notUnderstood,
  type Reading,
  readingLines,
} from "./output.ts";

/** Records per call to the batch endpoint (the service's limit). */
export const BATCH_SIZE = 100;

interface Io {
  read(file: string): Promise<string>;
  out(line: string): void;
  sleep?(ms: number): Promise<void>;
}

/** Runs one command, printing through `io.out`; throws UsageError, ServiceError or NetworkError. */
export async function run(options: Options, io: Io): Promise<void> {
  const send = (path: string, body: unknown, headers?: Record<string, string>) =>
    post(options, path, body, headers, io.sleep);
  switch (options.command) {
    case "help":
      io.out(usage(options.moduleUrl));
      return;
    case "heartbeat": {
      const { json } = await send(`/collectors/${options.collectorId}/heartbeat`, {
        sourceRef: options.sourceRef,
      });
      const seen = (json as { collector?: { lastSeenAt?: string } })?.collector?.lastSeenAt;
      io.out(
        options.json ? JSON.stringify(json) : `heartbeat: recorded${seen ? ` at ${seen}` : ""}`,
      );
      return;
    }
    case "signals": {
      const detection = await readJsonObject(options.files[0], io.read);
      const { json } = await send("/ingest/signals", { projectId: options.projectId, detection });
      io.out(options.json ? JSON.stringify(json) : "signals: recorded");
      return;
    }
    case "evidence":
      return await sendEvidence(options, io, send);
  }
}

type Send = (
  path: string,
  body: unknown,
  headers?: Record<string, string>,
) => Promise<{ status: number; json: unknown }>;

/**
 * Sends the evidence files, one record alone or in batches of BATCH_SIZE, then refuses
 * (NotUnderstoodError) when the service stored a document it did not understand.
 */
async function sendEvidence(options: Options, io: Io, send: Send): Promise<void> {
  const records = [];
  for (const file of options.files) {
    records.push({
      evidenceType: options.type,
      sourceType: options.sourceType,
      sourceRef: options.sourceRef,
      observedAt: options.observedAt,
      payload: await readJsonDocument(file, io.read),
    });
  }
  const unread: string[] = [];
  if (records.length === 1) {
    const { status, json } = await send(
      "/ingest/evidence",
      { projectId: options.projectId, ...records[0] },
      { "idempotency-key": crypto.randomUUID() },
    );
    const answer = json as { record?: { id?: string }; controls?: unknown } | null;
    const record = answer?.record;
    if (options.json) io.out(JSON.stringify(json));
    else {
      io.out(
        `evidence: ${status === 201 ? "stored" : "already stored"} ${record?.id ?? ""}`.trim(),
      );
      printEffects(io, options.files, [record], answer?.controls);
    }
    unread.push(...notUnderstood(options.files, [record]));
    return refuseUnread(unread, options);
  }
  const effects = new Map<string, ControlEffect>();
  const sentIds: string[] = [];
  const summaries: string[] = [];
  for (let first = 0; first < records.length; first += BATCH_SIZE) {
    const batch = records.slice(first, first + BATCH_SIZE);
    const { status, json } = await send(
      "/ingest/evidence/batch",
      { projectId: options.projectId, records: batch },
      { "idempotency-key": crypto.randomUUID() },
    );
    const last = first + batch.length;
    const answer = json as { records?: unknown; controls?: unknown } | null;
    const answered = answer?.records;
    const files = options.files.slice(first, last);
    unread.push(...notUnderstood(files, answered));
    if (options.json) {
      io.out(JSON.stringify(json));
      continue;
    }
    io.out(
      `evidence: records ${first + 1}-${last} of ${records.length} ${
        status === 201 ? "stored" : "already stored"
      }`,
    );
    for (const line of readingLines(files, answered)) io.out(line);
    for (const record of Array.isArray(answered) ? answered : []) {
      const { id, reading } = (record ?? {}) as { id?: string; reading?: Reading };
      if (id) sentIds.push(id);
      if (reading?.summary) summaries.push(reading.summary);
    }
    // A control keeps the state it had before the first batch and takes the last one's.
    for (const effect of Array.isArray(answer?.controls) ? answer.controls : []) {
      const seen = effects.get(effect.key);
      effects.set(effect.key, seen ? { ...effect, previousState: seen.previousState } : effect);
    }
  }
  if (!options.json) {
    for (const line of controlLines([...effects.values()], { ids: sentIds, summaries })) {
      io.out(line);
    }
  }
  return refuseUnread(unread, options);
}

/** Prints what the service understood of the sent files and what it did to their controls. */
function printEffects(io: Io, files: readonly string[], records: unknown[], controls: unknown) {
  for (const line of readingLines(files, records)) io.out(line);
  const sent = records as Array<{ id?: string; reading?: Reading } | undefined>;
  const lines = controlLines(controls, {
    ids: sent.flatMap((r) => r?.id ? [r.id] : []),
    summaries: sent.flatMap((r) => r?.reading?.summary ? [r.reading.summary] : []),
  });
  for (const line of lines) io.out(line);
}

/** Throws NotUnderstoodError listing `unread`, unless there is none or it is allowed. */
function refuseUnread(unread: string[], options: Pick<Options, "type" | "allowUnrecognized">) {
  if (unread.length === 0 || options.allowUnrecognized) return;
  throw new NotUnderstoodError(
    `The service stored but did not understand ${unread.length} ${options.type} ` +
      `document${unread.length === 1 ? "" : "s"}, so its control will stay unknown ` +
      `(--allow-unrecognized accepts this):\n  ${unread.join("\n  ")}`,
  );
}
