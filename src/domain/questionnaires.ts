/**
 * A buyer's questionnaire as the service keeps it (docs/questionnaires.md): the uploaded file
 * (a content-addressed blob), the columns its rows were read with, each row's suggestions from
 * the knowledge base and the reviewer's decision, coverage and flags. Members and owners
 * review; the answered file, its signed manifest and the share are built from the decisions.
 */
import { z } from "@hono/zod-openapi";
import { DateTime, oneLine, Uuid } from "./common.ts";
import { ControlState } from "./control.ts";
import { AnswerVisibility, MAX_CATEGORY } from "./answers.ts";
import { plainText } from "./vendor.ts";

/**
 * The largest questionnaire upload (the request body limit of the upload route); the workbook
 * engine's own limit (QUESTIONNAIRE_LIMITS.maxFileBytes) is checked against it in the tests.
 */
export const MAX_QUESTIONNAIRE_UPLOAD_BYTES = 10 * 1024 * 1024;
/** Most questionnaires one organization keeps at once. */
export const MAX_QUESTIONNAIRES_PER_ORGANIZATION = 200;
/** Rows per page of a questionnaire's rows, by default and at most. */
export const DEFAULT_ROWS_PAGE = 50;
export const MAX_ROWS_PAGE = 200;
export const DEFAULT_QUESTIONNAIRES_PAGE = 50;
export const MAX_QUESTIONNAIRES_PAGE = 100;
/** Longest name of a questionnaire, and of an edited answer (the knowledge base's limit). */
export const MAX_QUESTIONNAIRE_NAME = 200;
export const MAX_EDITED_ANSWER = 10_000;
/** Questions one answer_questionnaire call may send, and characters per question. */
export const MAX_MCP_QUESTIONS = 400;
export const MAX_MCP_QUESTION = 2000;
/** What the export writes where the knowledge base holds no accepted answer. */
export const NO_ANSWER_TEXT = "No answer";
/** Media type of the signed manifest (a compact JWS). */
export const MANIFEST_CONTENT_TYPE = "application/jose";
/** `cty` of the manifest's protected header: what its payload is. */
export const MANIFEST_CTY = "application/vnd.trust-profile.questionnaire-manifest+json";

const Actor = z.object({ userId: Uuid, email: z.string().nullable() });
const Column = z.string().max(3).regex(/^[A-Z]{1,3}$/, "Must be a column letter, e.g. B").openapi({
  example: "C",
});

export const QuestionnaireFormat = z.enum(["xlsx", "csv"]);
export const CsvEncoding = z.enum(["utf-8", "utf-16le", "utf-16be", "windows-1252"]);

export const SheetColumns = z.strictObject({
  sheet: z.string().min(1).max(200).openapi({ description: 'The sheet\'s name ("CSV" for a CSV)' }),
  headerRow: z.int().min(1).max(1_048_576),
  question: Column,
  id: Column.nullable().openapi({ description: "The questionnaire's own question id column" }),
  answer: Column.openapi({ description: "The column the export fills with the answer" }),
  evidence: Column.nullable().openapi({
    description: "The column the export fills with the evidence; null: a new column",
  }),
  choice: Column.nullable().optional().openapi({
    description:
      'A column of fixed choices (CAIQ\'s "CSP CAIQ Answer", a Yes/No drop-down): the export writes there only a value its list allows, from the word the answer opens with (Yes, No, N/A); absent or null: none named (a drop-down over the answer column is found when filling)',
  }),
}).openapi("QuestionnaireSheetColumns");
export type SheetColumns = z.infer<typeof SheetColumns>;

export const SheetInfo = z.object({
  name: z.string(),
  rows: z.int().min(0),
  columns: z.int().min(0),
  headers: z.array(z.object({ column: z.string(), text: z.string() })),
  detected: SheetColumns.nullable(),
}).openapi("QuestionnaireSheet");

export const Coverage = z.object({
  questions: z.int().min(0),
  answered: z.int().min(0).openapi({ description: "Rows with a suggestion over the threshold" }),
  byId: z.int().min(0),
  byText: z.int().min(0),
  needAnswer: z.int().min(0),
  accepted: z.int().min(0),
  edited: z.int().min(0),
  rejected: z.int().min(0),
  pending: z.int().min(0),
  text: z.string().openapi({
    example:
      "212 of 261 answered from the knowledge base: 180 by id, 32 by text; 49 need an answer",
  }),
}).openapi("QuestionnaireCoverage");
export type Coverage = z.infer<typeof Coverage>;

