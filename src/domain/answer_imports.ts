/**
 * Importing answered questionnaires into the knowledge base (docs/questionnaires.md): a
 * preview of what would be created and merged, then the import itself, which applies that very
 * preview (its digest) or is refused when the file or the knowledge base changed meanwhile.
 */
import { z } from "@hono/zod-openapi";
import { Uuid } from "./common.ts";
import { AnswerVisibility, QuestionnaireRef } from "./answers.ts";

/** Characters of each imported answer a preview shows. */
export const PREVIEW_ANSWER_CHARS = 500;
/** Most items of one import (an organization keeps at most 2,000 answers anyway). */
export const MAX_IMPORT_ITEMS = 2000;

export const ImportPhrasing = z.object({
  text: z.string(),
  id: z.string().nullable().openapi({
    description: "The id the row carried (CAIQ, SIG or the buyer's own)",
  }),
  sheet: z.string(),
  row: z.int().min(1),
}).openapi("AnswerImportPhrasing");

export const ImportItem = z.object({
  index: z.int().min(0),
  action: z.enum(["create", "merge", "skip"]).openapi({
    description:
      "create: a new answer; merge: the phrasings and ids join an answer the knowledge base has (same CAIQ/SIG id, or the same question); skip: cannot be imported (reason)",
  }),
  question: z.string(),
  answer: z.string().openapi({
    description: `The answer's text, its first ${PREVIEW_ANSWER_CHARS} characters`,
  }),
  answerLength: z.int().min(0),
  category: z.string(),
  phrasings: z.array(ImportPhrasing).openapi({
    description: "Every phrasing the answer answered in the file, kept as aliases",
  }),
  questionnaireRefs: z.array(QuestionnaireRef).openapi({
    description: "CAIQ v4 and SIG ids recognized among the phrasings' ids",
  }),
  mergeInto: z.object({
    answerId: Uuid,
    question: z.string(),
    sameAnswer: z.boolean().openapi({
      description:
        "Whether its text says the same as the file (false: the knowledge base's text is kept; review it)",
    }),
  }).nullable(),
  reason: z.string().nullable().openapi({ description: "Why an item is skipped" }),
}).openapi("AnswerImportItem");
export type ImportItem = z.infer<typeof ImportItem>;

export const AnswerImportPreview = z.object({
  format: z.enum(["xlsx", "csv"]),
  digest: z.string().openapi({
    description:
      "Pass as digest to POST …/answer-imports with the same file: the import applies exactly this preview",
  }),
  items: z.array(ImportItem),
  counts: z.object({
    create: z.int().min(0),
    merge: z.int().min(0),
    skip: z.int().min(0),
    unanswered: z.int().min(0).openapi({
      description: "Question rows without an answer, left out",
    }),
    phrasings: z.int().min(0),
  }),
  room: z.int().min(0).openapi({ description: "Answers the organization may still add" }),
}).openapi("AnswerImportPreview");
export type AnswerImportPreview = z.infer<typeof AnswerImportPreview>;

export const AnswerImportQuery = z.object({
  digest: z.string().max(64).regex(/^[0-9a-f]{64}$/, "Must be the digest of a preview").openapi({
    param: { name: "digest", in: "query" },
    description: "The digest of the preview being confirmed",
  }),
  visibility: AnswerVisibility.optional().openapi({
    param: { name: "visibility", in: "query" },
    description: "Of the answers created (default restricted: make them public once reviewed)",
  }),
  skip: z.string().max(12_000).regex(
    /^(\d{1,4}(,\d{1,4})*)?$/,
    "Must be item indexes, comma-separated",
  )
    .optional().openapi({
      param: { name: "skip", in: "query" },
      description: "Indexes of preview items not to import, comma-separated",
      example: "0,4",
    }),
});

export const AnswerImportResult = z.object({
  created: z.array(Uuid),
  merged: z.array(Uuid),
  skipped: z.int().min(0),
}).openapi("AnswerImportResult");
