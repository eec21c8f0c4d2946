/**
 * Reading and filling buyers' questionnaire files (src/questionnaire/workbook.ts) on fixtures
 * written by ExcelJS (tests/fixtures/questionnaires/make.ts); what we write is read back with
 * SheetJS, a third library, and compared cell by cell with the original.
 */
import assert from "node:assert/strict";
import { strToU8, unzipSync, zipSync } from "fflate";
import { Papa, SheetJS } from "../deps.ts";
import {
  fillQuestionnaire,
  NO_ANSWER,
  QUESTIONNAIRE_LIMITS,
  readQuestionnaire,
} from "../../src/questionnaire/workbook.ts";
import {
  QuestionnaireFileError,
  type QuestionnaireFileErrorCode,
  type ReadQuestionnaire,
  type RowFill,
} from "../../src/questionnaire/types.ts";
import {
  CAIQ_HEADERS,
  CAIQ_ROWS,
  FREE_FORM_ROWS,
  SIG_ROWS,
} from "../fixtures/questionnaires/rows.ts";

const FIXTURES = new URL("../fixtures/questionnaires/", import.meta.url);
const fixture = (name: string) => Deno.readFile(new URL(name, FIXTURES));

async function refused(
  promise: Promise<unknown>,
  code: QuestionnaireFileErrorCode,
): Promise<QuestionnaireFileError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof QuestionnaireFileError, String(error));
    assert.equal(error.code, code, error.message);
    return error;
  }
  assert.fail(`expected ${code}`);
}

/** Fills for every other row, with an answer that looks like a formula and a Markdown list. */
function fillsFor(read: ReadQuestionnaire): RowFill[] {
  return read.rows.filter((_, i) => i % 2 === 0).map((row, i) => ({
    key: row.key,
    answer: i === 0 ? '=HYPERLINK("https://attacker.example")' : `Yes: ${row.question}\n- item`,
    evidence: `https://trust.example/acme/v/7#${row.questionId ?? row.row}`,
  }));
}

type Sheet =
  & Record<string, { t: string; v?: unknown; f?: string; s?: unknown; l?: { Target: string } }>
  & {
    "!merges"?: unknown;
    "!cols"?: unknown;
  };

/**
 * A cell's hyperlink target as SheetJS reads it; SheetJS 0.18.5 leaves XML entities of a
 * relationship's Target undecoded (`&amp;`), which Excel and any XML parser decode.
 */
function linkOf(cell: { l?: { Target: string } } | undefined): string | undefined {
  return cell?.l?.Target.replaceAll("&amp;", "&");
}

function sheetJs(bytes: Uint8Array) {
  // A copy: SheetJS adds its own fields to the array it reads.
  return SheetJS.read(bytes.slice(), { type: "buffer", cellFormula: true, cellStyles: true });
}

/** A written text as a spreadsheet shows it once made inert. */
function inertText(text: string): string {
  return /^[=+\-@]/.test(text) ? `'${text}` : text;
}

/**
 * Compares the original and the filled workbook with SheetJS: same sheets, merges and widths;
 * every cell the buyer filled keeps its value, link and style (the buyer's file respected);
 * cells written were empty, lie in a question row (or the header row) of an answered sheet;
 * each question row shows its fill's answer (or `noAnswer`) and evidence unless the buyer's own
 * text holds that cell; no formula anywhere. Returns the cells written, by sheet.
 */
