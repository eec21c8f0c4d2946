/**
 * The vendor's answers to security questions, kept per organization: a question, a Markdown
 * answer (rendered as safely as updates), a category, public or restricted (restricted ones
 * are listed by question only; the answer opens through an approved access link), typed
 * citations of controls, documents and certifications, and the standard questionnaire ids
 * (CAIQ v4, SIG, other) the vendor says the answer covers. Owners write, members read.
 */
import { z } from "@hono/zod-openapi";
import { DateTime, oneLine, Uuid } from "./common.ts";
import { ControlState } from "./control.ts";
import { plainText } from "./vendor.ts";

/** Most answers one organization keeps (the lists page; the exports have their own budget). */
export const MAX_ANSWERS_PER_ORGANIZATION = 2000;
export const MAX_QUESTION = 1000;
export const MAX_ANSWER = 10_000;
export const MAX_CATEGORY = 80;
export const MAX_CITATIONS = 20;
export const MAX_QUESTIONNAIRE_REFS = 20;
/** Most other phrasings one answer keeps (learned from imported questionnaires), and ids each. */
export const MAX_ALIASES = 50;
export const MAX_ALIAS_IDS = 10;
/** Longest search query, and most questionnaire ids a buyer may list for an export. */
export const MAX_QUERY = 200;
export const MAX_EXPORT_IDS = 500;
/** Answers per page of the lists (public, members', MCP) when none is asked for, and at most. */
export const DEFAULT_ANSWERS_PAGE = 50;
export const MAX_ANSWERS_PAGE = 200;
/**
 * The budget of one questionnaire export: at most this many rows and this many bytes of cell
 * text (UTF-8, about the CSV's size), checked before anything is written.
 */
export const MAX_EXPORT_ROWS = 10_000;
export const MAX_EXPORT_BYTES = 8 * 1024 * 1024;

export const QUESTIONNAIRES = ["caiq-v4", "sig", "other"] as const;
export const Questionnaire = z.enum(QUESTIONNAIRES).openapi("Questionnaire", {
  description:
    "caiq-v4 (CSA Consensus Assessments Initiative Questionnaire v4), sig (Shared Assessments SIG), other",
});
export type Questionnaire = z.infer<typeof Questionnaire>;

/** The CCM v4 domains a CAIQ v4 question id starts with. */
const CAIQ_V4_ID =
  /^(A&A|AIS|BCR|CCC|CEK|DCS|DSP|GRC|HRS|IAM|IPY|IVS|LOG|SEF|STA|TVM|UEM)-\d{2}\.\d{1,2}$/;
const QUESTION_ID = /^[A-Za-z0-9][A-Za-z0-9&._\-/]{0,39}$/;

export const QuestionnaireRef = z.strictObject({
  questionnaire: Questionnaire,
  id: z.string().max(40).regex(
    QUESTION_ID,
    "Must be a question id: letters, digits and & . _ - /, at most 40",
  ).openapi({ example: "IAM-02.1" }),
}).refine((ref) => ref.questionnaire !== "caiq-v4" || CAIQ_V4_ID.test(ref.id), {
  message:
    "A CAIQ v4 question id is a CCM v4 domain, a control number and a question, e.g. IAM-02.1",
  path: ["id"],
}).openapi("QuestionnaireRef");
export type QuestionnaireRef = z.infer<typeof QuestionnaireRef>;

export const CITATION_KINDS = ["control", "document", "certification"] as const;
export const Citation = z.strictObject({
  kind: z.enum(CITATION_KINDS),
  id: z.string().min(1).max(100).regex(/^[A-Za-z0-9._:-]+$/, "Must be an id").openapi({
    description:
      "A control's id (of any project of the organization), a document's id, or a certification's id",
  }),
}).openapi("AnswerCitation");
export type Citation = z.infer<typeof Citation>;

export const AnswerVisibility = z.enum(["public", "restricted"]).openapi("AnswerVisibility", {
  description:
    "public: anyone reads the answer; restricted: listed by question only, the answer opens through an approved access link",
});

/** One line, as the docs say: a question heads its answer and names it in lists and links. */
const Question = oneLine(MAX_QUESTION).openapi({
  description: `One line of at most ${MAX_QUESTION} characters, without control characters`,
  example: "Do you encrypt customer data at rest?",
});
const Category = plainText(MAX_CATEGORY).pipe(z.string().min(1))
  .refine((t) => !/[\r\n]/.test(t), "Must be one line")
  .openapi({ example: "Encryption" });
