/**
 * An organization's questionnaires over Deno KV. The record is small (its rows are apart); a
 * count moves in the same atomic operation as every insert and delete, checked, so concurrent
 * uploads never pass the cap. Each row (question and suggestions, at most ROW_BYTES) is its own
 * entry keyed by sheet index and row number, so rows list in the file's order; each decision
 * is an entry beside it, so re-reading the file with other columns keeps the decisions of rows
 * that still exist. Rows and decisions are written in batches that stay within KV's limits on
 * one atomic operation (mutations and bytes); the record, written last, is what makes a
 * questionnaire exist, so a failed upload leaves at most unreferenced rows that it removes.
 *
 * Storage budget: each record carries `storedBytes`, what the questionnaire stores as the
 * usage report counts KV (serialized key and value of its record and rows) plus its file's
 * bytes; an organization's questionnaires together stay within a budget, checked against the
 * sum of its records in the same checked commit as the count. Rows are stored deflated
 * (`{ z }`: raw DEFLATE of their JSON): a row repeats the buyer's question and existing answer
 * and its suggestions' texts, which V8's serialization keeps in UTF-16 as soon as one character
 * is outside Latin-1.
 */
import { deflateRawSync, inflateRawSync } from "node:zlib";
import {
  type Decision,
  MAX_QUESTIONNAIRES_PER_ORGANIZATION,
  type Questionnaire,
  type QuestionnaireRow,
  type RowKind,
} from "../domain/questionnaires.ts";
import { conflict, notFound } from "../domain/errors.ts";
import { serializedSize } from "./_chunks.ts";
import {
  questionnaireCountKey,
  questionnaireDecisionKey,
  questionnaireDecisionsPrefix,
  questionnaireKey,
  questionnaireRowKey,
  questionnaireRowsPrefix,
  questionnairesPrefix,
} from "./keys.ts";

const MAX_ATTEMPTS = 10;
/** Largest serialized row kept (well under KV's 64 KiB per value). */
export const ROW_BYTES = 56 * 1024;
/** Mutations and serialized bytes per batch (KV: 1000 mutations, 800 KiB per atomic op). */
const BATCH_MUTATIONS = 500;
const BATCH_BYTES = 512 * 1024;

/** A questionnaire as stored: coverage's review counts are computed when read. */
export type StoredQuestionnaire = Omit<Questionnaire, "coverage" | "setAside"> & {
  /** Rows that are not questions (absent on records written before they were kept). */
  setAside?: Questionnaire["setAside"];
  /** A reviewer's classification of rows, by row key, over the rules (absent: none). */
  rowKinds?: Record<string, RowKind>;
  organizationId: string;
  /** The rows' keys are `${sheet}:${row}`; what matching found, counted when rows are written. */
  stats: { questions: number; byId: number; byText: number };
  /**
   * Bytes it stores: its file, and its record's and rows' serialized keys and values (absent on
   * records written before the budget: then measured when the budget is checked).
   */
  storedBytes?: number;
};

/** A row as stored: the review decision lives beside it. */
export type StoredRow = Omit<QuestionnaireRow, "decision"> & {
  /** SHA-256 of the question's full text (the stored text may be shortened for display). */
  questionSha256: string;
};

/** The sheet index and row number of a row key `${sheet}:${row}`. */
export function parseRowKey(key: string): [number, number] {
  const [sheet, row] = key.split(":").map(Number);
  return [sheet, row];
}

function rowKey(organizationId: string, id: string, key: string) {
  return questionnaireRowKey(organizationId, id, ...parseRowKey(key));
}

function decisionKey(organizationId: string, id: string, key: string) {
  return questionnaireDecisionKey(organizationId, id, ...parseRowKey(key));
}

type Mutation = { key: Deno.KvKey; value: unknown | null };

/** A row as it sits in KV: its JSON, deflated. */
interface PackedRow {
  z: Uint8Array;
}

function packRow(row: StoredRow): PackedRow {
  // A copy of its own: node:zlib's Buffer may sit in a larger shared ArrayBuffer, which KV's
  // serialization would store whole.
  return { z: new Uint8Array(deflateRawSync(new TextEncoder().encode(JSON.stringify(row)))) };
}

/** A row read back (rows written before packing are plain objects). */
function unpackRow(value: PackedRow | StoredRow): StoredRow {
  if (!("z" in value)) return value;
  return JSON.parse(new TextDecoder().decode(inflateRawSync(value.z))) as StoredRow;
}

