/**
 * Past questionnaires into the knowledge base (docs/questionnaires.md, "Importing past
 * questionnaires"): an answered workbook or CSV is read by the engine (src/questionnaire/
 * import.ts), each answer planned as a new answer or merged into one the organization has (the
 * same CAIQ or SIG id, the same question or phrasing, or the same answer text of some length),
 * every phrasing kept as an alias with its ids. The preview shows the plan and its digest; the
 * import recomputes the plan from the same file and applies it only when the digest is the same
 * (nothing changed meanwhile).
 */
import {
  type AnswerAlias,
  CreateAnswerRequest,
  EditAnswerRequest,
  MAX_ALIAS_IDS,
  MAX_ALIASES,
  MAX_ANSWERS_PER_ORGANIZATION,
  MAX_QUESTION,
  MAX_QUESTIONNAIRE_REFS,
  type QuestionnaireRef,
  type TrustAnswer,
} from "../domain/answers.ts";
import {
  type AnswerImportPreview,
  type ImportItem,
  MAX_IMPORT_ITEMS,
  PREVIEW_ANSWER_CHARS,
} from "../domain/answer_imports.ts";
import { badRequest, conflict } from "../domain/errors.ts";
import type { Organization } from "../domain/workspace.ts";
import { sha256HexSync } from "../lib/hash.ts";
import type { ImportedAnswer, ImportedQuestionnaire } from "../questionnaire/import.ts";
import { QuestionnaireFileError } from "../questionnaire/types.ts";
import { type AnswerActor, listAnswers } from "../store/answers.ts";
import { changeAnswer, createAnswer } from "./answers.ts";
import { fileError } from "./questionnaires.ts";

const CAIQ_V4_ID =
  /^(A&A|AIS|BCR|CCC|CEK|DCS|DSP|GRC|HRS|IAM|IPY|IVS|LOG|SEF|STA|TVM|UEM)-\d{2}\.\d{1,2}$/;
const QUESTION_ID = /^[A-Za-z0-9][A-Za-z0-9&._\-/]{0,39}$/;
/** Answers at least this long (compared) merge by their text: "Yes" alone does not. */
const SAME_ANSWER_MIN = 20;

/** Words of a text for comparison: case, accents, punctuation and spacing ignored. */
function comparable(text: string): string {
  return text.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ").trim();
}

/** An answer's words for merging by text: a leading Yes/No/NA does not make it another answer. */
function saidKey(text: string): string {
  return comparable(text).replace(/^(yes|no|n a|na|not applicable)\s+/, "");
}

/** One line within the question's limit, without control characters. */
function questionLine(text: string): string {
  // deno-lint-ignore no-control-regex -- control characters become spaces
  const line = text.replace(/[\u0000-\u001f\u007f\s]+/g, " ").trim();
  return line.length > MAX_QUESTION ? `${line.slice(0, MAX_QUESTION - 1)}…` : line;
}

/** The CAIQ v4 and SIG ids among an answer's phrasings (SIG: read from a sheet named SIG). */
function refsOf(answer: ImportedAnswer): QuestionnaireRef[] {
  const refs: QuestionnaireRef[] = [];
  const seen = new Set<string>();
  for (const phrasing of answer.phrasings) {
    const id = phrasing.id?.trim();
    if (!id || !QUESTION_ID.test(id)) continue;
    const questionnaire = CAIQ_V4_ID.test(id)
      ? "caiq-v4"
      : /\bsig\b/i.test(phrasing.sheet)
      ? "sig"
      : null;
    if (!questionnaire || seen.has(`${questionnaire}:${id.toLowerCase()}`)) continue;
    seen.add(`${questionnaire}:${id.toLowerCase()}`);
    refs.push({ questionnaire, id } as QuestionnaireRef);
  }
  return refs;
}

/** Aliases merged: one per phrasing (compared without case or punctuation), ids joined. */
function mergeAliases(...lists: AnswerAlias[][]): AnswerAlias[] {
  const merged = new Map<string, AnswerAlias>();
  for (const alias of lists.flat()) {
    const key = comparable(alias.text);
    const known = merged.get(key);
    if (!known) merged.set(key, { text: alias.text, ids: [...new Set(alias.ids)] });
    else known.ids = [...new Set([...known.ids, ...alias.ids])].slice(0, MAX_ALIAS_IDS);
  }
  return [...merged.values()];
}