export const QuestionnaireFlag = z.object({
  kind: z.enum(["duplicate_id", "contradiction"]),
  message: z.string(),
  questionnaireId: z.string().nullable().openapi({
    description: "duplicate_id: the question id two or more answers claim",
  }),
  answerIds: z.array(Uuid),
  controls: z.array(z.object({
    projectSlug: z.string(),
    controlId: z.string(),
    title: z.string(),
    state: ControlState,
    version: z.int(),
  })).openapi({ description: "contradiction: the cited controls whose published state disagrees" }),
  rowKeys: z.array(z.string()).openapi({
    description: "The rows the flagged answers are suggested for",
  }),
}).openapi("QuestionnaireFlag");
export type QuestionnaireFlag = z.infer<typeof QuestionnaireFlag>;

export const ROW_KINDS = ["question", "heading", "ignored"] as const;
export const RowKind = z.enum(ROW_KINDS).openapi("QuestionnaireRowKind");
export type RowKind = z.infer<typeof RowKind>;
export const ROW_RULES = [
  "id",
  "asks",
  "prompt",
  "sentence",
  "no_id_column",
  "heading",
  "repeated_header",
  "no_letters",
  "no_question_cell",
  "above_header",
  "chosen",
] as const;
export const RowRule = z.enum(ROW_RULES).openapi("QuestionnaireRowRule", {
  description:
    "Why a row is a question, a heading or ignored: id (it has a question id), asks (a question mark), prompt (it opens with a request or question word: Describe, Provide, List, Do…), sentence, no_id_column (the sheet numbers nothing: every row with words), heading (no id in a numbered sheet, short, asks nothing), repeated_header, no_letters, no_question_cell, above_header, chosen (a reviewer's choice)",
});
/** Rows set aside (headings, ignored) a questionnaire shows, and characters of each. */
export const MAX_SET_ASIDE_SHOWN = 200;
export const SET_ASIDE_TEXT = 120;
/** Rows a reviewer may classify by hand in one questionnaire. */
export const MAX_ROW_KINDS = 500;

export const SetAsideRow = z.object({
  key: z.string(),
  sheet: z.string(),
  row: z.int().min(1),
  text: z.string().openapi({ description: `The row's text, at most ${SET_ASIDE_TEXT} characters` }),
  kind: z.enum(["heading", "ignored"]),
  rule: RowRule,
  ruleText: z.string().openapi({ example: "It repeats the header row" }),
}).openapi("QuestionnaireSetAsideRow");
export type SetAsideRow = z.infer<typeof SetAsideRow>;

export const Questionnaire = z.object({
  id: Uuid,
  name: z.string(),
  format: QuestionnaireFormat,
  encoding: CsvEncoding.nullable(),
  size: z.int().min(0),
  sha256: z.string().openapi({ description: "SHA-256 of the uploaded file" }),
  sheets: z.array(SheetInfo),
  columns: z.array(SheetColumns),
  coverage: Coverage,
  flags: z.array(QuestionnaireFlag),
  setAside: z.object({
    total: z.int().min(0).openapi({
      description: "Non-empty rows of the sheets read that are not questions",
    }),
    headings: z.int().min(0),
    ignored: z.int().min(0),
    rows: z.array(SetAsideRow).openapi({
      description:
        `The first ${MAX_SET_ASIDE_SHOWN} in the file's order, each with the rule that set it aside; PUT …/rows/{key}/kind makes one a question (or a question a heading)`,
    }),
  }).openapi({ description: "Rows that are not questions, and why: nothing is dropped silently" }),
  sharedDocumentId: Uuid.nullable().openapi({
    description: "The restricted document the answered file was last shared as",
  }),
  createdAt: DateTime,
  createdBy: Actor,
  updatedAt: DateTime,
}).openapi("BuyerQuestionnaire");
export type Questionnaire = z.infer<typeof Questionnaire>;

const CitationSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("answer"), id: z.string(), question: z.string() }),
  z.object({
    kind: z.literal("control"),
    projectSlug: z.string(),
    controlId: z.string(),
    title: z.string(),
    state: ControlState,
    version: z.int(),
    evidenceObservedAt: z.string().nullable(),
    url: z.string(),
  }),
  z.object({
    kind: z.literal("criterion"),
    framework: z.string(),
    criterionId: z.string(),
    title: z.string(),
  }),
  z.object({
    kind: z.literal("certification"),
    id: z.string(),
    title: z.string(),
    status: z.string(),
    url: z.string().nullable(),
  }),
  z.object({
    kind: z.literal("document"),
    id: z.string(),
    title: z.string(),
    url: z.string().nullable(),
  }),
]).openapi("SuggestionCitation");

