/**
 * The buyer's file respected, and nothing silently dropped (issue 34): workbooks built here by
 * hand as XML (zipped with fflate, not written by any spreadsheet library our reader shares
 * code with) in realistic layouts — an instructions sheet, a SIG-like sheet with a Yes/No/N/A
 * drop-down, a Comments column holding the buyer's notes and a formula, a CAIQ-like sheet whose
 * "CSP CAIQ Answer" list comes from a range of a Lists sheet — filled by the engine and read
 * back with SheetJS (values) and the raw XML (validations).
 */
import assert from "node:assert/strict";
import { strToU8, unzipSync } from "fflate";
import { SheetJS } from "../deps.ts";
import {
  choiceFor,
  fillQuestionnaire,
  NO_ANSWER,
  readAndFill,
  readQuestionnaire,
  stanceOf,
} from "../../src/questionnaire/workbook.ts";
import type { RowFill, RowKind } from "../../src/questionnaire/types.ts";
import { sheetXml, workbook } from "../support/hand_xlsx.ts";

const INSTRUCTIONS = sheetXml([
  ["Instructions"],
  ["Answer every question on the SIG Lite sheet."],
  ["Use the Response drop-down; explain in Additional Information."],
  ["Questions about this form: security@buyer.example"],
]);

/** A SIG Lite-like sheet: ids, a Yes/No/N/A drop-down, the buyer's Comments, a total. */
const SIG = sheetXml(
  [
    ["Ques Num", "Question", "Response", "Comments", "Additional Information"],
    ["A.1", "Is there a written information security policy?", null, null, null],
    [null, "B. Access Control", null, null, null],
    ["B.1", "Describe your password policy.", null, "Buyer: attach the standard", null],
    [null, "Describe how vulnerabilities are prioritised", null, null, null],
    ["B.2", "Do you enforce MFA for administrators?", "Yes", null, null],
    ["C.1", "Provide your incident response plan.", null, {
      f: 'IF(C6="No","Explain","")',
      v: "",
    }, null],
    [null, "List the regions where customer data is stored", null, null, null],
    ["Total", null, { f: "COUNTA(C2:C8)", v: 1 }, null, null],
  ],
  `<dataValidations count="1"><dataValidation type="list" allowBlank="1" sqref="C2:C8">` +
    `<formula1>"Yes,No,N/A"</formula1></dataValidation></dataValidations>`,
);

/** A CAIQ v4-like sheet whose Yes/No/NA list is a range of the Lists sheet. */
const CAIQ = sheetXml(
  [
    [
      "Question ID",
      "Question",
      "CSP CAIQ Answer",
      "SSRM Control Ownership",
      "CSP Implementation Description (Optional/Recommended)",
      "CSC Responsibilities (Optional/Recommended)",
    ],
    ["CEK-03.1", "Are data at-rest encrypted?", null, null, null, null],
    ["BCR-08.1", "Is on-premise backup media stored offsite?", null, null, null, null],
    ["IAM-02.1", "Are password policies documented?", null, null, null, null],
    ["LOG-01.1", "Are logging policies established?", "No", null, "Buyer's draft", null],
  ],
  `<dataValidations count="1"><dataValidation type="list" sqref="C2:C5">` +
    `<formula1>Lists!$A$1:$A$3</formula1></dataValidation></dataValidations>`,
);
const LISTS = sheetXml([["Yes"], ["No"], ["NA"]]);

function sheetJs(bytes: Uint8Array) {
  return SheetJS.read(bytes.slice(), { type: "buffer", cellFormula: true });
}

type SheetCells = Record<string, { v?: unknown; f?: string }>;

/** Every cell whose value differs between two sheets, as ref → [before, after]. */
function changes(a: SheetCells, b: SheetCells): Map<string, [unknown, unknown]> {
  const refs = new Set([...Object.keys(a), ...Object.keys(b)].filter((k) => !k.startsWith("!")));
  const out = new Map<string, [unknown, unknown]>();
  for (const ref of [...refs].sort()) {
    // A formula whose cached value is empty comes back as an empty cell: the same to a reader.
    const [x, y] = [
      a[ref]?.v === "" ? undefined : a[ref]?.v,
      b[ref]?.v === "" ? undefined : b[ref]?.v,
    ];
    if (x !== y) out.set(ref, [x, y]);
  }
  return out;
}