/** Markdown: any text but control characters other than tab and line breaks. */
const AnswerText = z.string().max(MAX_ANSWER).refine(
  // deno-lint-ignore no-control-regex -- exactly what the check refuses
  (text) => !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text),
  "Must be text without control characters other than tabs and line breaks",
).refine((text) => text.trim().length > 0, "Must not be empty").openapi({
  description:
    `Markdown, at most ${MAX_ANSWER} characters, rendered like updates: raw HTML shows as text, only http(s) and mailto links are kept.`,
  example: "Yes. Customer data is encrypted at rest with **AES-256** (cloud KMS).",
});

/**
 * Another phrasing of the question an answer answers, as a buyer's questionnaire asked it,
 * with the question ids that row carried (a CAIQ or SIG id, or the buyer's own numbering).
 * Imports of answered questionnaires add them; matching reads them as the answer's question.
 */
export const AnswerAlias = z.strictObject({
  text: oneLine(MAX_QUESTION).openapi({
    description: `The phrasing: one line of at most ${MAX_QUESTION} characters`,
    example: "Is customer data encrypted when stored?",
  }),
  ids: z.array(
    z.string().max(40).regex(
      QUESTION_ID,
      "Must be a question id: letters, digits and & . _ - /, at most 40",
    ),
  ).max(MAX_ALIAS_IDS).openapi({
    description: "The question ids the phrasing carried (CAIQ, SIG or the buyer's own)",
    example: ["CEK-03.1"],
  }),
}).openapi("AnswerAlias");
export type AnswerAlias = z.infer<typeof AnswerAlias>;

const Actor = z.object({ userId: Uuid, email: z.string().nullable() });

/** An answer as members see it. */
export const TrustAnswer = z.object({
  id: Uuid,
  question: z.string(),
  answer: z.string().openapi({ description: "The Markdown source" }),
  category: z.string(),
  visibility: AnswerVisibility,
  citations: z.array(Citation),
  questionnaireRefs: z.array(QuestionnaireRef),
  aliases: z.array(AnswerAlias).optional().openapi({
    description:
      "Other phrasings of the question (with their ids) this answer answered, as imported questionnaires asked it; absent when none",
  }),
  createdAt: DateTime,
  createdBy: Actor,
  updatedAt: DateTime,
  updatedBy: Actor,
}).openapi("TrustAnswer");
export type TrustAnswer = z.infer<typeof TrustAnswer>;

export const CreateAnswerRequest = z.strictObject({
  question: Question,
  answer: AnswerText,
  category: Category,
  visibility: AnswerVisibility,
  citations: z.array(Citation).max(MAX_CITATIONS).optional(),
  questionnaireRefs: z.array(QuestionnaireRef).max(MAX_QUESTIONNAIRE_REFS).optional(),
  aliases: z.array(AnswerAlias).max(MAX_ALIASES).optional(),
}).openapi("CreateAnswerRequest");
export type CreateAnswerRequest = z.infer<typeof CreateAnswerRequest>;

export const EditAnswerRequest = z.strictObject({
  question: Question.optional(),
  answer: AnswerText.optional(),
  category: Category.optional(),
  visibility: AnswerVisibility.optional(),
  citations: z.array(Citation).max(MAX_CITATIONS).optional(),
  questionnaireRefs: z.array(QuestionnaireRef).max(MAX_QUESTIONNAIRE_REFS).optional(),
  aliases: z.array(AnswerAlias).max(MAX_ALIASES).optional(),
}).refine((change) => Object.keys(change).length > 0, "Give at least one field to change")
  .openapi("EditAnswerRequest");
export type EditAnswerRequest = z.infer<typeof EditAnswerRequest>;

export const TrustAnswerResponse = z.object({ answer: TrustAnswer }).openapi("TrustAnswerResponse");
export const TrustAnswerListResponse = z.object({
  answers: z.array(TrustAnswer).openapi({ description: "A page, by category, then question" }),
  total: z.int().min(0).openapi({ description: "Answers the organization keeps, all pages" }),
  nextCursor: z.string().nullable().openapi({
    description: "Pass as cursor for the next page; null on the last one",
  }),
}).openapi("TrustAnswerListResponse");