export const Suggestion = z.object({
  source: z.discriminatedUnion("kind", [
    z.object({ kind: z.literal("answer"), answerId: z.string() }),
    z.object({ kind: z.literal("control"), projectSlug: z.string(), controlId: z.string() }),
  ]),
  text: z.string(),
  score: z.number().min(0).max(1),
  by: z.enum(["id", "text"]),
  reason: z.union([
    z.object({ questionnaireId: z.string() }),
    z.object({
      terms: z.array(z.string()),
      lead: z.number().optional().openapi({
        description:
          "On the top text suggestion whose lead raised its score: its score over the next one's (99.99 when alone)",
      }),
    }),
  ]),
  citations: z.array(CitationSchema),
}).openapi("QuestionnaireSuggestion");

export const DECISION_STATES = ["pending", "accepted", "edited", "rejected"] as const;
export const Decision = z.object({
  state: z.enum(DECISION_STATES),
  answer: z.string().nullable().openapi({ description: "The edited text (edited rows)" }),
  suggestion: z.int().min(0).nullable().openapi({ description: "The accepted suggestion's index" }),
  by: Actor.nullable(),
  at: DateTime.nullable(),
}).openapi("QuestionnaireDecision");
export type Decision = z.infer<typeof Decision>;

export const QuestionnaireRow = z.object({
  key: z.string().openapi({ example: "0:12", description: "`${sheetIndex}:${row}`" }),
  sheet: z.string(),
  row: z.int().min(1),
  questionId: z.string().nullable(),
  question: z.string(),
  existingAnswer: z.string().nullable(),
  rule: RowRule.optional().openapi({
    description: "Why the row is a question (absent on rows read before rules were kept)",
  }),
  ruleText: z.string().optional(),
  suggestions: z.array(Suggestion),
  best: z.union([Suggestion, z.null()]),
  decision: Decision,
}).openapi("QuestionnaireRow");
export type QuestionnaireRow = z.infer<typeof QuestionnaireRow>;

// ---------------------------------------------------------------------------------------------
// Requests

const Name = oneLine(MAX_QUESTIONNAIRE_NAME).pipe(z.string().min(1)).openapi({
  example: "Globex vendor security review 2026",
});

export const UploadQuestionnaireQuery = z.object({
  name: Name.optional().openapi({
    param: { name: "name", in: "query" },
    description: 'The display name (default "Questionnaire" and the upload time)',
  }),
});

export const OrgParams = z.object({
  organizationId: Uuid.openapi({ param: { name: "organizationId", in: "path" } }),
});
export const QuestionnaireParams = OrgParams.extend({
  questionnaireId: Uuid.openapi({ param: { name: "questionnaireId", in: "path" } }),
});
export const ROW_KEY = /^\d{1,3}:\d{1,7}$/;
export const RowParams = QuestionnaireParams.extend({
  key: z.string().max(12).regex(ROW_KEY, "Must be a row key such as 0:12").openapi({
    param: { name: "key", in: "path" },
    example: "0:12",
  }),
});

export const PageQuery = z.object({
  cursor: z.uuid().max(36).optional().openapi({
    param: { name: "cursor", in: "query" },
    description: "nextCursor of the previous page",
  }),
  limit: z.coerce.number().int().min(1).max(MAX_QUESTIONNAIRES_PAGE).optional().openapi({
    param: { name: "limit", in: "query" },
    description:
      `Questionnaires per page, default ${DEFAULT_QUESTIONNAIRES_PAGE}, at most ${MAX_QUESTIONNAIRES_PAGE}`,
  }),
});