Deno.test("[questionnaire] rows without id or question mark that ask (Describe…, Provide…, List…) are questions; every other row has its rule", async () => {
  const book = workbook([["Instructions", INSTRUCTIONS], ["SIG Lite", SIG]]);
  const read = await readQuestionnaire(book);
  // The instructions sheet is not a questionnaire, whatever words it holds.
  assert.deepEqual(read.columns.map((c) => c.sheet), ["SIG Lite"]);
  assert.deepEqual(read.rows.map((r) => [r.row, r.questionId, r.rule]), [
    [2, "A.1", "id"],
    [4, "B.1", "id"],
    [5, null, "prompt"],
    [6, "B.2", "id"],
    [7, "C.1", "id"],
    [8, null, "prompt"],
  ]);
  assert.deepEqual(read.others.map((o) => [o.row, o.kind, o.rule, o.text]), [
    [3, "heading", "heading", "B. Access Control"],
    [9, "ignored", "no_question_cell", "Total"],
  ]);
  // A reviewer's choice wins: the heading becomes a question, a prompt a heading.
  const kinds = new Map<string, RowKind>([["1:3", "question"], ["1:5", "heading"]]);
  const again = await readQuestionnaire(book, { kinds });
  assert.deepEqual(again.rows.find((r) => r.row === 3)?.rule, "chosen");
  assert.equal(again.rows.some((r) => r.row === 5), false);
  assert.deepEqual(again.others.find((o) => o.row === 5), {
    key: "1:5",
    sheet: "SIG Lite",
    row: 5,
    text: "Describe how vulnerabilities are prioritised",
    kind: "heading",
    rule: "chosen",
  });
  // A CSV reads alike: id-less prompts are questions; a heading opening with a word that is
  // also a request ("Document Management") stays a heading unless it goes on like one.
  const csv = strToU8(
    "#,Question,Answer\n1,Do you encrypt backups?,\n,Network Security,\n" +
      ",Describe your firewall rules,\n,Document Management,\n,Document your change process.,\n" +
      ",List all subprocessors,\n",
  );
  const fromCsv = await readQuestionnaire(csv);
  assert.deepEqual(fromCsv.rows.map((r) => r.question), [
    "Do you encrypt backups?",
    "Describe your firewall rules",
    "Document your change process.",
    "List all subprocessors",
  ]);
  assert.deepEqual(fromCsv.others.map((o) => [o.text, o.kind]), [
    ["Network Security", "heading"],
    ["Document Management", "heading"],
  ]);
});

Deno.test("[questionnaire] a SIG-like export: the drop-down gets only Yes/No/N/A, prose and evidence where the buyer wrote nothing, the instructions untouched", async () => {
  const book = workbook([["Instructions", INSTRUCTIONS], ["SIG Lite", SIG]]);
  const read = await readQuestionnaire(book);
  const key = (row: number) => `1:${row}`;
  const fills: RowFill[] = [
    {
      key: key(2),
      answer: "Yes. The policy is reviewed **yearly**.",
      evidence: "https://t.example/p",
    },
    { key: key(4), answer: "No, we use passkeys instead.", evidence: "https://t.example/pw" },
    { key: key(5), answer: "By CVSS and exposure.", evidence: "" },
    { key: key(6), answer: "Yes, for every administrator.", evidence: "https://t.example/mfa" },
    { key: key(7), answer: "N/A: handled by our parent company.", evidence: "" },
  ];
  const filled = await fillQuestionnaire(book, read, fills);
  const before = sheetJs(book);
  const after = sheetJs(filled);
  assert.deepEqual(after.SheetNames, ["Instructions", "SIG Lite"]);
  // Not one cell of the instructions sheet changes.
  assert.deepEqual(
    changes(
      before.Sheets.Instructions as unknown as SheetCells,
      after.Sheets.Instructions as unknown as SheetCells,
    ),
    new Map(),
  );
  const sig = after.Sheets["SIG Lite"] as unknown as SheetCells;
  assert.deepEqual(
    changes(before.Sheets["SIG Lite"] as unknown as SheetCells, sig),
    new Map<string, [unknown, unknown]>([
      // Response: only values its list allows, from the answer's first word; B.2's own "Yes" kept.
      ["C2", [undefined, "Yes"]],
      ["C4", [undefined, "No"]],
      ["C7", [undefined, "N/A"]],
      // The prose in the free explanation column; "No answer" where nothing answers.
      ["E2", [undefined, "Yes. The policy is reviewed **yearly**."]],
      ["E4", [undefined, "No, we use passkeys instead."]],
      ["E5", [undefined, "By CVSS and exposure."]],
      ["E6", [undefined, "Yes, for every administrator."]],
      ["E7", [undefined, "N/A: handled by our parent company."]],
      ["E8", [undefined, NO_ANSWER]],
      // Comments holds the buyer's note and formula: the evidence gets a column of its own.
      ["F1", [undefined, "Evidence"]],
      ["F2", [undefined, "https://t.example/p"]],
      ["F4", [undefined, "https://t.example/pw"]],
      ["F6", [undefined, "https://t.example/mfa"]],
    ]),
  );
  assert.equal(sig.D4.v, "Buyer: attach the standard");
  // The formulas are their values (nothing live comes back), never overwritten.
  assert.equal(sig.D7?.f, undefined);
  assert.equal(sig.F7, undefined, "nothing written beside the buyer's formula");
  assert.equal(sig.C9.v, 1);
  const allowed = new Set(["Yes", "No", "N/A"]);
  for (let row = 2; row <= 8; row++) {
    const value = sig[`C${row}`]?.v;
    assert.ok(value === undefined || allowed.has(String(value)), `C${row}: ${value}`);
  }
  // The drop-down itself stays.
  const xml = new TextDecoder().decode(unzipSync(filled)["xl/worksheets/sheet2.xml"]);
  assert.match(xml, /<dataValidation type="list" allowBlank="1" sqref="C2:C8">/);
  assert.doesNotMatch(
    new TextDecoder().decode(unzipSync(filled)["xl/worksheets/sheet1.xml"]),
    /Evidence|Answer</,
  );
});

