import assert from "node:assert/strict";
import { MAX_DOCUMENT_BYTES } from "../../src/domain/documents.ts";
import { createTestApp, snapshotKv } from "../support/app.ts";
import {
  documentsWorkspace,
  makeDocx,
  makeOdt,
  makePdf,
  makeZip,
  upload,
} from "../support/documents.ts";

const enc = (text: string) => new TextEncoder().encode(text);

Deno.test("[http] documents: uploads are sniffed, size-limited and owner-only", async (t) => {
  await using ctx = await createTestApp();
  const { owner, member, stranger, orgId, projectId } = await documentsWorkspace(ctx);
  const pdf = await makePdf();

  await t.step("accepted types are told from the bytes, whatever the declared type", async () => {
    const table: [string, Uint8Array, string, string][] = [
      ["pdf", pdf, "application/octet-stream", "application/pdf"],
      [
        "docx",
        makeDocx(),
        "application/pdf",
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
      ],
      ["odt", makeOdt(), "application/octet-stream", "application/vnd.oasis.opendocument.text"],
    ];
    for (const [type, bytes, declared, contentType] of table) {
      const res = await upload(ctx, orgId, {
        token: owner,
        bytes,
        type: declared,
        query: `title=${type}&visibility=public`,
      });
      assert.equal(res.status, 201, type);
      const { document } = await res.json();
      assert.equal(document.type, type);
      assert.equal(document.contentType, contentType);
      assert.equal(document.size, bytes.length);
      assert.equal(document.visibility, "public");
      assert.equal(document.createdBy.email, "owner@acme.test");
    }
  });

  await t.step("anything else is 415, and nothing is stored", async () => {
    const before = await snapshotKv(ctx.kv);
    const table: [string, Uint8Array][] = [
      [
        "an executable renamed .pdf",
        new Uint8Array([
          0x4d,
          0x5a,
          0x90,
          0,
          3,
          0,
          0,
          0,
          ...enc("This program cannot be run in DOS mode"),
        ]),
      ],
      ["HTML sent as a PDF", enc("<!doctype html><script>alert(1)</script>")],
      ["a truncated PDF", pdf.slice(0, pdf.length - 200)],
      [
        "a legacy .doc",
        new Uint8Array([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0, 0, 0]),
      ],
      ["a plain ZIP", makeZip([["readme.txt", "hello"]])],
      [
        "a macro-enabled .docm",
        makeZip([["[Content_Types].xml", "<Types/>"], ["word/document.xml", "<w/>"], [
          "word/vbaProject.bin",
          "x",
        ]]),
      ],
      ["an SVG", enc('<svg xmlns="http://www.w3.org/2000/svg"></svg>')],
    ];
    for (const [name, bytes] of table) {
      const res = await upload(ctx, orgId, { token: owner, bytes });
      assert.equal(res.status, 415, name);
      assert.equal((await res.json()).error.code, "unsupported_media_type", name);
    }
    const empty = await upload(ctx, orgId, { token: owner, bytes: new Uint8Array(0) });
    assert.equal(empty.status, 400);
    await empty.body?.cancel();
    assert.equal(await snapshotKv(ctx.kv), before);
  });

  await t.step("over 20 MiB is 413; just under is accepted", async () => {
    const before = await snapshotKv(ctx.kv);
    const big = new Uint8Array(MAX_DOCUMENT_BYTES + 1);
    big.set(pdf);
    const res = await upload(ctx, orgId, { token: owner, bytes: big });
    assert.equal(res.status, 413);
    await res.body?.cancel();
    assert.equal(await snapshotKv(ctx.kv), before);
    const padded = new Uint8Array(MAX_DOCUMENT_BYTES);
    padded.set(pdf.slice(0, pdf.length - 6));
    padded.set(enc("%%EOF\n"), MAX_DOCUMENT_BYTES - 6);
    const ok = await upload(ctx, orgId, { token: owner, bytes: padded, query: "title=Big" });
    assert.equal(ok.status, 201);
    assert.equal((await ok.json()).document.size, MAX_DOCUMENT_BYTES);
  });

  await t.step(
    "bad query, foreign project: 400; anonymous 401; member and stranger 403",
    async () => {
      const before = await snapshotKv(ctx.kv);
      const attempts: [string | undefined, string, number][] = [
        [undefined, "title=X", 401],
        [member, "title=X", 403],
        [stranger, "title=X", 403],
        [owner, "", 400],
        [owner, "title=X&visibility=secret", 400],
        [owner, `title=X&projectId=${crypto.randomUUID()}`, 400],
        [owner, "title=a%0Ab", 400],
      ];
      for (const [token, query, status] of attempts) {
        const res = await upload(ctx, orgId, { token, bytes: pdf, query });
        assert.equal(res.status, status, `${query} ${status}`);
        await res.body?.cancel();
      }
      const elsewhere = await upload(ctx, crypto.randomUUID(), { token: owner, bytes: pdf });
      assert.equal(elsewhere.status, 403);
      await elsewhere.body?.cancel();
      assert.equal(await snapshotKv(ctx.kv), before);
      const attached = await upload(ctx, orgId, {
        token: owner,
        bytes: pdf,
        query: `title=P&projectId=${projectId}`,
      });
      assert.equal((await attached.json()).document.projectId, projectId);
    },
  );
});

