/**
 * Answers to security questions: checking what an owner writes (citations must name controls,
 * documents and certifications of the organization) before the store adds or changes it. The
 * rest of the library's module is re-exported from here, so its importers are unchanged: the
 * order and matching in answers_search.ts, how an answer is shown (citations resolved) in
 * answers_present.ts, the reads (member pages, the public knowledge base with its search, the
 * restricted answers an access link opens) in answers_read.ts, and the questionnaire export's
 * answers and rows in answers_rows.ts.
 */
import type {
  Citation,
  CreateAnswerRequest,
  EditAnswerRequest,
  TrustAnswer,
} from "../domain/answers.ts";
import { validationFailed } from "../domain/errors.ts";
import { addAnswer, type AnswerActor, editAnswer } from "../store/answers.ts";
import { getCertification } from "../store/certifications.ts";
import { getControl } from "../store/controls.ts";
import { getDocument } from "../store/documents.ts";
import { listProjectsByOrganization } from "../store/projects.ts";

export { inAnswerOrder, matchScore, queryTerms } from "./answers_search.ts";
export { answersAccessUrl } from "./answers_present.ts";
export {
  countRestrictedAnswers,
  memberAnswersPage,
  openedRestrictedAnswers,
  publicAnswers,
} from "./answers_read.ts";
export { exportedAnswers, type ExportRow, exportRows } from "./answers_rows.ts";

/** A 400 naming the first citation that names nothing of the organization; nothing is stored. */
async function checkCitations(
  kv: Deno.Kv,
  organizationId: string,
  citations: readonly Citation[] | undefined,
): Promise<void> {
  if (!citations?.length) return;
  const seen = new Set<string>();
  const projects = await listProjectsByOrganization(kv, organizationId);
  for (const [i, citation] of citations.entries()) {
    const key = `${citation.kind}:${citation.id}`;
    if (seen.has(key)) throw validationFailed(`citations.${i}: ${key} is cited twice`);
    seen.add(key);
    if (citation.kind === "control") {
      const found = await Promise.all(projects.map((p) => getControl(kv, p.id, citation.id)));
      if (!found.some((c) => c !== null)) {
        throw validationFailed(`citations.${i}: no control ${citation.id} in this organization`);
      }
    } else if (citation.kind === "document") {
      const document = await getDocument(kv, organizationId, citation.id);
      if (!document) {
        throw validationFailed(`citations.${i}: no document ${citation.id} in this organization`);
      }
      if (document.unlisted) {
        throw validationFailed(
          `citations.${i}: document ${citation.id} is unlisted (shared only through access links)`,
        );
      }
    } else if (!(await getCertification(kv, organizationId, citation.id))) {
      throw validationFailed(
        `citations.${i}: no certification ${citation.id} in this organization`,
      );
    }
  }
}

/** Adds an answer after checking its citations. */
export async function createAnswer(
  kv: Deno.Kv,
  organizationId: string,
  options: { request: CreateAnswerRequest; actor: AnswerActor; now: Date },
): Promise<TrustAnswer> {
  await checkCitations(kv, organizationId, options.request.citations);
  return await addAnswer(kv, organizationId, options);
}

/** Changes an answer after checking new citations. */
export async function changeAnswer(
  kv: Deno.Kv,
  organizationId: string,
  options: { id: string; change: EditAnswerRequest; actor: AnswerActor; now: Date },
): Promise<TrustAnswer> {
  await checkCitations(kv, organizationId, options.change.citations);
  return await editAnswer(kv, organizationId, options);
}