Deno.test("[questionnaire] a CAIQ-like export: CSP CAIQ Answer filled from the list on another sheet, prose in the description, the buyer's cells kept", async () => {
  const book = workbook([["CAIQv4", CAIQ], ["Lists", LISTS]]);
  const read = await readQuestionnaire(book);
  assert.deepEqual(read.columns[0], {
    sheet: "CAIQv4",
    headerRow: 1,
    question: "B",
    id: "A",
    answer: "E",
    evidence: null,
    choice: "C",
  });
  const fills: RowFill[] = [
    {
      key: "0:2",
      answer: "Yes: AES-256 with keys in a cloud KMS.",
      evidence: "https://t.example/cek",
    },
    { key: "0:3", answer: "Not applicable, backups are cloud only.", evidence: "" },
    { key: "0:4", answer: "We document them in the access standard.", evidence: "" },
    { key: "0:5", answer: "Yes, see the logging standard.", evidence: "https://t.example/log" },
  ];
  const written = new Set<string>();
  const filled = await fillQuestionnaire(book, read, fills, { written });
  // LOG-01.1 keeps the buyer's answer: it is not reported as answered (the manifest follows).
  assert.deepEqual([...written].sort(), ["0:2", "0:3", "0:4"]);
  const before = sheetJs(book).Sheets.CAIQv4 as unknown as SheetCells;
  const after = sheetJs(filled).Sheets.CAIQv4 as unknown as SheetCells;
  assert.deepEqual(
    changes(before, after),
    new Map<string, [unknown, unknown]>([
      ["C2", [undefined, "Yes"]],
      ["C3", [undefined, "NA"]],
      // No leading Yes or No: the list gets nothing rather than a guess.
      ["E2", [undefined, "Yes: AES-256 with keys in a cloud KMS."]],
      ["E3", [undefined, "Not applicable, backups are cloud only."]],
      ["E4", [undefined, "We document them in the access standard."]],
      // LOG-01.1: the buyer's "No" and draft stay; only the evidence is added.
      ["G1", [undefined, "Evidence"]],
      ["G2", [undefined, "https://t.example/cek"]],
      ["G5", [undefined, "https://t.example/log"]],
    ]),
  );
  assert.deepEqual(
    changes(
      sheetJs(book).Sheets.Lists as unknown as SheetCells,
      sheetJs(filled).Sheets.Lists as unknown as SheetCells,
    ),
    new Map(),
  );
});

Deno.test("[questionnaire] the value a Yes/No/NA list gets is derived from the answer's first word, only among the list's own values", () => {
  assert.equal(stanceOf("**Yes.** We do."), "yes");
  assert.equal(stanceOf("No - never"), "no");
  assert.equal(stanceOf("N/A for SaaS"), "na");
  assert.equal(stanceOf("Not applicable"), "na");
  assert.equal(stanceOf("Nobody has access"), null);
  assert.equal(stanceOf("Yesterday we rotated keys"), null);
  assert.equal(choiceFor("yes", ["Y", "N"]), "Y");
  assert.equal(choiceFor("na", ["Yes", "No", "Not Applicable"]), "Not Applicable");
  assert.equal(choiceFor("na", ["Yes", "No"]), null);
  assert.equal(choiceFor(null, ["Yes", "No"]), null);
});

Deno.test("[questionnaire] reading and filling in one pass gives what the two calls give, byte for byte", async () => {
  const files = [
    workbook([["Instructions", INSTRUCTIONS], ["SIG Lite", SIG]]),
    workbook([["CAIQv4", CAIQ], ["Lists", LISTS]]),
    strToU8("#,Question,Answer,Comments\n1,Do you encrypt backups?,,kept\n,Describe your RTO,,\n"),
  ];
  for (const bytes of files) {
    const read = await readQuestionnaire(bytes);
    const fills = read.rows.filter((_, i) => i % 2 === 0).map((row) => ({
      key: row.key,
      answer: `Yes. ${row.question}`,
      evidence: "https://t.example/e",
    }));
    const [written, once] = [new Set<string>(), new Set<string>()];
    const expected = await fillQuestionnaire(bytes, read, fills, { written });
    const both = await readAndFill(bytes, fills, { written: once });
    assert.deepEqual(both.read, read);
    assert.deepEqual(both.bytes, expected);
    assert.deepEqual(once, written);
  }
});
