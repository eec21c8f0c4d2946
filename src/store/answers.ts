/**
 * An organization's answers to security questions. Each is stored by id; a count moves in
 * the same atomic operation as every insert and delete, checked, so concurrent additions
 * never pass the cap.
 */
import {
  type CreateAnswerRequest,
  type EditAnswerRequest,
  MAX_ANSWERS_PER_ORGANIZATION,
  type TrustAnswer,
} from "../domain/answers.ts";
import { conflict, notFound } from "../domain/errors.ts";
import { answerCountKey, answerKey, answersPrefix } from "./keys.ts";
import { touchOrganization } from "./edge_pages.ts";

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
    createdAt: at,
    createdBy: options.actor,
    updatedAt: at,
    updatedBy: options.actor,
  };
  const key = answerKey(organizationId, answer.id);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const counted = await kv.get<number>(answerCountKey(organizationId));
    const count = counted.value ?? 0;
    if (count >= MAX_ANSWERS_PER_ORGANIZATION) {
      throw conflict(
        `An organization keeps at most ${MAX_ANSWERS_PER_ORGANIZATION} answers; delete one first`,
      );
    }
    const op = kv.atomic().check(counted, { key, versionstamp: null })
      .set(answerCountKey(organizationId), count + 1)
      .set(key, answer);
    const ok = await touchOrganization(op, organizationId, options.now).commit();
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
    const entry = await kv.get<TrustAnswer>(key);
    if (!entry.value) throw notFound("No answer with that id in this organization");
    const next = applyEdit(entry.value, options.change, {
      actor: options.actor,
      at: options.now.toISOString(),
    });
    if (next === entry.value) return next;
    const op = kv.atomic().check(entry).set(key, next);
    if ((await touchOrganization(op, organizationId, options.now).commit()).ok) return next;
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
    const [entry, counted] = await kv.getMany<[TrustAnswer, number]>([
      key,
      answerCountKey(organizationId),
    ]);
    if (!entry.value) throw notFound("No answer with that id in this organization");
    const op = kv.atomic().check(entry, counted).delete(key)
      .set(answerCountKey(organizationId), Math.max(0, (counted.value ?? 1) - 1));
    const ok = await touchOrganization(op, organizationId, new Date()).commit();
    if (ok.ok) return entry.value;
  }
  throw conflict("The answer kept changing while it was being deleted; please retry");
}