function assertOnlyAnswersChanged(
  original: Uint8Array,
  filled: Uint8Array,
  read: ReadQuestionnaire,
  fills: RowFill[],
  noAnswer = NO_ANSWER,
): Map<string, Map<string, string>> {
  const before = sheetJs(original);
  const after = sheetJs(filled);
  assert.deepEqual(after.SheetNames, before.SheetNames);
  const byKey = new Map(fills.map((fill) => [fill.key, fill]));
  const written = new Map<string, Map<string, string>>();
  for (const name of before.SheetNames) {
    const a = before.Sheets[name] as unknown as Sheet;
    const b = after.Sheets[name] as unknown as Sheet;
    assert.deepEqual(b["!merges"], a["!merges"], `${name}: merged cells`);
    const widths = (sheet: Sheet) => (sheet["!cols"] as { wch?: number }[] | undefined) ?? [];
    widths(a).forEach((width, i) =>
      assert.deepEqual(widths(b)[i], width, `${name}: width of column ${i + 1}`)
    );
    const choice = read.columns.find((c) => c.sheet === name);
    const rows = new Map(read.rows.filter((r) => r.sheet === name).map((r) => [r.row, r]));
    const cells = new Map<string, string>();
    const refs = new Set([...Object.keys(a), ...Object.keys(b)].filter((k) => !k.startsWith("!")));
    for (const ref of refs) {
      assert.equal(b[ref]?.f, undefined, `${name}!${ref} holds a formula`);
      const had = a[ref]?.v !== undefined && a[ref]?.v !== "";
      if (had || a[ref]?.f) {
        assert.equal(b[ref]?.v, a[ref]?.v, `${name}!${ref} unchanged`);
        assert.deepEqual(b[ref]?.l, a[ref]?.l, `${name}!${ref} keeps its link`);
        assert.deepEqual(b[ref]?.s, a[ref]?.s, `${name}!${ref} keeps its style`);
        continue;
      }
      if (b[ref]?.v === undefined) continue;
      const row = SheetJS.utils.decode_cell(ref).r + 1;
      assert.ok(choice, `${name}!${ref} written in a sheet that asks nothing`);
      assert.ok(rows.has(row) || row === choice.headerRow, `${name}!${ref}: not a question row`);
      if (a[ref]?.s) assert.deepEqual(b[ref].s, a[ref].s, `${name}!${ref} keeps its style`);
      cells.set(ref, String(b[ref].v));
    }
    for (const [number, row] of rows) {
      const shown = (ref: string) => String(b[ref]?.v ?? "");
      const inRow = [...refs].filter((ref) => SheetJS.utils.decode_cell(ref).r + 1 === number)
        .map(shown);
      const fill = byKey.get(row.key);
      const buyerAnswered = row.existingAnswer !== null;
      if (!buyerAnswered) {
        assert.ok(
          inRow.includes(inertText(fill ? fill.answer : noAnswer)),
          `${name} row ${number}`,
        );
      }
      if (fill?.evidence) {
        const ref = [...refs].find((r) =>
          SheetJS.utils.decode_cell(r).r + 1 === number && shown(r) === fill.evidence
        );
        assert.ok(ref, `${name} row ${number}: evidence`);
        if (/^https:/.test(fill.evidence)) assert.equal(linkOf(b[ref]), fill.evidence);
      }
    }
    written.set(name, cells);
  }
  return written;
}

Deno.test("[questionnaire] a CAIQ v4.0.3 workbook: columns found by header, ids and questions read", async () => {
  const read = await readQuestionnaire(await fixture("caiq_v4.0.3.xlsx"));
  assert.equal(read.format, "xlsx");
  assert.equal(read.encoding, null);
  assert.deepEqual(read.sheets.map((s) => s.name), ["Introduction", "CAIQv4.0.3", "Summary"]);
  assert.deepEqual(read.columns, [{
    sheet: "CAIQv4.0.3",
    headerRow: 3,
    question: "B",
    id: "A",
    answer: "E", // CSP Implementation Description: prose goes where prose belongs
    evidence: null, // a new column after J
    choice: "C", // CSP CAIQ Answer: Yes, No or NA, as the answer opens
  }]);
  const caiq = read.sheets[1];
  assert.deepEqual(caiq.headers.map((h) => h.text), CAIQ_HEADERS);
  assert.equal(caiq.columns, 10);
  assert.deepEqual(read.sheets[0].detected, null);
  assert.deepEqual(
    read.rows.map((row) => [row.key, row.questionId, row.question]),
    CAIQ_ROWS.map(([id, question], i) => [`1:${4 + i}`, id, question]),
  );
  for (const id of ["A&A-01.1", "IAM-02.1", "CEK-03.1"]) {
    assert.ok(read.rows.some((row) => row.questionId === id), id);
  }
});