/** Rows ready to write: their KV mutations and the bytes they add, as the usage report counts. */
export interface PackedRows {
  mutations: Mutation[];
  bytes: number;
}

/** The rows of questionnaire `id`, packed, with what they will store. */
export function packRows(
  organizationId: string,
  id: string,
  rows: readonly StoredRow[],
): PackedRows {
  let bytes = 0;
  const mutations = rows.map((row) => {
    const key = rowKey(organizationId, id, row.key);
    const value = packRow(row);
    bytes += serializedSize(key) + serializedSize(value);
    return { key, value };
  });
  return { mutations, bytes };
}

/**
 * What a questionnaire stores: its file's bytes, its rows (packed) and its record, each KV
 * entry counted as serialized key plus value, as the usage report counts (store/retention.ts).
 */
export function storedBytesOf(record: StoredQuestionnaire, rows: PackedRows): number {
  const key = questionnaireKey(record.organizationId, record.id);
  // The record's own size with a storedBytes field of its final width (a number's 9 bytes).
  const recordBytes = serializedSize(key) + serializedSize({ ...record, storedBytes: 0 }) + 8;
  return record.size + rows.bytes + recordBytes;
}

/** The error of a full budget: what it is, what is used and what the file needs. */
function overBudget(budget: number, used: number, needed: number) {
  return conflict(
    `The organization's questionnaires may store at most ${budget} bytes; they store ${used} bytes and this one needs ${needed}; delete a questionnaire first`,
  );
}

/** What one record's questionnaire stores: its `storedBytes`, or measured once if it has none. */
async function recordBytes(kv: Deno.Kv, entry: Deno.KvEntry<StoredQuestionnaire>) {
  const record = entry.value;
  if (record.storedBytes !== undefined) return record.storedBytes;
  let bytes = record.size + serializedSize(entry.key) + serializedSize(record);
  const prefix = questionnaireRowsPrefix(record.organizationId, record.id);
  for await (const row of kv.list({ prefix }, { batchSize: 500 })) {
    bytes += serializedSize(row.key) + serializedSize(row.value);
  }
  return bytes;
}

/**
 * Bytes the organization's questionnaires store (the sum of their records' `storedBytes`),
 * leaving out `except` (a questionnaire about to be replaced). At most 200 records are read.
 */
export async function questionnaireStorage(
  kv: Deno.Kv,
  organizationId: string,
  except?: string,
): Promise<number> {
  let used = 0;
  const prefix = questionnairesPrefix(organizationId);
  for await (const entry of kv.list<StoredQuestionnaire>({ prefix }, { batchSize: 200 })) {
    if (entry.value.id !== except) used += await recordBytes(kv, entry);
  }
  return used;
}

/** Throws a 409 naming the budget and what is used when `needed` more bytes do not fit. */
export async function checkQuestionnaireBudget(
  kv: Deno.Kv,
  organizationId: string,
  needed: number,
  budget: number,
  except?: string,
): Promise<void> {
  const used = await questionnaireStorage(kv, organizationId, except);
  if (used + needed > budget) throw overBudget(budget, used, needed);
}

/** Commits `mutations` in batches within KV's limits (not atomic across batches). */
async function commitInBatches(kv: Deno.Kv, mutations: readonly Mutation[]): Promise<void> {
  let op = kv.atomic();
  let count = 0;
  let bytes = 0;
  for (const mutation of mutations) {
    const size = mutation.value === null ? 64 : serializedSize(mutation.value) + 64;
    if (count > 0 && (count >= BATCH_MUTATIONS || bytes + size > BATCH_BYTES)) {
      if (!(await op.commit()).ok) throw conflict("The questionnaire changed meanwhile; retry");
      op = kv.atomic();
      count = 0;
      bytes = 0;
    }
    if (mutation.value === null) op.delete(mutation.key);
    else op.set(mutation.key, mutation.value);
    count++;
    bytes += size;
  }
  if (count > 0 && !(await op.commit()).ok) {
    throw conflict("The questionnaire changed meanwhile; retry");
  }
}

/** Every key under `prefix`. */
async function keysUnder(kv: Deno.Kv, prefix: Deno.KvKey): Promise<Deno.KvKey[]> {
  const keys: Deno.KvKey[] = [];
  for await (const entry of kv.list({ prefix })) keys.push(entry.key);
  return keys;
}

