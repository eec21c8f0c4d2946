/**
 * The answers' CSV export is inert in any spreadsheet locale: a cell a reader could take as a
 * formula, at its start or right after a separator a semicolon (or tab) locale splits on, gets
 * an apostrophe where the formula would start and is quoted. Read back with Papa Parse with
 * "," (the file's separator) and ";" (what a semicolon locale uses), no field any reader sees
 * starts a formula, and the "," reading gives every cell as written, apostrophes aside.
 */
import assert from "node:assert/strict";
import { answersCsv, csvField } from "../../src/serve/answers_export.ts";
import type { ExportRow } from "../../src/serve/answers.ts";
import { createTestApp } from "../support/app.ts";
import { workspace } from "../support/fixtures.ts";
import { Papa } from "../deps.ts";

const HOSTILE = [
  "a;=cmd|' /C calc'!A0",
  "=1+1",
  "@SUM(A1)",
  "-2+3",
  "+1",
  "\t=1",
  "\r=1",
  "x,=1+1",
  "x\n=1+1",
  "x\r\n@SUM(A1)",
  "x\t-2",
  'a;b;=HYPERLINK("http://evil.example")',
];

/** Whether a spreadsheet would read `field` as a formula. */
const formula = (field: string) => /^[=+\-@\t\r]/.test(field);

function row(text: string): ExportRow {
  return {
    questionnaire: "other",
    questionId: "Q-1",
    status: "answered",
    question: text,
    answer: text,
    category: text,
    citations: text,
    url: "http://trust.test/public/trust/acme/answers#answer-1",
  };
}

function read(csv: string, delimiter: string): string[][] {
  const parsed = Papa.parse<string[]>(csv.replace(/^\ufeff/, ""), {
    delimiter,
    newline: "\r\n",
    skipEmptyLines: true,
  });
  assert.deepEqual(parsed.errors, [], `${delimiter}: ${JSON.stringify(parsed.errors)}`);
  return parsed.data;
}

Deno.test("[serve] answers CSV: no field starts a formula, whatever the reader's separator", async (t) => {
  const csv = new TextDecoder().decode(answersCsv(HOSTILE.map(row)));

  await t.step("read with ',': each cell as written, an apostrophe before each trigger", () => {
    const rows = read(csv, ",").slice(1);
    assert.equal(rows.length, HOSTILE.length);
    rows.forEach((cells, i) => {
      assert.equal(cells.length, 8, JSON.stringify(cells));
      for (const cell of cells.slice(3, 7)) {
        assert.ok(!formula(cell), JSON.stringify(cell));
        assert.equal(cell.replaceAll("'", ""), HOSTILE[i].replaceAll("'", ""));
      }
    });
    assert.equal(rows[0][4], "a;'=cmd|' /C calc'!A0");
    assert.equal(rows[1][4], "'=1+1");
    assert.equal(rows[2][4], "'@SUM(A1)");
    assert.equal(rows[3][4], "'-2+3");
    assert.equal(rows[7][4], "x,'=1+1");
    assert.equal(rows[8][4], "x\n'=1+1");
    assert.equal(rows[5][4], "'\t'=1");
    assert.equal(rows[6][4], "'\r'=1");
  });

  await t.step("read with ';': no field starts a formula", () => {
    const rows = read(csv, ";");
    for (const cells of rows) {
      for (const cell of cells) assert.ok(!formula(cell), JSON.stringify(cell));
    }
    // A ";" reader takes a quote inside a field as text, so line breaks in cells start rows.
    assert.ok(rows.length > HOSTILE.length);
  });

  await t.step("read with ';', splitting the ',' of each line as well: nothing starts one", () => {
    for (const line of csv.replace(/^\ufeff/, "").split(/\r\n|\n|\r/)) {
      for (const piece of line.split(/[;,\t]/)) {
        assert.ok(!formula(piece.replace(/^"/, "")), JSON.stringify(piece));
      }
    }
  });

  await t.step("plain cells stay as they are, unquoted", () => {
    assert.equal(csvField("Encryption"), "Encryption");
    assert.equal(csvField("A-1 and 2=2"), "A-1 and 2=2");
    assert.equal(csvField('say "hi"'), '"say ""hi"""');
    assert.equal(csvField("a;b"), '"a;b"');
  });
});

Deno.test("[http] answers.csv of a hostile answer reads back inert with ',' and ';'", async () => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "carol", { projectSlug: "acme", visibility: "public" });
  for (const [i, text] of ["a;=cmd|' /C calc'!A0", "=1+1", "@SUM(A1)", "-2+3"].entries()) {
    const res = await ctx.call("POST", `/organizations/${ws.organization.id}/answers`, {
      token: ws.token,
      json: {
        question: `Question ${i} ${text}`,
        answer: `Answer ${i};${text}`,
        category: text,
        visibility: "public",
        questionnaireRefs: [{ questionnaire: "other", id: `Q-${i}` }],
      },
    });
    assert.equal(res.status, 201, await res.text());
  }
  const res = await ctx.call("GET", `/public/trust/${ws.organization.slug}/answers.csv`);
  assert.equal(res.status, 200);
  const csv = await res.text();
  for (const delimiter of [",", ";"]) {
    const rows = read(csv, delimiter);
    assert.equal(rows.length, 5, delimiter);
    for (const cells of rows) {
      for (const cell of cells) assert.ok(!formula(cell), `${delimiter} ${JSON.stringify(cell)}`);
    }
  }
  const categories = read(csv, ",").slice(1).map((cells) => cells[5]).sort();
  assert.deepEqual(categories, ["'-2+3", "'=1+1", "'@SUM(A1)", "a;'=cmd|' /C calc'!A0"]);
});
