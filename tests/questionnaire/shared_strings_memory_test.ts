/**
 * The shared-strings bomb: a workbook of about 130 to 160 KB whose sharedStrings.xml unzips to
 * 63 MiB (3.9 million one-letter entries, or one entry of 4.4 million rich-text runs) is refused
 * (`over_limit`, a 413 over HTTP) in bounded memory, alone and three at once. Each reading runs
 * in its own process (tests/questionnaire/_shared_strings_rss.ts) so the peak RSS it reports is
 * the reading's alone. Before the shared strings had their own budget the three took 518 MB
 * (one: 260 and 336 MB) and up to 25 s.
 */
import assert from "node:assert/strict";
import { strToU8, zipSync } from "fflate";

const MB = 1_000_000;
/** Peak RSS growth allowed for one bomb, and for three read at once. */
const ONE_BUDGET = 150 * MB;
const THREE_BUDGET = 200 * MB;

const SST = `<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">`;
const UNZIPPED = 63 * 1024 * 1024;

/** A minimal workbook: one sheet naming shared string 0, and the given sharedStrings.xml. */
export function sharedStringsWorkbook(shared: string): Uint8Array {
  const rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
  const pkg = "http://schemas.openxmlformats.org/package/2006";
  const main = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
  return zipSync({
    "[Content_Types].xml": strToU8(
      `<Types xmlns="${pkg}/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/></Types>`,
    ),
    "_rels/.rels": strToU8(
      `<Relationships xmlns="${pkg}/relationships"><Relationship Id="rId1" Type="${rel}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    ),
    "xl/workbook.xml": strToU8(
      `<workbook xmlns="${main}" xmlns:r="${rel}"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    ),
    "xl/_rels/workbook.xml.rels": strToU8(
      `<Relationships xmlns="${pkg}/relationships"><Relationship Id="rId1" Type="${rel}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="${rel}/sharedStrings" Target="sharedStrings.xml"/></Relationships>`,
    ),
    "xl/worksheets/sheet1.xml": strToU8(
      `<worksheet xmlns="${main}"><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c></row></sheetData></worksheet>`,
    ),
    "xl/sharedStrings.xml": [strToU8(shared), { level: 9 }],
  });
}

/** 3.9 million one-letter shared strings. */
export function manyStringsBomb(): Uint8Array {
  return sharedStringsWorkbook(`${SST}${"<si><t>a</t></si>".repeat(UNZIPPED / 17)}</sst>`);
}

/** One shared string of 4.4 million one-letter rich-text runs. */
export function manyRunsBomb(): Uint8Array {
  return sharedStringsWorkbook(`${SST}<si>${"<r><t>a</t></r>".repeat(UNZIPPED / 15)}</si></sst>`);
}

async function readInProcess(paths: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--v8-flags=--expose-gc",
      new URL("./_shared_strings_rss.ts", import.meta.url).pathname,
      ...paths,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  return JSON.parse(new TextDecoder().decode(out.stdout).trim().split("\n").at(-1)!) as {
    growthBytes: number;
    ms: number;
    outcomes: string[];
  };
}

Deno.test({
  name:
    "[questionnaire] a shared-strings bomb is refused in bounded memory, alone and three at once",
  ignore: Deno.build.os !== "linux", // peak RSS is read from /proc
  fn: async (t) => {
    const dir = await Deno.makeTempDir();
    try {
      const strings = `${dir}/strings.xlsx`;
      const runs = `${dir}/runs.xlsx`;
      const stringsBytes = manyStringsBomb();
      const runsBytes = manyRunsBomb();
      assert.ok(stringsBytes.length < 300_000 && runsBytes.length < 300_000, "small files");
      await Deno.writeFile(strings, stringsBytes);
      await Deno.writeFile(runs, runsBytes);
      for (const [name, path] of [["3.9 million entries", strings], ["4.4 million runs", runs]]) {
        await t.step(name, async () => {
          const result = await readInProcess([path]);
          assert.deepEqual(result.outcomes, ["over_limit"]);
          assert.ok(result.growthBytes < ONE_BUDGET, `RSS grew ${result.growthBytes / MB} MB`);
        });
      }
      await t.step("three at once", async () => {
        const result = await readInProcess([strings, runs, strings]);
        assert.deepEqual(result.outcomes, ["over_limit", "over_limit", "over_limit"]);
        assert.ok(result.growthBytes < THREE_BUDGET, `RSS grew ${result.growthBytes / MB} MB`);
      });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