Deno.test("[questionnaire] a filled CAIQ workbook: SheetJS sees only the answer and evidence cells changed", async () => {
  const original = await fixture("caiq_v4.0.3.xlsx");
  const read = await readQuestionnaire(original);
  const fills = fillsFor(read);
  const filled = await fillQuestionnaire(original, read, fills);
  assertOnlyAnswersChanged(original, filled, read, fills);
  const sheet = sheetJs(filled).Sheets["CAIQv4.0.3"];
  assert.equal(sheet.E4.v, `'=HYPERLINK("https://attacker.example")`, "made inert");
  assert.equal(sheet.K3.v, "Evidence");
  assert.equal(linkOf(sheet.K4), fills[0].evidence);
  // The new evidence column looks like the answer column: its cells' style and its width.
  assert.deepEqual(sheet.K4.s, sheet.E4.s);
  assert.deepEqual(sheet.K3.s, sheet.E3.s);
  const cols = sheet["!cols"] as { wch?: number; width?: number }[];
  assert.ok(cols[4]?.wch);
  assert.deepEqual(cols[10], cols[4]);
  assert.equal(
    sheetJs(filled).Sheets.Introduction.A3.l?.Target,
    "https://cloudsecurityalliance.org/",
  );
  assert.equal(sheet.E5.v, NO_ANSWER);
  assert.match(sheet["!ref"]!, /^A1:K43$/);
  // The formula cells of the Summary sheet are their cached values now.
  const summary = sheetJs(filled).Sheets.Summary;
  assert.equal(summary.B1.v, 8);
  assert.equal(summary.B2.v, "example");
  // Same input, same bytes.
  assert.deepEqual(await fillQuestionnaire(original, read, fills), filled);
  // Every cell keeps the style it referenced (styles.xml itself is copied, below).
  const stylesOf = (bytes: Uint8Array) => {
    const xml = new TextDecoder().decode(unzipSync(bytes)["xl/worksheets/sheet2.xml"]);
    return new Map(
      [...xml.matchAll(/<c r="([A-Z]+[0-9]+)"([^>]*)>/g)].map((
        m,
      ) => [m[1], /\ss="(\d+)"/.exec(m[2])?.[1] ?? null]),
    );
  };
  const after = stylesOf(filled);
  for (const [ref, style] of stylesOf(original)) {
    if (style !== null) assert.equal(after.get(ref), style, `${ref} keeps s="${style}"`);
  }
  // Parts we do not change are copied byte for byte.
  const a = unzipSync(original);
  const b = unzipSync(filled);
  for (const name of Object.keys(a)) {
    if (/worksheets\/sheet\d\.xml$|workbook\.xml|\[Content_Types\]/.test(name)) continue;
    assert.deepEqual(b[name], a[name], name);
  }
});

Deno.test("[questionnaire] a SIG Lite-like workbook: category rows skipped, Response and Additional Information filled", async () => {
  const original = await fixture("sig_lite.xlsx");
  const read = await readQuestionnaire(original);
  assert.deepEqual(read.columns, [{
    sheet: "SIG Lite",
    headerRow: 1,
    question: "B",
    id: "A",
    answer: "C",
    evidence: "D",
  }]);
  const questions = SIG_ROWS.filter(([, q]) => q !== null);
  assert.deepEqual(read.rows.map((r) => [r.questionId, r.question]), questions);
  const fills = fillsFor(read);
  const filled = await fillQuestionnaire(original, read, fills, { noAnswer: "No answer yet" });
  assertOnlyAnswersChanged(original, filled, read, fills, "No answer yet");
  const sheet = sheetJs(filled).Sheets["SIG Lite"];
  // The buyer's COUNTA and its DDE-style formula are values now, not formulas.
  assert.equal(sheet.B21.f, undefined);
  assert.equal(sheet.D21.f, undefined);
  assert.equal(sheet.D21.v, 0);
  const xml = new TextDecoder().decode(unzipSync(filled)["xl/worksheets/sheet2.xml"]);
  assert.doesNotMatch(xml, /<f[ >]/);
  assert.doesNotMatch(xml, /cmd\|/);
});

Deno.test("[questionnaire] formulas and an external link never come back live", async () => {
  const original = await fixture("formulas_external_link.xlsx");
  assert.ok(Object.keys(unzipSync(original)).includes("xl/externalLinks/externalLink1.xml"));
  const read = await readQuestionnaire(original);
  // The cached value is read, never the formula.
  assert.equal(read.rows[0].existingAnswer, "Click me");
  const filled = await fillQuestionnaire(original, read, []);
  const parts = unzipSync(filled);
  assert.deepEqual(Object.keys(parts).filter((name) => /externalLink/i.test(name)), []);
  const text = (name: string) => new TextDecoder().decode(parts[name]);
  assert.doesNotMatch(text("xl/workbook.xml"), /externalReference/);
  assert.doesNotMatch(text("xl/_rels/workbook.xml.rels"), /externalLink/);
  assert.doesNotMatch(text("[Content_Types].xml"), /externalLink/);
  const sheet = sheetJs(filled).Sheets.Questions as unknown as Sheet;
  for (const [ref, cell] of Object.entries(sheet)) {
    if (!ref.startsWith("!")) assert.equal((cell as { f?: string }).f, undefined, ref);
  }
  // The buyer's formula in the answer cell is its value now, and not written over.
  assert.equal(sheet.C2.v, "Click me");
  assert.equal(sheet.D3.v, "#N/A");
  assert.equal(sheet.D4.v, "linked");
  assertOnlyAnswersChanged(original, filled, read, []);
});

