/**
 * Damaged files never crash the reader or the filler: whatever the bytes, reading either gives
 * rows or refuses with a QuestionnaireFileError (a 4xx), and a file that reads also fills, into
 * a workbook that reads again with the same rows. Damage is done to the ZIP's bytes, to the XML
 * of its parts (re-zipped, so the XML readers see it), and to CSV text.
 */
import assert from "node:assert/strict";
import { strToU8, unzipSync, zipSync } from "fflate";
import { fc } from "../deps.ts";
import { fillQuestionnaire, readQuestionnaire } from "../../src/questionnaire/workbook.ts";
import { QuestionnaireFileError } from "../../src/questionnaire/types.ts";

const FIXTURES = new URL("../fixtures/questionnaires/", import.meta.url);
const CAIQ = await Deno.readFile(new URL("sig_lite.xlsx", FIXTURES));
const CSV = await Deno.readTextFile(new URL("free_form_utf8.csv", FIXTURES));
const PARTS = unzipSync(CAIQ);
const XML_PARTS = ["xl/worksheets/sheet2.xml", "xl/sharedStrings.xml", "xl/workbook.xml"]
  .filter((name) => PARTS[name]);

/** Reads, and fills what reads; anything thrown must be a QuestionnaireFileError. */
async function survives(bytes: Uint8Array): Promise<void> {
  let read;
  try {
    read = await readQuestionnaire(bytes);
  } catch (error) {
    if (error instanceof QuestionnaireFileError) return;
    throw error;
  }
  const fills = read.rows.filter((_, i) => i % 2).map((row) => ({
    key: row.key,
    answer: "=1+1 & <yes>",
    evidence: "https://e.example/?a=1&b=2",
  }));
  const filled = await fillQuestionnaire(bytes, read, fills);
  const again = await readQuestionnaire(filled, { columns: read.columns });
  assert.deepEqual(
    again.rows.map((r) => [r.key, r.question]),
    read.rows.map((r) => [r.key, r.question]),
  );
}

const edit = fc.record({
  at: fc.double({ min: 0, max: 1, noNaN: true }),
  cut: fc.integer({ min: 0, max: 8 }),
  insert: fc.constantFrom(
    "",
    "<",
    ">",
    "&",
    "&amp;",
    '"',
    "</c>",
    "<c>",
    "<row>",
    "<v>9</v>",
    "\u0000",
    "é",
    "<f>1</f>",
    ' r="ZZ9"',
    ' t="s"',
    "<![CDATA[x]]>",
    "<!DOCTYPE x>",
  ),
});

function applyEdits(text: string, edits: { at: number; cut: number; insert: string }[]): string {
  let out = text;
  for (const { at, cut, insert } of edits) {
    const i = Math.floor(at * out.length);
    out = out.slice(0, i) + insert + out.slice(i + cut);
  }
  return out;
}

Deno.test("[questionnaire] damaged XML inside a workbook is read, filled or refused with a 4xx, never a crash", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...XML_PARTS),
      fc.array(edit, { minLength: 1, maxLength: 4 }),
      async (part, edits) => {
        const text = new TextDecoder().decode(PARTS[part]);
        const damaged = { ...PARTS, [part]: strToU8(applyEdits(text, edits)) };
        await survives(zipSync(damaged));
      },
    ),
    { numRuns: 150, seed: 26 },
  );
});

Deno.test("[questionnaire] damaged ZIP bytes are read, filled or refused with a 4xx, never a crash", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(
        fc.record({
          at: fc.double({ min: 0, max: 1, noNaN: true }),
          byte: fc.integer({ min: 0, max: 255 }),
        }),
        { minLength: 1, maxLength: 6 },
      ),
      fc.double({ min: 0.5, max: 1, noNaN: true }),
      async (flips, keep) => {
        const bytes = CAIQ.slice(0, Math.max(4, Math.floor(CAIQ.length * keep)));
        for (const { at, byte } of flips) bytes[Math.floor(at * (bytes.length - 1))] = byte;
        await survives(bytes);
      },
    ),
    { numRuns: 150, seed: 26 },
  );
});

Deno.test("[questionnaire] damaged CSV text is read, filled or refused with a 4xx, never a crash", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(
        fc.record({
          at: fc.double({ min: 0, max: 1, noNaN: true }),
          cut: fc.integer({ min: 0, max: 8 }),
          insert: fc.constantFrom(
            "",
            '"',
            '""',
            ",",
            ";",
            "\t",
            "\r",
            "\n",
            "\r\n",
            "=",
            "\u0000",
            "é",
            "\ufeff",
          ),
        }),
        { minLength: 1, maxLength: 6 },
      ),
      fc.constantFrom("utf-8", "utf-16le"),
      async (edits, encoding) => {
        const text = applyEdits(CSV, edits);
        const bytes = encoding === "utf-8" ? strToU8(text) : utf16le(text);
        await survives(bytes);
      },
    ),
    { numRuns: 300, seed: 26 },
  );
});

function utf16le(text: string): Uint8Array {
  const out = new Uint8Array(2 + text.length * 2);
  out[0] = 0xff;
  out[1] = 0xfe;
  for (let i = 0; i < text.length; i++) {
    out[2 + 2 * i] = text.charCodeAt(i) & 0xff;
    out[3 + 2 * i] = text.charCodeAt(i) >> 8;
  }
  return out;
}
