/**
 * Real documents for tests: a PDF made with @cantoo/pdf-lib, and Office files built as
 * ZIP archives (stored entries with real CRC-32s) holding the parts each format requires.
 */
import assert from "node:assert/strict";
import { PDFDocument, StandardFonts } from "@cantoo/pdf-lib";
import type { TestApp } from "./app.ts";

/** A one-page PDF saying `text`. */
export async function makePdf(text = "Security report"): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage([400, 300]).drawText(text, { x: 40, y: 200, size: 14, font });
  return await doc.save();
}

/**
 * A PDF of `pages` empty US Letter pages, written directly as PDF text (one page tree, a
 * classic cross-reference table): 100 000 pages take about 0.1 s and 10 MB.
 */
export function manyPagePdf(pages: number): Uint8Array {
  const parts: string[] = ["%PDF-1.4\n"];
  const offsets: number[] = [];
  let length = parts[0].length;
  const object = (n: number, body: string) => {
    offsets[n] = length;
    const text = `${n} 0 obj\n${body}\nendobj\n`;
    parts.push(text);
    length += text.length;
  };
  object(1, "<< /Type /Catalog /Pages 2 0 R >>");
  const kids = Array.from({ length: pages }, (_, i) => `${i + 3} 0 R`).join(" ");
  object(2, `<< /Type /Pages /Count ${pages} /Kids [${kids}] >>`);
  for (let i = 0; i < pages; i++) {
    object(i + 3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>");
  }
  const size = pages + 3;
  const rows = ["xref", `0 ${size}`, "0000000000 65535 f "];
  for (let n = 1; n < size; n++) rows.push(`${String(offsets[n]).padStart(10, "0")} 00000 n `);
  parts.push(`${rows.join("\n")}\n`);
  parts.push(`trailer\n<< /Size ${size} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`);
  return new TextEncoder().encode(parts.join(""));
}

/**
 * A PDF of `pages` pages whose page objects live in one Flate-compressed object stream
 * (PDF 1.5, with a cross-reference stream), so a scan of its raw bytes sees no page.
 */
export async function compressedManyPagePdf(pages: number): Promise<Uint8Array> {
  const enc = new TextEncoder();
  const first = 3;
  const objStm = first + pages;
  const xrefNumber = objStm + 1;
  const bodies = Array.from(
    { length: pages },
    () => "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>",
  );
  let at = 0;
  const header: string[] = [];
  for (let i = 0; i < pages; i++) {
    header.push(`${first + i} ${at}`);
    at += bodies[i].length + 1;
  }
  const head = `${header.join(" ")}\n`;
  const inflated = enc.encode(head + bodies.join("\n") + "\n");
  const deflated = new Uint8Array(
    await new Response(
      new Blob([inflated]).stream().pipeThrough(new CompressionStream("deflate")),
    ).arrayBuffer(),
  );
  const chunks: Uint8Array[] = [];
  const offsets = new Map<number, number>();
  let length = 0;
  const push = (part: string | Uint8Array) => {
    const bytes = typeof part === "string" ? enc.encode(part) : part;
    chunks.push(bytes);
    length += bytes.length;
  };
  push("%PDF-1.5\n");
  offsets.set(1, length);
  push("1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n");
  offsets.set(2, length);
  const kids = Array.from({ length: pages }, (_, i) => `${first + i} 0 R`).join(" ");
  push(`2 0 obj\n<< /Type /Pages /Count ${pages} /Kids [${kids}] >>\nendobj\n`);
  offsets.set(objStm, length);
  push(
    `${objStm} 0 obj\n<< /Type /ObjStm /N ${pages} /First ${head.length} /Filter /FlateDecode ` +
      `/Length ${deflated.length} >>\nstream\n`,
  );
  push(deflated);
  push("\nendstream\nendobj\n");
  offsets.set(xrefNumber, length);
  const size = xrefNumber + 1;
  const rows = new Uint8Array(size * 7);
  const row = (n: number, type: number, field2: number, field3: number) => {
    const view = new DataView(rows.buffer, n * 7, 7);
    view.setUint8(0, type);
    view.setUint32(1, field2);
    view.setUint16(5, field3);
  };
  row(0, 0, 0, 65535);
  for (const n of [1, 2, objStm, xrefNumber]) row(n, 1, offsets.get(n)!, 0);
  for (let i = 0; i < pages; i++) row(first + i, 2, objStm, i);
  const xrefAt = length;
  push(
    `${xrefNumber} 0 obj\n<< /Type /XRef /Size ${size} /W [1 4 2] /Root 1 0 R ` +
      `/Length ${rows.length} >>\nstream\n`,
  );
  push(rows);
  push(`\nendstream\nendobj\nstartxref\n${xrefAt}\n%%EOF\n`);
  const out = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** A ZIP archive of stored (uncompressed) entries, in order. */
export function makeZip(entries: [string, string | Uint8Array][]): Uint8Array {
  const enc = new TextEncoder();
  const locals: Uint8Array[] = [];
  const centrals: Uint8Array[] = [];
  let offset = 0;
  for (const [name, content] of entries) {
    const nameBytes = enc.encode(name);
    const data = typeof content === "string" ? enc.encode(content) : content;
    const crc = crc32(data);
    const local = new Uint8Array(30 + nameBytes.length + data.length);
    const lv = new DataView(local.buffer);
    lv.setUint32(0, 0x04034b50, true);
    lv.setUint16(4, 20, true);
    lv.setUint32(14, crc, true);
    lv.setUint32(18, data.length, true);
    lv.setUint32(22, data.length, true);
    lv.setUint16(26, nameBytes.length, true);
    local.set(nameBytes, 30);
    local.set(data, 30 + nameBytes.length);
    const central = new Uint8Array(46 + nameBytes.length);
    const cv = new DataView(central.buffer);
    cv.setUint32(0, 0x02014b50, true);
    cv.setUint16(4, 20, true);
    cv.setUint16(6, 20, true);
    cv.setUint32(16, crc, true);
    cv.setUint32(20, data.length, true);
    cv.setUint32(24, data.length, true);
    cv.setUint16(28, nameBytes.length, true);
    cv.setUint32(42, offset, true);
    central.set(nameBytes, 46);
    locals.push(local);
    centrals.push(central);
    offset += local.length;
  }
  const size = centrals.reduce((n, c) => n + c.length, 0);
  const end = new Uint8Array(22);
  const ev = new DataView(end.buffer);
  ev.setUint32(0, 0x06054b50, true);
  ev.setUint16(8, entries.length, true);
  ev.setUint16(10, entries.length, true);
  ev.setUint32(12, size, true);
  ev.setUint32(16, offset, true);
  const out = new Uint8Array(offset + size + 22);
  let at = 0;
  for (const part of [...locals, ...centrals, end]) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

const CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`;
const RELS = `<?xml version="1.0" encoding="UTF-8"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`;
const DOCUMENT = `<?xml version="1.0" encoding="UTF-8"?>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>Security policy</w:t></w:r></w:p></w:body></w:document>`;

/** A minimal, valid .docx (one paragraph). */
export function makeDocx(): Uint8Array {
  return makeZip([
    ["[Content_Types].xml", CONTENT_TYPES],
    ["_rels/.rels", RELS],
    ["word/document.xml", DOCUMENT],
  ]);
}

/** A minimal OpenDocument text file (mimetype first and stored, as the format requires). */
export function makeOdt(): Uint8Array {
  return makeZip([
    ["mimetype", "application/vnd.oasis.opendocument.text"],
    ["content.xml", '<?xml version="1.0"?><office:document-content/>'],
  ]);
}

/** An organization with an owner, a member and a stranger. */
export async function documentsWorkspace(
  ctx: Pick<TestApp, "call" | "tokenFor">,
  options: { memberEmail?: string } = {},
) {
  const owner = await ctx.tokenFor("owner", { email: "owner@acme.test" });
  const member = await ctx.tokenFor("member", { email: "member@acme.test" });
  const stranger = await ctx.tokenFor("stranger", { email: "stranger@else.test" });
  const res = await ctx.call("POST", "/onboarding/bootstrap", {
    token: owner,
    json: { workspaceName: "Acme", projectName: "Acme Cloud", projectVisibility: "public" },
  });
  const { organization, project } = await res.json();
  const invited = await ctx.call("POST", `/organizations/${organization.id}/invitations`, {
    token: owner,
    json: { email: options.memberEmail ?? "member@acme.test", role: "member" },
  });
  const token = new URL((await invited.json()).acceptUrl).hash.slice("#invitation=".length);
  assert.equal(
    (await ctx.call("POST", `/invitations/${token}/accept`, { token: member })).status,
    200,
  );
  assert.equal((await ctx.call("GET", "/me", { token: stranger })).status, 200);
  return {
    owner,
    member,
    stranger,
    orgId: organization.id as string,
    orgSlug: organization.slug as string,
    projectId: project.id as string,
  };
}

/** Uploads `bytes` as the owner; returns the response. */
export function upload(
  ctx: Pick<TestApp, "call">,
  orgId: string,
  options: { token?: string; bytes: Uint8Array; query?: string; type?: string },
) {
  return ctx.call("POST", `/organizations/${orgId}/documents?${options.query ?? "title=Report"}`, {
    token: options.token,
    body: options.bytes as Uint8Array<ArrayBuffer>,
    headers: { "content-type": options.type ?? "application/pdf" },
  });
}
