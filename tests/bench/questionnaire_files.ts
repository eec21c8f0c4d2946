/**
 * Reading and filling a buyer's workbook (src/questionnaire/workbook.ts) against SheetJS in the
 * same run: a 2,000-question CAIQ-like workbook (written by SheetJS) is read by us and by SheetJS
 * (the baseline), and filled by us (every row answered, with evidence links) against a SheetJS
 * read and write of the same workbook, the library round-trip we chose not to do. Also the zip
 * bomb of the fixtures: how much the process grows while it is refused, against the bomb's size.
 * Medians of 5 runs after one warm-up; ratios, never assertions.
 */
import { SheetJS } from "../deps.ts";
import { median } from "./_harness.ts";
import { fillQuestionnaire, readQuestionnaire } from "../../src/questionnaire/workbook.ts";

const QUESTIONS = 2_000;
const RUNS = 5;
const BOMB_BYTES = 512 * 1024 * 1024;

function workbook(): Uint8Array {
  const rows: (string | null)[][] = [[
    "Question ID",
    "Question",
    "CSP CAIQ Answer",
    "SSRM Control Ownership",
    "CSP Implementation Description (Optional/Recommended)",
    "CSC Responsibilities (Optional/Recommended)",
    "CCM Control ID",
  ]];
  for (let i = 1; i <= QUESTIONS; i++) {
    rows.push([
      `IAM-${String(i).padStart(4, "0")}.1`,
      `Is access control measure ${i} documented, reviewed and enforced?`,
      i % 3 ? "Yes" : null,
      null,
      null,
      null,
      `IAM-${i}`,
    ]);
  }
  const book = SheetJS.utils.book_new();
  SheetJS.utils.book_append_sheet(book, SheetJS.utils.aoa_to_sheet(rows), "CAIQv4.0.3");
  return new Uint8Array(SheetJS.write(book, { type: "array", bookType: "xlsx" }));
}

async function time(fn: () => unknown | Promise<unknown>): Promise<number> {
  await fn();
  const runs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    await fn();
    runs.push(performance.now() - start);
  }
  return median(runs);
}

export async function benchQuestionnaireFiles(): Promise<{ line: string }> {
  // The bomb first, before the other runs have grown the heap.
  const bomb = await Deno.readFile(
    new URL("../fixtures/questionnaires/bomb.xlsx", import.meta.url),
  );
  const before = Deno.memoryUsage().rss;
  const start = performance.now();
  const refused = await readQuestionnaire(bomb).then(() => "read?!", (e) => e.code as string);
  const bombMs = performance.now() - start;
  const growth = Deno.memoryUsage().rss - before;
  const bytes = workbook();
  const read = await readQuestionnaire(bytes);
  if (read.rows.length !== QUESTIONS) throw new Error(`read ${read.rows.length} questions`);
  const fills = read.rows.map((row) => ({
    key: row.key,
    answer: `Yes. Access is reviewed quarterly (${row.questionId}).`,
    evidence: `https://trust.example/trust/acme/v/12#${row.questionId}`,
  }));
  const ours = await time(() => readQuestionnaire(bytes));
  const theirs = await time(() => SheetJS.read(bytes.slice(), { type: "buffer" }));
  const fill = await time(() => fillQuestionnaire(bytes, read, fills));
  const roundTrip = await time(() =>
    SheetJS.write(SheetJS.read(bytes.slice(), { type: "buffer", cellStyles: true }), {
      type: "array",
      bookType: "xlsx",
    })
  );

  const mib = (n: number) => (n / 1024 / 1024).toFixed(0);
  return {
    line: [
      `questionnaire files, ${QUESTIONS} questions (${(bytes.length / 1024).toFixed(0)} KiB xlsx):`,
      `read ${ours.toFixed(0)} ms (SheetJS read ${theirs.toFixed(0)} ms; ratio ${
        (ours / theirs).toFixed(2)
      }); fill ${fill.toFixed(0)} ms (SheetJS read+write ${roundTrip.toFixed(0)} ms; ratio ${
        (fill / roundTrip).toFixed(2)
      }). Zip bomb (${(bomb.length / 1024).toFixed(0)} KiB → ${
        mib(BOMB_BYTES)
      } MiB): ${refused} in ${bombMs.toFixed(0)} ms, rss +${mib(Math.max(0, growth))} MiB (${
        ((Math.max(0, growth) / BOMB_BYTES) * 100).toFixed(1)
      }% of the bomb)`,
    ].join(" "),
  };
}

if (import.meta.main) console.log((await benchQuestionnaireFiles()).line);
