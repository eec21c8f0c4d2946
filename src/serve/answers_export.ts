/**
 * The questionnaire export of an organization's public answers, as CSV and XLSX. The same
 * data gives the same bytes: rows are sorted (serve/answers_rows.ts), no clock is read, and the
 * XLSX (written by write-excel-file, which adds no document properties) is re-zipped with
 * every entry dated 1980-01-01 00:00, the earliest time a ZIP entry can carry, in the order
 * the writer produced them. Requests reach these through answers_download.ts, which computes
 * each export once per data version within a budget.
 */
import type { Zippable } from "fflate";
import type { ExportRow } from "./answers.ts";
import { csvField } from "../lib/spreadsheet_text.ts";

export { csvField };

export const CSV_TYPE = "text/csv; charset=utf-8";
export const XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

const COLUMNS: readonly [keyof ExportRow, string, number][] = [
  ["questionnaire", "Questionnaire", 12],
  ["questionId", "Question ID", 14],
  ["status", "Status", 12],
  ["question", "Question", 50],
  ["answer", "Answer", 80],
  ["category", "Category", 20],
  ["citations", "Citations", 50],
  ["url", "Answer URL", 40],
];

/** What the export says about itself (the XLSX's About sheet, the CSV's file name). */
export interface ExportAbout {
  organization: string;
  source: string;
  /** The newest change among the exported answers, or null without any. */
  lastChanged: string | null;
}

/** The rows as CSV: UTF-8 with a byte order mark (so spreadsheets read it as UTF-8), CRLF. */
export function answersCsv(rows: readonly ExportRow[]): Uint8Array<ArrayBuffer> {
  const lines = [
    COLUMNS.map(([, label]) => csvField(label)).join(","),
    ...rows.map((row) => COLUMNS.map(([key]) => csvField(row[key])).join(",")),
  ];
  return new TextEncoder().encode(`\ufeff${lines.join("\r\n")}\r\n`);
}

/** Every ZIP entry dated the same fixed instant, in the writer's order. */
const ZIP_TIME = new Date(1980, 0, 1, 0, 0, 0);

function fixTimestamps(
  zip: Uint8Array,
  { unzipSync, zipSync }: typeof import("fflate"),
): Uint8Array<ArrayBuffer> {
  const entries = unzipSync(zip);
  const files: Zippable = {};
  for (const [name, bytes] of Object.entries(entries)) {
    files[name] = [bytes, { mtime: ZIP_TIME, level: 6 }];
  }
  return zipSync(files) as Uint8Array<ArrayBuffer>;
}

/** The rows as an XLSX workbook: an Answers sheet (header frozen) and an About sheet. */
export async function writeAnswersXlsx(
  rows: readonly ExportRow[],
  about: ExportAbout,
): Promise<Uint8Array<ArrayBuffer>> {
  const header = COLUMNS.map(([, label]) => ({ value: label, fontWeight: "bold" as const }));
  const data = [
    header,
    ...rows.map((row) =>
      COLUMNS.map(([key]) => ({
        value: row[key],
        type: String,
        wrap: true,
        alignVertical: "top" as const,
      }))
    ),
  ];
  const notes = [
    ["Organization", about.organization],
    ["Source", about.source],
    ["Answers last changed", about.lastChanged ?? "—"],
    ["Rows", String(rows.length)],
    [
      "Status",
      "answered: the vendor's public answer; restricted: the vendor answers after an approved access request; no answer: no answer of the vendor lists this question id",
    ],
    [
      "Question IDs",
      "Those the vendor's answers list, and those the download asked for (ids=); no questionnaire's full list is included",
    ],
  ].map(([name, value]) => [
    { value: name, fontWeight: "bold" as const },
    { value, type: String, wrap: true },
  ]);
  // The writer and the ZIP library load with the first workbook, not at start.
  const [{ default: writeXlsxFile }, fflate] = await Promise.all([
    import("write-excel-file/universal"),
    import("fflate"),
  ]);
  const blob = await writeXlsxFile([
    {
      data,
      sheet: "Answers",
      columns: COLUMNS.map(([, , width]) => ({ width })),
      stickyRowsCount: 1,
    },
    { data: notes, sheet: "About", columns: [{ width: 22 }, { width: 100 }] },
  ]).toBlob();
  return fixTimestamps(new Uint8Array(await blob.arrayBuffer()), fflate);
}