Deno.test("[questionnaire] free-form CSVs in UTF-8, UTF-16LE, Windows-1252 and with semicolons read alike", async () => {
  const expected = FREE_FORM_ROWS.slice(1).map(([id, question]) => [id, question]);
  const cases: [string, string, boolean][] = [
    ["free_form_utf8.csv", "utf-8", false],
    ["free_form_utf8_bom.csv", "utf-8", true],
    ["free_form_utf16le.csv", "utf-16le", true],
    ["free_form_windows1252.csv", "windows-1252", false],
    ["free_form_semicolon.csv", "utf-8", false],
  ];
  for (const [name, encoding, bom] of cases) {
    const original = await fixture(name);
    const read = await readQuestionnaire(original);
    assert.equal(read.format, "csv", name);
    assert.equal(read.encoding, encoding, name);
    assert.deepEqual(read.columns, [{
      sheet: "CSV",
      headerRow: 1,
      question: "B",
      id: "A",
      answer: "C",
      evidence: "D",
    }], name);
    assert.deepEqual(read.rows.map((r) => [r.questionId, r.question]), expected, name);
    const fills = fillsFor(read);
    const filled = await fillQuestionnaire(original, read, fills);
    // Same encoding and byte order mark: decoding the output the same way gives the records.
    const label = encoding === "utf-16le" ? "utf-16le" : encoding;
    const text = new TextDecoder(label, { ignoreBOM: true }).decode(filled);
    assert.equal(text.startsWith("\ufeff"), bom, name);
    const delimiter = name.includes("semicolon") ? ";" : ",";
    const before = Papa.parse<string[]>(
      new TextDecoder(label).decode(original),
      { delimiter },
    ).data;
    const after = Papa.parse<string[]>(text.replace(/^\ufeff/, ""), { delimiter }).data;
    assert.equal(after.length, before.length, name);
    const byRow = new Map(read.rows.map((r) => [r.row, r]));
    const byKey = new Map(fills.map((f) => [f.key, f]));
    after.forEach((fields, i) => {
      if (i === 0) return;
      const row = byRow.get(i + 1);
      if (!row) return assert.deepEqual(fields, before[i], `${name} row ${i + 1}`);
      const fill = byKey.get(row.key);
      assert.deepEqual(fields.slice(0, 2), before[i].slice(0, 2), `${name} row ${i + 1}`);
      const answer = fill?.answer ?? NO_ANSWER;
      assert.equal(
        fields[2],
        /^[=+\-@]/.test(answer) ? `'${answer}` : answer.replace(/\n-/, "\n'-"),
      );
      // The buyer's Comments column keeps its notes; the evidence goes in a new column.
      assert.equal(fields[3], before[i][3], `${name} row ${i + 1}`);
      assert.equal(fields[4] ?? "", fill ? fill.evidence : "", `${name} row ${i + 1}`);
    });
    assert.deepEqual(after[0], [...before[0], "Evidence"], name);
    assert.deepEqual(await fillQuestionnaire(original, read, fills), filled, "deterministic");
  }
});

Deno.test("[questionnaire] a CSV with formula cells comes back with every one of them inert", async () => {
  const original = await fixture("formulas.csv");
  const read = await readQuestionnaire(original);
  assert.equal(read.rows[0].question, "=cmd|' /C calc'!A0");
  const filled = await fillQuestionnaire(original, read, [{
    key: read.rows[2].key,
    answer: "+SUM(1,2)",
    evidence: "@evil",
  }]);
  const records = Papa.parse<string[]>(new TextDecoder().decode(filled)).data
    .filter((r) => r.length > 1);
  for (const record of records) {
    for (const field of record) assert.doesNotMatch(field, /^[=+\-@\t\r]/, field);
  }
  assert.equal(records[1][1], "'=cmd|' /C calc'!A0");
  // The buyer's own "@SUM(A1)" is kept (made inert), never written over.
  assert.equal(records[2][2], "'@SUM(A1)");
  assert.equal(records[3][2], "'+SUM(1,2)");
  // Notes holds the buyer's formulas: the evidence goes to a new column.
  assert.equal(records[3][3], `'=HYPERLINK("https://attacker.example/","x")`);
  assert.equal(records[3][4], "'@evil");
});