/** A citation as the public sees it: resolved to what it names, or left out. */
export const PublicCitation = z.object({
  kind: z.enum(CITATION_KINDS),
  id: z.string(),
  title: z.string().nullable().openapi({
    description:
      "What it names: a control's or document's title, a certification's framework and status",
  }),
  url: z.url().nullable(),
  project: z.object({ slug: z.string(), name: z.string() }).nullable().openapi({
    description: "The public project of a cited control",
  }),
  state: ControlState.nullable().openapi({
    description: "A cited control's state in its project's latest published version",
  }),
}).openapi("PublicAnswerCitation");
export type PublicCitation = z.infer<typeof PublicCitation>;

export const PublicAnswer = z.object({
  id: Uuid,
  question: z.string(),
  category: z.string(),
  visibility: AnswerVisibility,
  questionnaireRefs: z.array(QuestionnaireRef),
  answer: z.string().nullable().openapi({
    description:
      "The Markdown, rewritten as safely as answerHtml (raw HTML as text, only http(s) and mailto links), as update bodies are; null for a restricted answer",
  }),
  answerHtml: z.string().nullable().openapi({ description: "The answer rendered to safe HTML" }),
  citations: z.array(PublicCitation).nullable().openapi({
    description:
      "Citations the public may see (controls of public, published projects, listed documents, certifications); null for a restricted answer",
  }),
  requestAccessUrl: z.url().nullable().openapi({
    description: "Where a person asks for a restricted answer (null when requests are not open)",
  }),
  updatedAt: DateTime,
}).openapi("PublicAnswer");
export type PublicAnswer = z.infer<typeof PublicAnswer>;

export const PublicAnswers = z.object({
  organization: z.object({ name: z.string(), slug: z.string() }),
  query: z.string().nullable().openapi({ description: "The search, when one was given" }),
  answers: z.array(PublicAnswer).openapi({
    description:
      "A page of the matches, best first; without a query, of every answer by category and question",
  }),
  total: z.int().min(0).openapi({ description: "Answers the organization publishes" }),
  matched: z.int().min(0).openapi({
    description: "Answers matching the query (all of them without one), on every page",
  }),
  nextCursor: z.string().nullable().openapi({
    description:
      'Pass as cursor (with the same q) for the next page; null on the last one. The HTTP answer also links it (Link: rel="next")',
  }),
  acceptingRequests: z.boolean(),
  exports: z.object({ csv: z.url(), xlsx: z.url() }),
  url: z.url(),
}).openapi("PublicAnswers");
export type PublicAnswers = z.infer<typeof PublicAnswers>;

/** Where a page starts: the position of the previous page's last answer, and its id. */
export const ANSWER_CURSOR =
  /^\d{1,6}\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const AnswerPageQuery = z.object({
  cursor: z.string().max(60).regex(ANSWER_CURSOR, "Must be a nextCursor of the list").optional()
    .openapi({
      param: { name: "cursor", in: "query" },
      description: "nextCursor of the previous page",
    }),
  limit: z.coerce.number().int().min(1).max(MAX_ANSWERS_PAGE).optional().openapi({
    param: { name: "limit", in: "query" },
    description: `Answers per page, default ${DEFAULT_ANSWERS_PAGE}, at most ${MAX_ANSWERS_PAGE}`,
  }),
});
export type AnswerPageQuery = z.infer<typeof AnswerPageQuery>;

export const AnswerSearchQuery = AnswerPageQuery.extend({
  q: z.string().max(MAX_QUERY).optional().openapi({
    param: { name: "q", in: "query" },
    description:
      "Words that must all appear in the question, category, questionnaire ids or (public answers) the answer; case and accents ignored",
    example: "encryption at rest",
  }),
});
export type AnswerSearchQuery = z.infer<typeof AnswerSearchQuery>;

export const AnswerExportQuery = z.object({
  questionnaire: Questionnaire.optional().openapi({
    param: { name: "questionnaire", in: "query" },
    description: "Only rows of this questionnaire (required with ids)",
  }),
  ids: z.string().max(MAX_EXPORT_IDS * 41).optional().openapi({
    param: { name: "ids", in: "query" },
    description:
      `Comma-separated question ids of the questionnaire the buyer must answer (at most ${MAX_EXPORT_IDS}); ids no answer covers are listed as "no answer"`,
    example: "IAM-02.1,CEK-03.1",
  }),
});
export type AnswerExportQuery = z.infer<typeof AnswerExportQuery>;