/** Throws a 409 when the organization keeps the most questionnaires already. */
export async function checkQuestionnaireRoom(kv: Deno.Kv, organizationId: string): Promise<void> {
  const count = (await kv.get<number>(questionnaireCountKey(organizationId))).value ?? 0;
  if (count >= MAX_QUESTIONNAIRES_PER_ORGANIZATION) {
    throw conflict(
      `An organization keeps at most ${MAX_QUESTIONNAIRES_PER_ORGANIZATION} questionnaires; delete one first`,
    );
  }
}

/**
 * Stores a new questionnaire: its rows first (packed by `packRows`), then the record and the
 * count in one commit checked against the count read with the budget's sum: any other insert or
 * delete moves the count, so concurrent uploads never pass the cap or the budget (`budget`
 * bytes, against `record.storedBytes`). A full organization is a 409 and leaves nothing behind.
 */
export async function createQuestionnaire(
  kv: Deno.Kv,
  record: StoredQuestionnaire & { storedBytes: number },
  rows: PackedRows,
  budget: number,
): Promise<StoredQuestionnaire> {
  const { organizationId, id } = record;
  await checkQuestionnaireRoom(kv, organizationId);
  await checkQuestionnaireBudget(kv, organizationId, record.storedBytes, budget);
  await commitInBatches(kv, rows.mutations);
  const key = questionnaireKey(organizationId, id);
  try {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const counted = await kv.get<number>(questionnaireCountKey(organizationId));
      const count = counted.value ?? 0;
      if (count >= MAX_QUESTIONNAIRES_PER_ORGANIZATION) {
        throw conflict(
          `An organization keeps at most ${MAX_QUESTIONNAIRES_PER_ORGANIZATION} questionnaires; delete one first`,
        );
      }
      const used = await questionnaireStorage(kv, organizationId);
      if (used + record.storedBytes > budget) throw overBudget(budget, used, record.storedBytes);
      const ok = await kv.atomic().check(counted, { key, versionstamp: null })
        .set(questionnaireCountKey(organizationId), count + 1).set(key, record).commit();
      if (ok.ok) return record;
    }
    throw conflict("The questionnaires changed while adding one; please retry");
  } catch (error) {
    await removeEntries(kv, organizationId, id);
    throw error;
  }
}

/** One questionnaire of the organization, or null. */
export async function getQuestionnaire(
  kv: Deno.Kv,
  organizationId: string,
  id: string,
): Promise<Deno.KvEntryMaybe<StoredQuestionnaire>> {
  return await kv.get<StoredQuestionnaire>(questionnaireKey(organizationId, id));
}

/** One questionnaire, or a 404. */
export async function requireQuestionnaire(
  kv: Deno.Kv,
  organizationId: string,
  id: string,
): Promise<Deno.KvEntry<StoredQuestionnaire>> {
  const entry = await getQuestionnaire(kv, organizationId, id);
  if (!entry.value) throw notFound("No questionnaire with that id in this organization");
  return entry as Deno.KvEntry<StoredQuestionnaire>;
}

/** A page of the organization's questionnaires, newest first; `cursor` is the last id seen. */
export async function listQuestionnaires(
  kv: Deno.Kv,
  organizationId: string,
  options: { cursor?: string; limit: number },
): Promise<{ values: StoredQuestionnaire[]; nextCursor: string | null }> {
  const prefix = questionnairesPrefix(organizationId);
  const values: StoredQuestionnaire[] = [];
  const iter = kv.list<StoredQuestionnaire>(
    options.cursor ? { prefix, end: questionnaireKey(organizationId, options.cursor) } : { prefix },
    { reverse: true, limit: options.limit + 1 },
  );
  for await (const entry of iter) values.push(entry.value);
  const more = values.length > options.limit;
  const page = values.slice(0, options.limit);
  return { values: page, nextCursor: more ? page.at(-1)!.id : null };
}

/** Replaces the record after checking it is still `entry`; a 409 when it moved meanwhile. */
export async function saveQuestionnaire(
  kv: Deno.Kv,
  entry: Deno.KvEntry<StoredQuestionnaire>,
  next: StoredQuestionnaire,
): Promise<StoredQuestionnaire> {
  const ok = await kv.atomic().check(entry).set(entry.key, next).commit();
  if (!ok.ok) throw conflict("The questionnaire changed meanwhile; please retry");
  return next;
}

/**
 * Replaces the rows with `rows` (read with other columns, matched anew): rows no longer
 * present go with their decisions; the others' decisions are kept. Then the record.
 */