Deno.test("[questionnaire] a zip bomb is refused before it is inflated, in bounded memory", async () => {
  const bomb = await fixture("bomb.xlsx");
  const before = Deno.memoryUsage().rss;
  const error = await refused(readQuestionnaire(bomb), "over_limit");
  assert.match(error.message, /unzipped/);
  // The sheet inflates to 512 MiB; reading stops at the 64 MiB budget.
  const growth = Deno.memoryUsage().rss - before;
  assert.ok(growth < 256 * 1024 * 1024, `rss grew by ${growth} bytes`);
  // Lying about the sizes in the central directory changes nothing: they are never trusted.
  const lying = bomb.slice();
  const view = new DataView(lying.buffer);
  for (let at = 0; at + 46 < lying.length; at++) {
    if (view.getUint32(at, true) === 0x02014b50) {
      view.setUint32(at + 24, 1000, true);
      view.setUint32(at + 20, view.getUint32(at + 20, true), true);
    }
  }
  await refused(readQuestionnaire(lying), "over_limit");
  const empty: ReadQuestionnaire = {
    format: "xlsx",
    encoding: null,
    sheets: [],
    columns: [],
    rows: [],
    others: [],
  };
  await refused(fillQuestionnaire(lying, empty, []), "over_limit");
});

Deno.test("[questionnaire] 100,000 rows, macro-enabled, malformed and wrong types are refused", async () => {
  await refused(readQuestionnaire(await fixture("rows_100000.xlsx")), "over_limit");
  await refused(readQuestionnaire(await fixture("macro_enabled.xlsm")), "unsupported_type");
  const caiq = await fixture("caiq_v4.0.3.xlsx");
  await refused(readQuestionnaire(caiq.slice(0, caiq.length - 200)), "malformed");
  await refused(readQuestionnaire(caiq.slice(0, 3000)), "malformed");
  const wrong: [string, number[]][] = [
    ["PDF", [...strToU8("%PDF-1.7\n%âãÏÓ\n1 0 obj")]],
    ["PNG", [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]],
    ["legacy xls / encrypted OOXML", [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0]],
    ["binary", [1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 9, 10, 11]],
  ];
  for (const [, bytes] of wrong) {
    await refused(readQuestionnaire(new Uint8Array(bytes)), "unsupported_type");
  }
  // A ZIP that is not a workbook.
  const notBook = zipSync({ "readme.txt": strToU8("hello") });
  await refused(readQuestionnaire(notBook), "unsupported_type");
  // An encrypted entry.
  const encrypted = zipSync({ "[Content_Types].xml": strToU8("<Types/>") });
  const view = new DataView(encrypted.buffer);
  for (let at = 0; at + 4 < encrypted.length; at++) {
    const signature = view.getUint32(at, true);
    if (signature === 0x04034b50) view.setUint16(at + 6, 1, true);
    if (signature === 0x02014b50) view.setUint16(at + 8, 1, true);
  }
  await refused(readQuestionnaire(encrypted), "unsupported_type");
  await refused(
    readQuestionnaire(new Uint8Array(QUESTIONNAIRE_LIMITS.maxFileBytes + 1)),
    "too_large",
  );
  await refused(readQuestionnaire(new Uint8Array(0)), "malformed");
  await refused(readQuestionnaire(strToU8('Question,Answer\n"Is it open?,\n')), "malformed");
  await refused(readQuestionnaire(strToU8('Question,Answer\n"Is it" open?,\n')), "malformed");
  await refused(readQuestionnaire(strToU8("Name,Value\nA,1\n")), "no_questions");
  const rows = ["Question,Answer", ...Array.from({ length: 20_001 }, (_, i) => `Q${i}?,`)];
  await refused(readQuestionnaire(strToU8(rows.join("\n"))), "over_limit");
  const long = `Question\n${"x".repeat(QUESTIONNAIRE_LIMITS.maxCellChars + 1)}\n`;
  await refused(readQuestionnaire(strToU8(long)), "over_limit");
});

Deno.test("[questionnaire] the caller's columns are validated and used", async () => {
  const original = await fixture("caiq_v4.0.3.xlsx");
  const columns = [{
    sheet: "CAIQv4.0.3",
    headerRow: 3,
    question: "B",
    id: "A",
    answer: "C",
    evidence: "F",
  }];
  const read = await readQuestionnaire(original, { columns });
  assert.deepEqual(read.columns, columns);
  assert.equal(read.rows[0].existingAnswer, "Yes");
  const filled = await fillQuestionnaire(original, read, fillsFor(read));
  assertOnlyAnswersChanged(original, filled, read, fillsFor(read));
  const bad = [
    { ...columns[0], sheet: "Nope" },
    { ...columns[0], question: "a1" },
    { ...columns[0], answer: "ZZZZ" },
    { ...columns[0], answer: "B" },
    { ...columns[0], evidence: "C" },
    { ...columns[0], headerRow: 0 },
  ];
  for (const choice of bad) {
    await refused(readQuestionnaire(original, { columns: [choice] }), "invalid_columns");
  }
  await refused(
    readQuestionnaire(original, { columns: [{ ...columns[0], sheet: "Summary" }] }),
    "no_questions",
  );
});

