/**
 * An organization's answers to security questions. Each is stored by id; a count moves in
 * the same atomic operation as every insert and delete, checked, so concurrent additions
 * never pass the cap. An index in reading order (and its own count) moves in the same
 * commits, so a page of the list reads its own answers only (`answerPageInOrder`).
 */
import {
  type CreateAnswerRequest,
  type EditAnswerRequest,
  MAX_ANSWERS_PER_ORGANIZATION,
  type TrustAnswer,
} from "../domain/answers.ts";
import { conflict, notFound } from "../domain/errors.ts";
import {
  answerCountKey,
  answerKey,
  answerOrderCountKey,
  answerOrderKey,
  answersByOrderPrefix,
  answersPrefix,
  answerTermCountKey,
  answerTermsOfKey,
} from "./keys.ts";
import { getManyChunked } from "./_chunks.ts";
import { stageAnswerTerms } from "./answer_terms.ts";

const MAX_ATTEMPTS = 10;

export interface AnswerActor {
  userId: string;
  email: string | null;
}

/** Every answer of the organization, in no particular order. */
export async function listAnswers(kv: Deno.Kv, organizationId: string): Promise<TrustAnswer[]> {
  const answers: TrustAnswer[] = [];
  const iter = kv.list<TrustAnswer>({ prefix: answersPrefix(organizationId) }, {
    limit: MAX_ANSWERS_PER_ORGANIZATION,
  });
  for await (const entry of iter) answers.push(entry.value);
  return answers;
}

export async function getAnswer(
  kv: Deno.Kv,
  organizationId: string,
  id: string,
): Promise<TrustAnswer | null> {
  return (await kv.get<TrustAnswer>(answerKey(organizationId, id))).value;
}

/** Adds an answer; a full organization is a 409. */
export async function addAnswer(
  kv: Deno.Kv,
  organizationId: string,
  options: { request: CreateAnswerRequest; actor: AnswerActor; now: Date },
): Promise<TrustAnswer> {
  const at = options.now.toISOString();
  const { request } = options;
  const answer: TrustAnswer = {
    id: crypto.randomUUID(),
    question: request.question,
    answer: request.answer,
    category: request.category,
    visibility: request.visibility,
    citations: request.citations ?? [],
    questionnaireRefs: request.questionnaireRefs ?? [],
    ...(request.aliases?.length ? { aliases: request.aliases } : {}),
    createdAt: at,
    createdBy: options.actor,
    updatedAt: at,
    updatedBy: options.actor,
  };
  const key = answerKey(organizationId, answer.id);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const [counted, ordered, termed] = await kv.getMany<[number, number, number]>([
      answerCountKey(organizationId),
      answerOrderCountKey(organizationId),
      answerTermCountKey(organizationId),
    ]);
    const count = counted.value ?? 0;
    if (count >= MAX_ANSWERS_PER_ORGANIZATION) {
      throw conflict(
        `An organization keeps at most ${MAX_ANSWERS_PER_ORGANIZATION} answers; delete one first`,
      );
    }
    const op = kv.atomic().check(counted, ordered, termed, { key, versionstamp: null })
      .set(answerCountKey(organizationId), count + 1)
      .set(key, answer)
      .set(orderKeyOf(organizationId, answer), answer.id)
      .set(answerOrderCountKey(organizationId), (ordered.value ?? 0) + 1)
      .set(answerTermCountKey(organizationId), (termed.value ?? 0) + 1);
    stageAnswerTerms(op, organizationId, answer.id, null, answer);
    const ok = await op.commit();
    if (ok.ok) return answer;
  }
  throw conflict("The answers changed while adding one; please retry");
}

/** The answer after `change`; the same object when nothing changes. */
function applyEdit(
  current: TrustAnswer,
  change: EditAnswerRequest,
  by: { actor: AnswerActor; at: string },
): TrustAnswer {
  const fields = Object.fromEntries(Object.entries(change).filter(([, v]) => v !== undefined));
  const merged = { ...current, ...fields } as TrustAnswer;
  const same = Object.keys(fields).every((k) =>
    JSON.stringify(merged[k as keyof TrustAnswer]) ===
      JSON.stringify(current[k as keyof TrustAnswer])
  );
  return same ? current : { ...merged, updatedAt: by.at, updatedBy: by.actor };
}

/** Changes an answer; a request that changes nothing saves nothing. */
export async function editAnswer(
  kv: Deno.Kv,
  organizationId: string,
  options: { id: string; change: EditAnswerRequest; actor: AnswerActor; now: Date },
): Promise<TrustAnswer> {
  const key = answerKey(organizationId, options.id);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const [entry, words] = await kv.getMany<[TrustAnswer, string[]]>([
      key,
      answerTermsOfKey(organizationId, options.id),
    ]);
    if (!entry.value) throw notFound("No answer with that id in this organization");
    const next = applyEdit(entry.value, options.change, {
      actor: options.actor,
      at: options.now.toISOString(),
    });
    if (next === entry.value) return next;
    // An answer indexed before keeps its place in the count; one that was not is indexed now
    // and counted when the index is next rebuilt.
    const op = kv.atomic().check(entry, words).set(key, next);
    stageAnswerTerms(op, organizationId, next.id, words.value, next);
    const [before, after] = [
      orderKeyOf(organizationId, entry.value),
      orderKeyOf(organizationId, next),
    ];
    if (JSON.stringify(before) !== JSON.stringify(after)) {
      op.delete(before).set(after, next.id);
    }
    if ((await op.commit()).ok) return next;
  }
  throw conflict("The answer kept changing while it was being saved; please retry");
}