Deno.test("[http] documents: members read, owners change; public list and downloads", async (t) => {
  await using ctx = await createTestApp();
  const { owner, member, stranger, orgId, orgSlug } = await documentsWorkspace(ctx);
  const pdf = await makePdf("Public policy");
  const open = (await (await upload(ctx, orgId, {
    token: owner,
    bytes: pdf,
    query: "title=Policy&visibility=public",
  })).json()).document;
  const secret = (await (await upload(ctx, orgId, {
    token: owner,
    bytes: makeDocx(),
    query: "title=SOC%202%20report",
  })).json()).document;
  const path = `/organizations/${orgId}/documents`;

  await t.step("members list them; strangers 403, anonymous 401", async () => {
    for (const token of [owner, member]) {
      const res = await ctx.call("GET", path, { token });
      assert.equal(res.status, 200);
      assert.deepEqual((await res.json()).documents.map((d: { title: string }) => d.title), [
        "Policy",
        "SOC 2 report",
      ]);
    }
    assert.equal((await ctx.call("GET", path)).status, 401);
    assert.equal((await ctx.call("GET", path, { token: stranger })).status, 403);
  });

  await t.step("refused changes leave KV unchanged", async () => {
    const before = await snapshotKv(ctx.kv);
    const item = `${path}/${secret.id}`;
    const attempts: [string, string, string | undefined, unknown, number][] = [
      ["PATCH", item, undefined, { title: "X" }, 401],
      ["PATCH", item, member, { title: "X" }, 403],
      ["PATCH", item, stranger, { title: "X" }, 403],
      ["PATCH", item, owner, {}, 400],
      ["PATCH", item, owner, { visibility: "everyone" }, 400],
      ["PATCH", `${path}/${crypto.randomUUID()}`, owner, { title: "X" }, 404],
      ["DELETE", item, member, undefined, 403],
      ["DELETE", item, undefined, undefined, 401],
      ["PUT", `/organizations/${orgId}/nda`, member, { text: "NDA" }, 403],
      ["PUT", `/organizations/${orgId}/nda`, owner, { text: "" }, 400],
      ["PUT", `/organizations/${orgId}/document-settings`, member, { autoApproveDomains: [] }, 403],
      ["PUT", `/organizations/${orgId}/document-settings`, owner, {
        autoApproveDomains: ["not a domain"],
      }, 400],
    ];
    for (const [method, url, token, json, status] of attempts) {
      const res = await ctx.call(method, url, { token, json });
      assert.equal(res.status, status, `${method} ${url} ${status}`);
      await res.body?.cancel();
    }
    assert.equal(await snapshotKv(ctx.kv), before);
  });

  await t.step("the public list shows both; restricted ones by title only", async () => {
    const res = await ctx.call("GET", `/public/trust/${orgSlug}/documents`);
    assert.equal(res.status, 200);
    const list = await res.json();
    assert.equal(list.acceptingRequests, false);
    const [policy, report] = list.documents;
    assert.equal(
      policy.downloadUrl,
      `http://trust.test/public/trust/${orgSlug}/documents/${open.id}/download`,
    );
    assert.equal(policy.requestAccessUrl, null);
    assert.equal(report.title, "SOC 2 report");
    assert.equal(report.downloadUrl, null);
    assert.equal(report.size, null);
    const html = await ctx.call("GET", `/public/trust/${orgSlug}/documents`, {
      headers: { accept: "text/html" },
    });
    assert.equal(html.status, 200);
    assert.match(html.headers.get("content-security-policy")!, /default-src 'none'/);
    const page = await html.text();
    assert.match(page, /SOC 2 report/);
    assert.match(page, /requests are not open yet/);
    const md = await ctx.call("GET", `/public/trust/${orgSlug}/documents.md`);
    assert.match(await md.text(), /\*\*Policy\*\*.*\[Download\]/);
  });

  await t.step("a public document downloads as an attachment, sandboxed", async () => {
    const res = await ctx.call("GET", `/public/trust/${orgSlug}/documents/${open.id}/download`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/pdf");
    assert.equal(res.headers.get("content-disposition"), 'attachment; filename="Policy.pdf"');
    assert.equal(res.headers.get("x-content-type-options"), "nosniff");
    assert.equal(res.headers.get("content-security-policy"), "default-src 'none'; sandbox");
    assert.deepEqual(new Uint8Array(await res.arrayBuffer()), pdf);
  });

  await t.step("a restricted document is never served publicly", async () => {
    const res = await ctx.call("GET", `/public/trust/${orgSlug}/documents/${secret.id}/download`);
    assert.equal(res.status, 403);
    await res.body?.cancel();
    const made = await ctx.call("PATCH", `${path}/${open.id}`, {
      token: owner,
      json: { visibility: "restricted" },
    });
    assert.equal(made.status, 200);
    const now = await ctx.call("GET", `/public/trust/${orgSlug}/documents/${open.id}/download`);
    assert.equal(now.status, 403);
    await now.body?.cancel();
    const unknown = await ctx.call(
      "GET",
      `/public/trust/${orgSlug}/documents/${crypto.randomUUID()}/download`,
    );
    assert.equal(unknown.status, 404);
    await unknown.body?.cancel();
  });

  await t.step("the NDA is versioned with the hash of its text", async () => {
    const nda = `/organizations/${orgId}/nda`;
    const first =
      await (await ctx.call("PUT", nda, { token: owner, json: { text: "Keep it secret." } }))
        .json();
    assert.equal(first.current.version, 1);
    const same =
      await (await ctx.call("PUT", nda, { token: owner, json: { text: "Keep it secret." } }))
        .json();
    assert.equal(same.versions.length, 1);
    const second =
      await (await ctx.call("PUT", nda, { token: owner, json: { text: "Keep it safe." } })).json();
    assert.equal(second.current.version, 2);
    assert.deepEqual(second.versions.map((v: { version: number }) => v.version), [2, 1]);
    const digest = await crypto.subtle.digest("SHA-256", enc("Keep it safe."));
    const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
    assert.equal(second.current.sha256, hex);
    const read = await (await ctx.call("GET", nda, { token: member })).json();
    assert.equal(read.current.text, "Keep it safe.");
  });

  await t.step("an owner removes a document; it leaves the public list", async () => {
    const res = await ctx.call("DELETE", `${path}/${secret.id}`, { token: owner });
    assert.equal(res.status, 200);
    const list = await (await ctx.call("GET", `/public/trust/${orgSlug}/documents`)).json();
    assert.deepEqual(list.documents.map((d: { id: string }) => d.id), [open.id]);
  });
});