/** A workbook written by hand: the XML forms ExcelJS does not write. */
function handWorkbook(sheetXml: string, sharedStrings: string): Uint8Array {
  const main = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
  const rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
  return zipSync({
    "[Content_Types].xml": strToU8(
      `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
        `<Default Extension="xml" ContentType="application/xml"/>` +
        `<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>` +
        `<Override PartName="/xl/worksheets/s1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>` +
        `<Override PartName="/xl/strings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>`,
    ),
    "_rels/.rels": strToU8(
      `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
        `<Relationship Id="r1" Type="${rel}/officeDocument" Target="/xl/workbook.xml"/></Relationships>`,
    ),
    "xl/workbook.xml": strToU8(
      `<x:workbook xmlns:x="${main}" xmlns:r="${rel}"><x:sheets>` +
        `<x:sheet name="Q &amp; A" sheetId="1" r:id="rId1"/></x:sheets></x:workbook>`,
    ),
    "xl/_rels/workbook.xml.rels": strToU8(
      `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
        `<Relationship Id="rId1" Type="${rel}/worksheet" Target="worksheets/s1.xml"/>` +
        `<Relationship Id="rId2" Type="${rel}/sharedStrings" Target="strings.xml"/></Relationships>`,
    ),
    "xl/strings.xml": strToU8(`<sst xmlns="${main}">${sharedStrings}</sst>`),
    "xl/worksheets/s1.xml": strToU8(`<x:worksheet xmlns:x="${main}">${sheetXml}</x:worksheet>`),
  }, { mtime: new Date(Date.UTC(2026, 0, 1)) });
}

Deno.test("[questionnaire] XML forms: prefixes, rows and cells without r, rich text, inline strings, entities, booleans", async () => {
  const strings =
    `<si><t>Question</t></si><si><r><t>Is data </t></r><r><rPr><b/></rPr><t>encrypted</t></r>` +
    `<rPh><t>PHONETIC</t></rPh><r><t xml:space="preserve"> &amp; &#x2713;?</t></r></si><si><t>Answer</t></si>`;
  const sheet = `<x:dimension ref="A1:C3"/><x:sheetData>` +
    `<x:row><x:c t="s"><x:v>0</x:v></x:c><x:c t="s" s="2"><x:v>2</x:v></x:c></x:row>` +
    `<x:row><x:c t="s"><x:v>1</x:v></x:c><x:c t="b"><x:v>1</x:v></x:c></x:row>` +
    `<x:row r="4"><x:c t="inlineStr"><x:is><x:t>Q &lt;3&gt; _x000D_ok?</x:t></x:is></x:c><x:c><x:f>1+1</x:f><x:v>2</x:v></x:c><x:c r="D4" s="5"><x:v>3.5</x:v></x:c></x:row>` +
    `</x:sheetData>`;
  const book = handWorkbook(sheet, strings);
  const read = await readQuestionnaire(book);
  assert.deepEqual(read.columns[0], {
    sheet: "Q & A",
    headerRow: 1,
    question: "A",
    id: null,
    answer: "B",
    evidence: null,
  });
  assert.deepEqual(read.rows.map((r) => [r.row, r.question, r.existingAnswer]), [
    [2, "Is data encrypted & ✓?", "TRUE"],
    [4, "Q <3> \rok?", "2"],
  ]);
  const filled = await fillQuestionnaire(book, read, [{
    key: read.rows[1].key,
    answer: "Yes & <done>",
    evidence: "Edited by the vendor\nhttps://e.example/?a=1&b=2\nhttps://e.example/other",
  }]);
  const parsed = sheetJs(filled);
  const out = parsed.Sheets["Q & A"];
  assert.equal(out.A2.v, "Is data encrypted & ✓?");
  // B2 holds the buyer's TRUE, B4 a formula: neither is written over (the formula is its value).
  assert.equal(out.B2.v, true);
  assert.equal(out.B4.v, 2);
  assert.equal(out.B4.f, undefined);
  assert.equal(
    out.E4.v,
    "Edited by the vendor\nhttps://e.example/?a=1&b=2\nhttps://e.example/other",
  );
  assert.equal(linkOf(out.E4), "https://e.example/?a=1&b=2", "the first URL line is the link");
  assert.equal(out.E1.v, "Evidence");
  assert.equal(out.D4.v, 3.5);
  assert.equal(out["!ref"], "A1:E4");
  // Our own reader reads what it wrote: the same rows, the answers in place.
  const again = await readQuestionnaire(filled);
  assert.deepEqual(again.rows.map((r) => r.existingAnswer), ["TRUE", "2"]);
  const xml = new TextDecoder().decode(unzipSync(filled)["xl/worksheets/s1.xml"]);
  assert.match(xml, /<x:c r="B1" t="s" s="2">|<x:c t="s" s="2" r="B1">|<x:c r="B1" t="s" s="2"/);
  assert.match(xml, /<x:c r="D4" s="5">/);
  await refused(
    readQuestionnaire(handWorkbook(`<!DOCTYPE x [<!ENTITY a "b">]><x:sheetData/>`, "")),
    "malformed",
  );
});