function mergeRefs(...lists: QuestionnaireRef[][]): QuestionnaireRef[] {
  const seen = new Set<string>();
  return lists.flat().filter((ref) => {
    const key = `${ref.questionnaire}:${ref.id.toLowerCase()}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function aliasesOf(answer: ImportedAnswer): AnswerAlias[] {
  return mergeAliases(answer.phrasings.map((p) => ({
    text: questionLine(p.text),
    ids: p.id && QUESTION_ID.test(p.id.trim()) ? [p.id.trim()] : [],
  })));
}

/** What the import does, item by item, and the requests it will send. */
interface Plan {
  items: ImportItem[];
  creates: Map<number, CreateAnswerRequest>;
  /** Answer id → the change merging every item into it. */
  merges: Map<string, { change: EditAnswerRequest; items: number[] }>;
  digest: string;
  room: number;
  unanswered: number;
}

function issueText(error: { issues: { path: PropertyKey[]; message: string }[] }): string {
  const issue = error.issues[0];
  return `${issue.path.map(String).join(".")}: ${issue.message}`;
}

/** The plan of an import of `imported` into the organization's `existing` answers. */
function planOf(
  imported: ImportedQuestionnaire,
  existing: TrustAnswer[],
  visibility: "public" | "restricted",
): Plan {
  const byRef = new Map<string, TrustAnswer>();
  const byText = new Map<string, TrustAnswer>();
  const byAnswer = new Map<string, TrustAnswer>();
  // The oldest answer wins where two claim the same id or text (ties by id): always the same.
  const ordered = existing.map((a) => ({ ...a })).sort((a, b) =>
    a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : 1
  );
  const current = new Map(ordered.map((a) => [a.id, a]));
  const first = (map: Map<string, TrustAnswer>, key: string, answer: TrustAnswer) => {
    if (!map.has(key)) map.set(key, answer);
  };
  for (const answer of ordered) {
    for (const ref of answer.questionnaireRefs) {
      first(byRef, `${ref.questionnaire}:${ref.id.toLowerCase()}`, answer);
    }
    first(byText, comparable(answer.question), answer);
    for (const alias of answer.aliases ?? []) first(byText, comparable(alias.text), answer);
    const said = saidKey(answer.answer);
    if (said.length >= SAME_ANSWER_MIN) first(byAnswer, said, answer);
  }
  const items: ImportItem[] = [];
  const creates = new Map<number, CreateAnswerRequest>();
  const merges = new Map<string, { change: EditAnswerRequest; items: number[] }>();
  imported.answers.slice(0, MAX_IMPORT_ITEMS).forEach((answer, index) => {
    const refs = refsOf(answer);
    const aliases = aliasesOf(answer);
    const target = refs.map((r) => byRef.get(`${r.questionnaire}:${r.id.toLowerCase()}`))
      .find((a) => a) ??
      aliases.map((a) => byText.get(comparable(a.text))).find((a) => a) ??
      byAnswer.get(saidKey(answer.answer));
    const item: ImportItem = {
      index,
      action: "create",
      question: questionLine(answer.question),
      answer: answer.answer.slice(0, PREVIEW_ANSWER_CHARS),
      answerLength: answer.answer.length,
      category: answer.category,
      phrasings: answer.phrasings,
      questionnaireRefs: refs,
      mergeInto: null,
      reason: null,
    };
    if (target) {
      const known = merges.get(target.id);
      const base = current.get(target.id)!;
      const change = {
        aliases: mergeAliases(base.aliases ?? [], aliases),
        questionnaireRefs: mergeRefs(base.questionnaireRefs, refs),
      };
      const parsed = EditAnswerRequest.safeParse(change);
      item.action = "merge";
      item.mergeInto = {
        answerId: target.id,
        question: target.question,
        sameAnswer: saidKey(target.answer) === saidKey(answer.answer),
      };
      if (!parsed.success) {
        item.action = "skip";
        item.reason = change.aliases.length > MAX_ALIASES
          ? `The answer would keep more than ${MAX_ALIASES} phrasings`
          : change.questionnaireRefs.length > MAX_QUESTIONNAIRE_REFS
          ? `The answer would cite more than ${MAX_QUESTIONNAIRE_REFS} questionnaire ids`
          : issueText(parsed.error);
      } else {
        Object.assign(base, change);
        merges.set(target.id, { change, items: [...(known?.items ?? []), index] });
      }
    } else {
      const request = {
        question: item.question,
        answer: answer.answer,
        category: answer.category,
        visibility,
        questionnaireRefs: refs.slice(0, MAX_QUESTIONNAIRE_REFS),
        aliases: aliases.slice(0, MAX_ALIASES),
      };
      const parsed = CreateAnswerRequest.safeParse(request);
      if (parsed.success) creates.set(index, parsed.data);
      else {
        item.action = "skip";
        item.reason = issueText(parsed.error);
      }
    }
    items.push(item);
  });
  const room = Math.max(0, MAX_ANSWERS_PER_ORGANIZATION - existing.length);
  const digest = sha256HexSync(JSON.stringify({
    visibility: null,
    items: items.map((item) => ({ ...item, answer: imported.answers[item.index].answer })),
    targets: [...merges.keys()].sort().map((id) => [id, current.get(id)?.updatedAt]),
  }));
  return { items, creates, merges, digest, room, unanswered: imported.unanswered };
}

/** The answered file read by the import engine; a refused file is its 4xx. */
async function readAnswered(bytes: Uint8Array): Promise<ImportedQuestionnaire> {
  if (bytes.byteLength === 0) {
    throw badRequest("The request body must be the file's bytes");
  }
  const engine = await import("../questionnaire/import.ts");
  try {
    return await engine.importAnswered(bytes);
  } catch (error) {
    if (error instanceof QuestionnaireFileError) throw fileError(error);
    throw error;
  }
}

/** What importing the file would create and merge, with the digest that confirms it. */
export async function previewAnswerImport(
  kv: Deno.Kv,
  options: { organization: Organization; bytes: Uint8Array },
): Promise<AnswerImportPreview> {
  const imported = await readAnswered(options.bytes);
  const plan = planOf(imported, await listAnswers(kv, options.organization.id), "restricted");
  const count = (action: ImportItem["action"]) =>
    plan.items.filter((i) => i.action === action).length;
  return {
    format: imported.read.format,
    digest: plan.digest,
    items: plan.items,
    counts: {
      create: count("create"),
      merge: count("merge"),
      skip: count("skip"),
      unanswered: plan.unanswered,
      phrasings: plan.items.reduce((n, i) => n + i.phrasings.length, 0),
    },
    room: plan.room,
  };
}

/**
 * Applies the preview whose digest is given to the same file: creates the new answers (with
 * `visibility`), then merges phrasings and ids into the existing ones; items in `skip` are
 * left out. A different file or a knowledge base changed since the preview is a 409, and so is
 * an organization without room for the answers created; nothing is written then.
 */
export async function importAnswers(
  kv: Deno.Kv,
  options: {
    organization: Organization;
    bytes: Uint8Array;
    digest: string;
    visibility: "public" | "restricted";
    skip: ReadonlySet<number>;
    actor: AnswerActor;
    now: Date;
  },
): Promise<{ created: string[]; merged: string[]; skipped: number }> {
  const { organization, actor, now } = options;
  const imported = await readAnswered(options.bytes);
  const plan = planOf(imported, await listAnswers(kv, organization.id), options.visibility);
  if (plan.digest !== options.digest) {
    throw conflict(
      "The file or the knowledge base changed since the preview: preview the import again",
    );
  }
  const creates = [...plan.creates].filter(([index]) => !options.skip.has(index));
  if (creates.length > plan.room) {
    throw conflict(
      `The organization may add ${plan.room} more answers and the import creates ${creates.length}: skip some, or delete answers first`,
    );
  }
  const created: string[] = [];
  for (const [, request] of creates) {
    created.push((await createAnswer(kv, organization.id, { request, actor, now })).id);
  }
  const merged: string[] = [];
  for (const [id, merge] of plan.merges) {
    if (merge.items.every((index) => options.skip.has(index))) continue;
    // Only the items kept add their phrasings.
    let change = merge.change;
    if (merge.items.some((index) => options.skip.has(index))) {
      const kept = plan.items.filter((i) =>
        merge.items.includes(i.index) && !options.skip.has(i.index)
      );
      const base = (await listAnswers(kv, organization.id)).find((a) => a.id === id);
      if (!base) continue;
      change = {
        aliases: mergeAliases(
          base.aliases ?? [],
          ...kept.map((i) => aliasesOf(imported.answers[i.index])),
        ),
        questionnaireRefs: mergeRefs(
          base.questionnaireRefs,
          ...kept.map((i) => i.questionnaireRefs),
        ),
      };
    }
    await changeAnswer(kv, organization.id, { id, change, actor, now });
    merged.push(id);
  }
  const skipped = plan.items.filter((i) => i.action === "skip" || options.skip.has(i.index));
  return { created, merged, skipped: skipped.length };
}
