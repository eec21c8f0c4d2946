/**
 * The questionnaire engines (src/questionnaire/workbook.ts reads and fills files, match.ts
 * matches questions), loaded on first use: they bring spreadsheet and full-text libraries
 * that the service's start-up graph (main.ts, deploy.ts) must not carry
 * (tests/cold_start_test.ts). One place adapts their calls to what the service needs.
 */
import { NO_ANSWER_TEXT } from "../domain/questionnaires.ts";
import type {
  KnowledgeBase,
  MatchResult,
  Question,
  QuestionnaireLimits,
  ReadQuestionnaire,
  RowFill,
  RowKind,
  SheetColumns,
} from "../questionnaire/types.ts";
import type { YieldingMatcher } from "../questionnaire/match.ts";

/** What the service asks of the engines. */
export interface Engines {
  limits: QuestionnaireLimits;
  /** The default threshold a suggestion must reach to answer a row. */
  threshold: number;
  /** `kinds`: a reviewer's classification of rows (row key → kind), over the rules. */
  read(
    bytes: Uint8Array,
    columns?: SheetColumns[],
    kinds?: Record<string, RowKind>,
  ): Promise<ReadQuestionnaire>;
  /** The answered file, and the keys of the rows whose answer was written into it. */
  fill(
    bytes: Uint8Array,
    columns: SheetColumns[],
    fills: RowFill[],
    kinds?: Record<string, RowKind>,
  ): Promise<{ bytes: Uint8Array; written: Set<string> }>;
  match(kb: KnowledgeBase, questions: Question[]): MatchResult[];
  /**
   * The matcher of `kb`, built in slices of about `sliceMs` of work with the event loop served
   * between them; its `matchYielding` works in such slices too, pausing between questions and
   * between the terms of one question (public matching, where one request must not hold other
   * requests: src/serve/questionnaire_public.ts). The same results as `match`.
   */
  yieldingMatcher(kb: KnowledgeBase, sliceMs?: number): Promise<YieldingMatcher>;
}

let loaded: Promise<Engines> | undefined;

/** The engines, imported once per process. */
export function loadEngines(): Promise<Engines> {
  loaded ??= importEngines();
  return loaded;
}

async function importEngines(): Promise<Engines> {
  const [workbook, matching] = await Promise.all([
    import("../questionnaire/workbook.ts"),
    import("../questionnaire/match.ts"),
  ]);
  return {
    limits: workbook.QUESTIONNAIRE_LIMITS,
    threshold: matching.DEFAULT_MATCH_THRESHOLD,
    read: (bytes, columns, kinds) =>
      workbook.readQuestionnaire(bytes, { columns, kinds: new Map(Object.entries(kinds ?? {})) }),
    fill: async (bytes, columns, fills, kinds) => {
      const written = new Set<string>();
      const filled = await workbook.readAndFill(bytes, fills, {
        columns,
        kinds: new Map(Object.entries(kinds ?? {})),
        noAnswer: NO_ANSWER_TEXT,
        written,
      });
      return { bytes: filled.bytes, written };
    },
    match: (kb, questions) => matching.createMatcher(kb).match(questions),
    yieldingMatcher: (kb, sliceMs) =>
      matching.createYieldingMatcher(
        kb,
        { pauseInQuestions: true },
        matching.slicedPause(sliceMs),
      ),
  };
}