/** Deletes an answer; returns what was deleted. */
export async function deleteAnswer(
  kv: Deno.Kv,
  organizationId: string,
  id: string,
): Promise<TrustAnswer> {
  const key = answerKey(organizationId, id);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const [entry, counted, ordered, termed, words] = await kv.getMany<
      [TrustAnswer, number, number, number, string[]]
    >([
      key,
      answerCountKey(organizationId),
      answerOrderCountKey(organizationId),
      answerTermCountKey(organizationId),
      answerTermsOfKey(organizationId, id),
    ]);
    if (!entry.value) throw notFound("No answer with that id in this organization");
    const order = orderKeyOf(organizationId, entry.value);
    const indexed = (await kv.get(order)).versionstamp !== null;
    const op = kv.atomic().check(entry, counted, ordered, termed, words).delete(key)
      .set(answerCountKey(organizationId), Math.max(0, (counted.value ?? 1) - 1));
    if (words.value) {
      stageAnswerTerms(op, organizationId, id, words.value, null);
      op.set(answerTermCountKey(organizationId), Math.max(0, (termed.value ?? 1) - 1));
    }
    if (indexed) {
      op.delete(order).set(
        answerOrderCountKey(organizationId),
        Math.max(0, (ordered.value ?? 1) - 1),
      );
    }
    const ok = await op.commit();
    if (ok.ok) return entry.value;
  }
  throw conflict("The answer kept changing while it was being deleted; please retry");
}

/** Characters of the question kept in the order index's key (KV keys are at most 2 KiB). */
const ORDER_QUESTION_LENGTH = 200;

/** Where an answer stands in the reading order index. */
function orderKeyOf(
  organizationId: string,
  answer: Pick<TrustAnswer, "category" | "question" | "id">,
) {
  return answerOrderKey(
    organizationId,
    answer.category.toLowerCase(),
    answer.question.toLowerCase().slice(0, ORDER_QUESTION_LENGTH),
    answer.id,
  );
}

/** A page of answers in reading order, read from the order index. */
export interface OrderedAnswerPage {
  answers: TrustAnswer[];
  /** How many answers the organization keeps. */
  total: number;
  /** Whether answers follow the page's last one. */
  more: boolean;
}

/**
 * At most `limit` answers in reading order (category, question, id), after the answer `after`
 * when given: reads the two counts, the page's index entries and its answers, whatever the
 * organization keeps. Null when the index cannot answer (it does not hold every answer, as for
 * answers written before it existed, or `after` is gone): the caller reads them all instead,
 * and `rebuildAnswerOrder` mends it.
 */
export async function answerPageInOrder(
  kv: Deno.Kv,
  organizationId: string,
  options: { after?: string; limit: number },
): Promise<OrderedAnswerPage | null> {
  const [counted, ordered] = await kv.getMany<[number, number]>([
    answerCountKey(organizationId),
    answerOrderCountKey(organizationId),
  ]);
  const total = counted.value ?? 0;
  if ((ordered.value ?? 0) !== total) return null;
  const prefix = answersByOrderPrefix(organizationId);
  let start: Deno.KvKey | undefined;
  if (options.after !== undefined) {
    const previous = await getAnswer(kv, organizationId, options.after);
    if (!previous) return null;
    start = orderKeyOf(organizationId, previous);
  }
  const ids: string[] = [];
  const entries = kv.list<string>(start ? { prefix, start } : { prefix }, {
    limit: options.limit + 2,
  });
  for await (const entry of entries) if (entry.value !== options.after) ids.push(entry.value);
  const more = ids.length > options.limit;
  const found = await getManyChunked<TrustAnswer>(
    kv,
    ids.slice(0, options.limit).map((id) => answerKey(organizationId, id)),
  );
  const answers = found.map((e) => e.value).filter((a): a is TrustAnswer => a !== null);
  if (answers.length !== Math.min(ids.length, options.limit)) return null;
  return { answers, total, more };
}

/**
 * Writes the order index of an organization's answers again from `answers` (all of them, as
 * just read), then its count, checked against the answer count read before them: a change
 * meanwhile leaves the counts apart, and the next full read tries again.
 */
export async function rebuildAnswerOrder(
  kv: Deno.Kv,
  organizationId: string,
  counted: Deno.KvEntryMaybe<number>,
  answers: readonly TrustAnswer[],
): Promise<void> {
  const wanted = new Set(answers.map((a) => JSON.stringify(orderKeyOf(organizationId, a))));
  const stale: Deno.KvKey[] = [];
  for await (const entry of kv.list({ prefix: answersByOrderPrefix(organizationId) })) {
    if (!wanted.has(JSON.stringify(entry.key))) stale.push(entry.key);
  }
  const writes: Array<(op: Deno.AtomicOperation) => void> = [
    ...stale.map((key) => (op: Deno.AtomicOperation) => void op.delete(key)),
    ...answers.map((a) => (op: Deno.AtomicOperation) =>
      void op.set(orderKeyOf(organizationId, a), a.id)
    ),
  ];
  // Fifty a commit: keys of up to a kilobyte each stay under KV's 80 KiB of keys per atomic.
  for (let i = 0; i < writes.length; i += 50) {
    const op = kv.atomic();
    for (const write of writes.slice(i, i + 50)) write(op);
    await op.commit();
  }
  await kv.atomic().check(counted)
    .set(answerOrderCountKey(organizationId), answers.length)
    .commit();
}

/** The answer count entry, read before the answers a rebuild of the order index starts from. */
export async function getAnswerCountEntry(
  kv: Deno.Kv,
  organizationId: string,
): Promise<Deno.KvEntryMaybe<number>> {
  return await kv.get<number>(answerCountKey(organizationId));
}