export const ROW_STATUSES = [
  "all",
  "pending",
  "accepted",
  "edited",
  "rejected",
  "unanswered",
] as const;
export const RowsQuery = z.object({
  cursor: z.string().max(12).regex(ROW_KEY, "Must be a nextCursor of the list").optional().openapi({
    param: { name: "cursor", in: "query" },
  }),
  limit: z.coerce.number().int().min(1).max(MAX_ROWS_PAGE).optional().openapi({
    param: { name: "limit", in: "query" },
    description: `Rows per page, default ${DEFAULT_ROWS_PAGE}, at most ${MAX_ROWS_PAGE}`,
  }),
  status: z.enum(ROW_STATUSES).optional().openapi({
    param: { name: "status", in: "query" },
    description:
      "Only rows in this review state; unanswered: no suggestion reaches the threshold (default all)",
  }),
});
export type RowsQuery = z.infer<typeof RowsQuery>;

export const GapsQuery = z.object({
  format: z.enum(["json", "csv"]).optional().openapi({
    param: { name: "format", in: "query" },
    description: "csv for text/csv (so does Accept: text/csv); JSON by default",
  }),
});

export const RowKindRequest = z.strictObject({ kind: RowKind }).openapi(
  "QuestionnaireRowKindRequest",
);

export const UpdateQuestionnaireRequest = z.strictObject({
  name: Name.optional(),
  columns: z.array(SheetColumns).min(1).max(50).optional(),
}).refine((change) => Object.keys(change).length > 0, "Give at least one field to change")
  .openapi("UpdateQuestionnaireRequest");
export type UpdateQuestionnaireRequest = z.infer<typeof UpdateQuestionnaireRequest>;

const EditedAnswer = z.string().max(MAX_EDITED_ANSWER).refine(
  (text) => text.trim().length > 0,
  "Must not be empty",
).refine(
  // deno-lint-ignore no-control-regex -- exactly what the check refuses
  (text) => !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text),
  "Must be text without control characters other than tabs and line breaks",
);

export const DecideRowRequest = z.discriminatedUnion("state", [
  z.strictObject({
    state: z.literal("accepted"),
    suggestion: z.int().min(0).max(50).optional().openapi({
      description: "Which suggestion (default the best, 0)",
    }),
  }),
  z.strictObject({ state: z.literal("edited"), answer: EditedAnswer }),
  z.strictObject({ state: z.literal("rejected") }),
  z.strictObject({ state: z.literal("pending") }),
]).openapi("DecideQuestionnaireRowRequest");
export type DecideRowRequest = z.infer<typeof DecideRowRequest>;

/** Row keys one bulk accept may name: every question a file may hold. */
export const MAX_ACCEPT_KEYS = 5_000;

export const AcceptRowsRequest = z.union([
  z.strictObject({
    keys: z.array(z.string().max(12).regex(ROW_KEY, "Must be a row key such as 1:12"))
      .min(1).max(MAX_ACCEPT_KEYS).openapi({
        description:
          "The rows chosen: each with a best suggestion that is pending or rejected is accepted (edited and accepted rows stay as they are; unknown keys are skipped)",
      }),
  }),
  z.strictObject({
    minScore: z.number().min(0).max(1).openapi({
      description:
        "Every pending row whose best suggestion scores at least this (an id match scores 1) is accepted",
    }),
  }),
]).openapi("AcceptQuestionnaireRowsRequest");
export type AcceptRowsRequest = z.infer<typeof AcceptRowsRequest>;

export const AcceptRowsResponse = z.object({
  accepted: z.int().min(0),
  keys: z.array(z.string()).openapi({ description: "The rows accepted, in the file's order" }),
}).openapi("AcceptQuestionnaireRowsResponse");

export const SaveAnswerRequest = z.strictObject({
  category: plainText(MAX_CATEGORY).pipe(z.string().min(1))
    .refine((t) => !/[\r\n]/.test(t), "Must be one line").openapi({ example: "Encryption" }),
  visibility: AnswerVisibility,
}).openapi("SaveQuestionnaireAnswerRequest");
export type SaveAnswerRequest = z.infer<typeof SaveAnswerRequest>;

// ---------------------------------------------------------------------------------------------
// Responses

export const QuestionnaireResponse = z.object({ questionnaire: Questionnaire })
  .openapi("QuestionnaireResponse");
export const QuestionnaireListResponse = z.object({
  questionnaires: z.array(
    Questionnaire.omit({ sheets: true, columns: true, flags: true, setAside: true }),
  )
    .openapi({ description: "Newest first" }),
  nextCursor: z.string().nullable(),
}).openapi("QuestionnaireListResponse");
export const QuestionnaireRowsResponse = z.object({
  rows: z.array(QuestionnaireRow),
  nextCursor: z.string().nullable(),
}).openapi("QuestionnaireRowsResponse");
export const QuestionnaireRowResponse = z.object({ row: QuestionnaireRow })
  .openapi("QuestionnaireRowResponse");