Deno.test("[questionnaire] 5,000 questions are read and filled; one more is refused", async () => {
  const sheet = (count: number) =>
    `<sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>Question ID</t></is></c>` +
    `<c r="B1" t="inlineStr"><is><t>Question</t></is></c><c r="C1" t="inlineStr"><is><t>Answer</t></is></c></row>` +
    Array.from(
      { length: count },
      (_, i) =>
        `<row r="${i + 2}"><c r="A${i + 2}" t="inlineStr"><is><t>Q-${i + 1}</t></is></c>` +
        `<c r="B${i + 2}" t="inlineStr"><is><t>Is control ${i + 1} in place?</t></is></c></row>`,
    ).join("") +
    `</sheetData>`;
  const book = handWorkbook(sheet(QUESTIONNAIRE_LIMITS.maxQuestions), "");
  const read = await readQuestionnaire(book);
  assert.equal(read.rows.length, QUESTIONNAIRE_LIMITS.maxQuestions);
  const fills = read.rows.map((row) => ({
    key: row.key,
    answer: `Yes (${row.questionId})`,
    evidence: `https://trust.example/acme/v/1#${row.questionId}`,
  }));
  const filled = await fillQuestionnaire(book, read, fills);
  const out = sheetJs(filled).Sheets["Q & A"];
  assert.equal(out.C5001.v, "Yes (Q-5000)");
  assert.equal(linkOf(out.D5001), "https://trust.example/acme/v/1#Q-5000");
  await refused(
    readQuestionnaire(handWorkbook(sheet(QUESTIONNAIRE_LIMITS.maxQuestions + 1), "")),
    "over_limit",
  );
});

Deno.test("[questionnaire] a workbook SheetJS wrote is read and filled (a third writer's layout)", async () => {
  const book = SheetJS.utils.book_new();
  SheetJS.utils.book_append_sheet(
    book,
    SheetJS.utils.aoa_to_sheet([
      ["Ref", "Requirement", "Vendor Response", "Evidence"],
      ["R1", "Describe how customer data is encrypted", null, null],
      ["R2", "Describe your incident response process", "In progress", null],
    ]),
    "Security",
  );
  const bytes = new Uint8Array(SheetJS.write(book, { type: "array", bookType: "xlsx" }));
  const read = await readQuestionnaire(bytes);
  assert.deepEqual(read.columns, [{
    sheet: "Security",
    headerRow: 1,
    question: "B",
    id: "A",
    answer: "C",
    evidence: "D",
  }]);
  assert.deepEqual(read.rows.map((r) => [r.questionId, r.existingAnswer]), [
    ["R1", null],
    ["R2", "In progress"],
  ]);
  const fills = [{ key: read.rows[0].key, answer: "AES-256", evidence: "https://e.example/1" }];
  const filled = await fillQuestionnaire(bytes, read, fills);
  assertOnlyAnswersChanged(bytes, filled, read, fills);
});

