/**
 * What the questionnaire export holds: every public answer of the library as the export reads
 * it, and the export's rows keyed by questionnaire id (sorted, so the same data gives the same
 * rows; the CSV and XLSX writers are in answers_export.ts).
 */
import type { Config } from "../config.ts";
import {
  type PublicAnswer,
  type PublicAnswers,
  type PublicCitation,
  QUESTIONNAIRES,
} from "../domain/answers.ts";
import type { Organization } from "../domain/workspace.ts";
import { trustCenterUrl } from "../publish/urls.ts";
import { listAnswers } from "../store/answers.ts";
import { currentNda } from "../store/documents.ts";
import { answersAccessUrl, citationIndex, presentAnswer } from "./answers_present.ts";
import { byText, inAnswerOrder } from "./answers_search.ts";

/**
 * Every public answer of `org` as the questionnaire export reads it, in reading order: the
 * answers presented as on the list, without their HTML (the export has no use for it).
 */
export async function exportedAnswers(
  kv: Deno.Kv,
  org: Organization,
  config: Config,
): Promise<Pick<PublicAnswers, "answers" | "url" | "organization">> {
  const [all, nda, index] = await Promise.all([
    listAnswers(kv, org.id),
    currentNda(kv, org.id),
    citationIndex(kv, config, org),
  ]);
  const requestUrl = nda ? answersAccessUrl(config, org.slug) : null;
  // A spreadsheet renders no Markdown and no HTML: its cells carry the vendor's own text ("R&D"
  // stays "R&D"); what a spreadsheet could run, a formula, is made inert by the writers.
  const withoutHtml = { renderSafeMarkdown: () => "", neutralizeMarkdown: (text: string) => text };
  return {
    organization: { name: org.name, slug: org.slug },
    answers: inAnswerOrder(all).map((answer) =>
      presentAnswer(answer, { index, config, requestUrl, markdown: withoutHtml })
    ),
    url: `${trustCenterUrl(config, org.slug)}/answers`,
  };
}

/** One row of the questionnaire export. */
export interface ExportRow {
  questionnaire: string;
  questionId: string;
  status: "answered" | "restricted" | "no answer";
  question: string;
  answer: string;
  category: string;
  citations: string;
  url: string;
}

/** Question ids in natural order: IAM-2.1 before IAM-10.1, A.2 before A.10. */
function naturalCompare(a: string, b: string): number {
  const parts = (s: string) => s.split(/(\d+)/).map((p, i) => (i % 2 ? Number(p) : p));
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] === y[i]) continue;
    return typeof x[i] === "number" && typeof y[i] === "number"
      ? (x[i] as number) - (y[i] as number)
      : byText(String(x[i]), String(y[i]));
  }
  return x.length - y.length;
}

function citationText(citation: PublicCitation): string {
  if (citation.kind === "control") {
    return `Control: ${citation.project?.name} — ${citation.title} (${citation.state})`;
  }
  if (citation.kind === "document") return `Document: ${citation.title}`;
  return `Certification: ${citation.title ?? citation.id}`;
}

/**
 * The export's rows, keyed by questionnaire id: every id a public or restricted answer lists
 * and every id the buyer asked for (`wanted`), each once per answer covering it ("no answer"
 * when none does), sorted by questionnaire and id; then the public answers that list no
 * questionnaire id. Restricted answers give their question and where to ask, never their text.
 */
export function exportRows(
  list: Pick<PublicAnswers, "answers" | "url">,
  options: {
    questionnaire?: string;
    wanted?: readonly string[];
    answerUrl: (id: string) => string;
  },
): ExportRow[] {
  const keyed = new Map<string, PublicAnswer[]>();
  const keyOf = (questionnaire: string, id: string) => `${questionnaire}\u0000${id}`;
  const answers = inAnswerOrder(list.answers);
  for (const answer of answers) {
    for (const ref of answer.questionnaireRefs) {
      if (options.questionnaire && ref.questionnaire !== options.questionnaire) continue;
      const key = keyOf(ref.questionnaire, ref.id);
      const rows = keyed.get(key) ?? [];
      if (!rows.includes(answer)) rows.push(answer);
      keyed.set(key, rows);
    }
  }
  for (const id of options.wanted ?? []) {
    const key = keyOf(options.questionnaire!, id);
    if (!keyed.has(key)) keyed.set(key, []);
  }
  const order = (q: string) => QUESTIONNAIRES.indexOf(q as typeof QUESTIONNAIRES[number]);
  const keys = [...keyed.keys()].map((k) => k.split("\u0000") as [string, string])
    .sort(([qa, a], [qb, b]) => order(qa) - order(qb) || naturalCompare(a, b) || byText(a, b));
  const rows: ExportRow[] = [];
  const row = (answer: PublicAnswer, questionnaire: string, questionId: string): ExportRow => ({
    questionnaire,
    questionId,
    status: answer.visibility === "public" ? "answered" : "restricted",
    question: answer.question,
    answer: answer.visibility === "public"
      ? answer.answer!
      : answer.requestAccessUrl
      ? `Restricted: request access at ${answer.requestAccessUrl}`
      : "Restricted: available on request",
    category: answer.category,
    citations: (answer.citations ?? []).map(citationText).join("; "),
    url: options.answerUrl(answer.id),
  });
  for (const [questionnaire, questionId] of keys) {
    const covering = keyed.get(keyOf(questionnaire, questionId))!;
    if (covering.length === 0) {
      rows.push({
        questionnaire,
        questionId,
        status: "no answer",
        question: "",
        answer: "No answer",
        category: "",
        citations: "",
        url: "",
      });
    }
    for (const answer of covering) rows.push(row(answer, questionnaire, questionId));
  }
  if (!options.questionnaire) {
    for (const answer of answers) {
      if (answer.questionnaireRefs.length === 0 && answer.visibility === "public") {
        rows.push(row(answer, "", ""));
      }
    }
  }
  return rows;
}