export const AcceptIdMatchesResponse = z.object({ accepted: z.int().min(0) })
  .openapi("AcceptIdMatchesResponse");
export const QuestionnaireGaps = z.object({
  gaps: z.array(z.object({
    key: z.string(),
    sheet: z.string(),
    row: z.int(),
    questionId: z.string().nullable(),
    question: z.string(),
  })),
}).openapi("QuestionnaireGaps");

// ---------------------------------------------------------------------------------------------
// The MCP tool answer_questionnaire and its public route

export const AnswerQuestionnaireRequest = z.strictObject({
  questions: z.array(z.strictObject({
    text: z.string().min(1).max(MAX_MCP_QUESTION),
    id: z.string().min(1).max(40).optional().openapi({ example: "IAM-02.1" }),
  })).min(1).max(MAX_MCP_QUESTIONS),
}).openapi("AnswerQuestionnaireRequest");

/** Characters of a suggestion's text a public match shows; longer texts are cut at a word. */
export const MAX_PUBLIC_MATCH_TEXT = 2000;
/** Characters shown of the suggestions after the first when the whole list does not fit. */
export const PUBLIC_MATCH_PREVIEW = 200;
/** Bytes of a public matches body, beyond the questions it repeats (they are the caller's own). */
export const MAX_PUBLIC_MATCHES_BYTES = 2 * 1024 * 1024;

const PublicSuggestion = Suggestion.extend({
  truncated: z.boolean().optional().openapi({
    description:
      `Present and true when text was cut at a word boundary (beyond ${MAX_PUBLIC_MATCH_TEXT} characters, or ${PUBLIC_MATCH_PREVIEW} for a suggestion after the first when the body's byte budget runs out); fullTextUrl has the whole text`,
  }),
  fullTextUrl: z.url().optional().openapi({
    description:
      "With truncated: the answer on the organization's public answers page, or the control's published trust.json",
  }),
  restricted: z.boolean().optional().openapi({
    description:
      "Present and true for a restricted answer: named by its question, its text empty and no citations; it is never best. requestAccessUrl is where to ask for it",
  }),
  requestAccessUrl: z.url().nullable().optional().openapi({
    description:
      "With restricted: the trust center's access request form; null while the organization takes no requests (no NDA set)",
  }),
}).openapi("PublicQuestionnaireSuggestion");

export const PublicQuestionnaireMatches = z.object({
  organization: z.object({ name: z.string(), slug: z.string() }),
  threshold: z.number(),
  results: z.array(z.object({
    index: z.int().min(0),
    id: z.string().nullable(),
    question: z.string(),
    best: z.union([PublicSuggestion, z.null()]).openapi({
      description:
        "The best public suggestion reaching the threshold, else null; never a restricted answer",
    }),
    status: z.enum(["answered", "restricted", "unanswered", "omitted"]).openapi({
      description:
        "answered: best is set. restricted: only restricted answers reach the threshold; ask for them at requestAccessUrl. unanswered: nothing reaches it. omitted: see omitted",
    }),
    requestAccessUrl: z.url().nullable().optional().openapi({
      description:
        "With status restricted: the trust center's access request form; null while the organization takes no requests (no NDA set)",
    }),
    suggestions: z.array(PublicSuggestion).openapi({
      description:
        "Matches, best first; a restricted answer is named by its question, with empty text, no citations, restricted true and requestAccessUrl",
    }),
    omitted: z.boolean().optional().openapi({
      description:
        "Present and true when the body's byte budget ran out before this question: best is null and suggestions empty; ask again with fewer questions",
    }),
  })),
  answered: z.int().min(0).openapi({
    description:
      "Questions whose best is shown (a public answer or control); restricted ones are not counted",
  }),
  restricted: z.int().min(0).openapi({
    description: "Questions only restricted answers reach (status restricted)",
  }),
  truncated: z.boolean().optional().openapi({
    description:
      `Present and true when a text was cut or a question omitted, so the body stays within ${MAX_PUBLIC_MATCHES_BYTES} bytes beyond the questions it repeats`,
  }),
  url: z.url().openapi({ description: "The organization's public knowledge base" }),
}).openapi("PublicQuestionnaireMatches");
export type PublicQuestionnaireMatches = z.infer<typeof PublicQuestionnaireMatches>;