Deno.test("[questionnaire] UTF-16BE, UTF-16 without a byte order mark, and what Windows-1252 cannot hold", async () => {
  const text = "Question;Answer\r\nIs data encrypted – at rest?;\r\n";
  const encode = (little: boolean, bom: boolean) => {
    const out = new Uint8Array((text.length + (bom ? 1 : 0)) * 2);
    const chars = (bom ? "\ufeff" : "") + text;
    for (let i = 0; i < chars.length; i++) {
      const code = chars.charCodeAt(i);
      out[2 * i] = little ? code & 0xff : code >> 8;
      out[2 * i + 1] = little ? code >> 8 : code & 0xff;
    }
    return out;
  };
  const cases: [Uint8Array, string][] = [
    [encode(false, true), "utf-16be"],
    [encode(true, false), "utf-16le"],
    [encode(false, false), "utf-16be"],
  ];
  for (const [bytes, encoding] of cases) {
    const read = await readQuestionnaire(bytes);
    assert.equal(read.encoding, encoding);
    assert.deepEqual(read.rows.map((r) => r.question), ["Is data encrypted – at rest?"]);
    const filled = await fillQuestionnaire(bytes, read, [{
      key: read.rows[0].key,
      answer: "Yes – AES-256 ✓",
      evidence: "https://e.example/enc",
    }]);
    assert.equal(filled.length % 2, 0);
    assert.deepEqual(filled.slice(0, 2), bytes.slice(0, 2), "same byte order (and mark)");
    const back = new TextDecoder(encoding).decode(filled);
    // The new evidence column is headed, in the same encoding.
    assert.equal(
      back,
      "Question;Answer;Evidence\r\nIs data encrypted – at rest?;Yes – AES-256 ✓;https://e.example/enc\r\n",
    );
  }
  // Windows-1252 has "–" (0x96) but no "✓": written as "?".
  const cp1252 = new Uint8Array([
    ...strToU8("Question,Answer\nIs it caf"),
    0xe9,
    ...strToU8("?,\n"),
  ]);
  const read = await readQuestionnaire(cp1252);
  assert.equal(read.encoding, "windows-1252");
  assert.equal(read.rows[0].question, "Is it café?");
  const filled = await fillQuestionnaire(cp1252, read, [{
    key: read.rows[0].key,
    answer: "Yes – ✓",
    evidence: "",
  }]);
  assert.deepEqual(
    [...filled],
    [
      ...strToU8("Question,Answer\nIs it caf"),
      0xe9,
      ...strToU8("?,Yes "),
      0x96,
      ...strToU8(" ?\n"),
    ],
  );
});

Deno.test("[questionnaire] several question sheets, and a tab-separated CSV with CR line endings", async () => {
  const book = SheetJS.utils.book_new();
  SheetJS.utils.book_append_sheet(
    book,
    SheetJS.utils.aoa_to_sheet([["Question", "Answer"], ["Do you patch monthly?", null]]),
    "Operations",
  );
  SheetJS.utils.book_append_sheet(
    book,
    SheetJS.utils.aoa_to_sheet([
      ["Title", "Vendor questionnaire"],
      [],
      ["No.", "Control Question", "Response", "Notes"],
      ["1", "Is there a privacy officer?", null, "ask legal"],
      ["2", "Are subprocessors listed?", null, null],
    ]),
    "Privacy",
  );
  const bytes = new Uint8Array(SheetJS.write(book, { type: "array", bookType: "xlsx" }));
  const read = await readQuestionnaire(bytes);
  assert.deepEqual(read.columns, [
    { sheet: "Operations", headerRow: 1, question: "A", id: null, answer: "B", evidence: null },
    { sheet: "Privacy", headerRow: 3, question: "B", id: "A", answer: "C", evidence: "D" },
  ]);
  assert.deepEqual(read.rows.map((r) => r.key), ["0:2", "1:4", "1:5"]);
  const fills = [
    { key: "0:2", answer: "Yes", evidence: "https://e.example/ops" },
    { key: "1:5", answer: "Yes, on our trust page", evidence: "https://e.example/sub" },
  ];
  const filled = await fillQuestionnaire(bytes, read, fills);
  assertOnlyAnswersChanged(bytes, filled, read, fills);

  const tsv = strToU8("Question\tAnswer\tComments\rIs MFA on?\t\tnone\rIs SSO on?\t\t\r");
  const tab = await readQuestionnaire(tsv);
  assert.deepEqual(tab.columns[0], {
    sheet: "CSV",
    headerRow: 1,
    question: "A",
    id: null,
    answer: "B",
    evidence: "C",
  });
  const out = await fillQuestionnaire(tsv, tab, [{
    key: tab.rows[1].key,
    answer: "Yes, for all staff",
    evidence: "https://e.example/sso",
  }]);
  assert.equal(
    new TextDecoder().decode(out),
    'Question\tAnswer\tComments\tEvidence\rIs MFA on?\tNo answer\tnone\rIs SSO on?\t"Yes, for all staff"\t\thttps://e.example/sso\r',
  );
});
