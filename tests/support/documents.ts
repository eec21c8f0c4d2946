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