export async function replaceRows(
  kv: Deno.Kv,
  entry: Deno.KvEntry<StoredQuestionnaire>,
  next: StoredQuestionnaire,
  rows: readonly StoredRow[],
  budget: number,
): Promise<StoredQuestionnaire> {
  const { organizationId, id } = next;
  const packed = packRows(organizationId, id, rows);
  next = { ...next, storedBytes: storedBytesOf(next, packed) };
  await checkQuestionnaireBudget(kv, organizationId, next.storedBytes!, budget, id);
  const keep = new Set(rows.map((row) => JSON.stringify(rowKey(organizationId, id, row.key))));
  const keepDecision = new Set(
    rows.map((row) => JSON.stringify(decisionKey(organizationId, id, row.key))),
  );
  const stale = [
    ...(await keysUnder(kv, questionnaireRowsPrefix(organizationId, id)))
      .filter((key) => !keep.has(JSON.stringify(key))),
    ...(await keysUnder(kv, questionnaireDecisionsPrefix(organizationId, id)))
      .filter((key) => !keepDecision.has(JSON.stringify(key))),
  ];
  await commitInBatches(kv, [...packed.mutations, ...stale.map((key) => ({ key, value: null }))]);
  return await saveQuestionnaire(kv, entry, next);
}

/** One row, or null. */
export async function getRow(
  kv: Deno.Kv,
  organizationId: string,
  id: string,
  key: string,
): Promise<StoredRow | null> {
  const value = (await kv.get<PackedRow | StoredRow>(rowKey(organizationId, id, key))).value;
  return value && unpackRow(value);
}

/** The rows in the file's order (sheet, then row), from the one after `after` when given. */
export async function* scanRows(
  kv: Deno.Kv,
  organizationId: string,
  id: string,
  after?: string,
): AsyncGenerator<StoredRow> {
  const prefix = questionnaireRowsPrefix(organizationId, id);
  const selector = after
    ? { prefix, start: [...rowKey(organizationId, id, after), 0] as Deno.KvKey }
    : { prefix };
  for await (const entry of kv.list<PackedRow | StoredRow>(selector, { batchSize: 200 })) {
    yield unpackRow(entry.value);
  }
}

/** Every decision taken on the questionnaire's rows, by row key. */
export async function listDecisions(
  kv: Deno.Kv,
  organizationId: string,
  id: string,
): Promise<Map<string, Decision>> {
  const decisions = new Map<string, Decision>();
  const iter = kv.list<Decision>({ prefix: questionnaireDecisionsPrefix(organizationId, id) });
  for await (const entry of iter) {
    decisions.set(`${Number(entry.key[3])}:${Number(entry.key[4])}`, entry.value);
  }
  return decisions;
}

/** One row's decision, or null while it is pending. */
export async function getDecision(
  kv: Deno.Kv,
  organizationId: string,
  id: string,
  key: string,
): Promise<Decision | null> {
  return (await kv.get<Decision>(decisionKey(organizationId, id, key))).value;
}

/** Sets decisions (null: back to pending), in batches. */
export async function setDecisions(
  kv: Deno.Kv,
  organizationId: string,
  id: string,
  decisions: readonly { key: string; decision: Decision | null }[],
): Promise<void> {
  await commitInBatches(
    kv,
    decisions.map(({ key, decision }) => ({
      key: decisionKey(organizationId, id, key),
      value: decision,
    })),
  );
}

/** Every row and decision of a questionnaire, in batches. */
async function removeEntries(kv: Deno.Kv, organizationId: string, id: string): Promise<void> {
  const keys = [
    ...(await keysUnder(kv, questionnaireRowsPrefix(organizationId, id))),
    ...(await keysUnder(kv, questionnaireDecisionsPrefix(organizationId, id))),
  ];
  await commitInBatches(kv, keys.map((key) => ({ key, value: null })));
}

/** Deletes a questionnaire (record and count at once, then its rows and decisions). */
export async function deleteQuestionnaire(
  kv: Deno.Kv,
  organizationId: string,
  id: string,
): Promise<void> {
  const key = questionnaireKey(organizationId, id);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const [entry, counted] = await kv.getMany<[StoredQuestionnaire, number]>([
      key,
      questionnaireCountKey(organizationId),
    ]);
    if (!entry.value) throw notFound("No questionnaire with that id in this organization");
    const ok = await kv.atomic().check(entry, counted).delete(key)
      .set(questionnaireCountKey(organizationId), Math.max(0, (counted.value ?? 1) - 1)).commit();
    if (ok.ok) return await removeEntries(kv, organizationId, id);
  }
  throw conflict("The questionnaire kept changing while it was being deleted; please retry");
}
