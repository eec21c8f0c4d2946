/**
 * Answers to security questions over HTTP: who may write them (owners; refusals and bad
 * input change nothing), the public knowledge base and its search in JSON, HTML and Markdown
 * (restricted answers by question only, never searched by their text), citations resolved
 * or left out, restricted answers through the access-request flow, and the questionnaire
 * export as CSV and XLSX (read back with SheetJS, a reader independent of the writer) with
 * the same bytes for the same data.
 */
import assert from "node:assert/strict";
import { SheetJS } from "../deps.ts";
import { PublicAnswers } from "../../src/domain/answers.ts";
import { exportedAnswers, exportRows } from "../../src/serve/answers.ts";
import { getOrganizationBySlug } from "../../src/store/organizations.ts";
import { writeAnswersXlsx } from "../../src/serve/answers_export.ts";
import { createTestApp, snapshotKv, type TestApp } from "../support/app.ts";
import { makePdf, upload } from "../support/documents.ts";
import { team } from "../support/fixtures.ts";

const BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

async function ok(res: Response, status = 200) {
  const text = await res.text();
  assert.equal(res.status, status, text);
  return text ? JSON.parse(text) : null;
}

/** Acme (published public project, a private project), documents, and a second organization. */
async function setUp(ctx: TestApp) {
  const t = await team(ctx);
  await ok(await ctx.call("POST", `/projects/${t.project.id}/publish`, { token: t.owner }), 201);
  const controls = await ok(
    await ctx.call("GET", `/projects/${t.project.id}/controls`, { token: t.owner }),
  );
  const scan = controls.controls.find((c: { key: string }) =>
    c.key === "evidence.vulnerability_scan"
  );
  const hidden = await ok(
    await ctx.call("POST", "/projects", {
      token: t.owner,
      json: { organizationId: t.orgId, name: "Internal", visibility: "private" },
    }),
    201,
  );
  const hiddenControls = await ok(
    await ctx.call("GET", `/projects/${hidden.project.id}/controls`, { token: t.owner }),
  );
  const policy = await ok(
    await upload(ctx, t.orgId, {
      token: t.owner,
      bytes: await makePdf("Policy"),
      query: "title=Encryption%20policy&visibility=public",
    }),
    201,
  );
  const report = await ok(
    await upload(ctx, t.orgId, {
      token: t.owner,
      bytes: await makePdf("SOC 2"),
      query: "title=SOC%202%20report",
    }),
    201,
  );
  const other = await ok(
    await ctx.call("POST", "/onboarding/bootstrap", {
      token: t.stranger,
      json: { workspaceName: "Else", projectName: "Else app" },
    }),
    201,
  );
  const otherControls = await ok(
    await ctx.call("GET", `/projects/${other.project.id}/controls`, { token: t.stranger }),
  );
  const iso = await ok(
    await ctx.call("POST", `/organizations/${t.orgId}/certifications`, {
      token: t.owner,
      json: { framework: "iso27001-2022", status: "achieved", auditor: "Example Cert GmbH" },
    }),
    201,
  );
  return {
    ...t,
    certificationId: iso.certification.id as string,
    scanId: scan.id as string,
    hiddenControlId: hiddenControls.controls[0].id as string,
    policyId: policy.document.id as string,
    reportId: report.document.id as string,
    otherOrgId: other.organization.id as string,
    otherControlId: otherControls.controls[0].id as string,
  };
}

const ENCRYPTION = {
  question: "Do you encrypt customer data at rest?",
  answer:
    "Yes: **AES-256** in the cloud KMS. <script>alert(1)</script> [x](javascript:alert(1)) [policy](https://acme.example/p)",
  category: "Encryption",
  visibility: "public",
  questionnaireRefs: [{ questionnaire: "caiq-v4", id: "CEK-03.1" }, {
    questionnaire: "sig",
    id: "D.4",
  }],
};

Deno.test("[http] answers: owners write; refusals and bad input change nothing", async (t) => {
  await using ctx = await createTestApp();
  const acme = await setUp(ctx);
  const path = `/organizations/${acme.orgId}/answers`;
  const created = await ok(
    await ctx.call("POST", path, { token: acme.owner, json: ENCRYPTION }),
    201,
  );
  const item = `${path}/${created.answer.id}`;

  await t.step("the authorization matrix and bad input: 4xx, nothing stored", async () => {
    const before = await snapshotKv(ctx.kv);
    const cite = (kind: string, id: string) => ({ ...ENCRYPTION, citations: [{ kind, id }] });
    const attempts: [string, string, string, unknown, number][] = [
      ["POST", path, "", ENCRYPTION, 401],
      ["POST", path, acme.member, ENCRYPTION, 403],
      ["POST", path, acme.stranger, ENCRYPTION, 403],
      ["POST", `/organizations/${acme.otherOrgId}/answers`, acme.owner, ENCRYPTION, 403],
      ["POST", `/organizations/${crypto.randomUUID()}/answers`, acme.owner, ENCRYPTION, 403],
      ["POST", path, acme.owner, { ...ENCRYPTION, question: "x".repeat(1001) }, 400],
      ["POST", path, acme.owner, { ...ENCRYPTION, answer: "x".repeat(10_001) }, 400],
      ["POST", path, acme.owner, { ...ENCRYPTION, answer: "   " }, 400],
      ["POST", path, acme.owner, { ...ENCRYPTION, answer: "bell\u0007" }, 400],
      ["POST", path, acme.owner, { ...ENCRYPTION, category: "two\nlines" }, 400],
      ["POST", path, acme.owner, { ...ENCRYPTION, category: "x".repeat(81) }, 400],
      ["POST", path, acme.owner, { ...ENCRYPTION, visibility: "secret" }, 400],
      ["POST", path, acme.owner, { ...ENCRYPTION, extra: 1 }, 400],
      ["POST", path, acme.owner, cite("policy", acme.policyId), 400],
      ["POST", path, acme.owner, cite("control", crypto.randomUUID()), 400],
      ["POST", path, acme.owner, cite("control", acme.otherControlId), 400],
      ["POST", path, acme.owner, cite("document", crypto.randomUUID()), 400],
      ["POST", path, acme.owner, cite("document", "../../etc"), 400],
      ["POST", path, acme.owner, {
        ...ENCRYPTION,
        citations: [{ kind: "document", id: acme.policyId }, {
          kind: "document",
          id: acme.policyId,
        }],
      }, 400],
      ["POST", path, acme.owner, {
        ...ENCRYPTION,
        citations: Array.from({ length: 21 }, () => ({ kind: "certification", id: "c" })),
      }, 400],
      ["POST", path, acme.owner, cite("certification", crypto.randomUUID()), 400],
      ["POST", path, acme.owner, {
        ...ENCRYPTION,
        questionnaireRefs: [{ questionnaire: "caiq-v4", id: "IAM-2" }],
      }, 400],
      ["POST", path, acme.owner, {
        ...ENCRYPTION,
        questionnaireRefs: [{ questionnaire: "hecvat", id: "A.1" }],
      }, 400],
      ["POST", path, acme.owner, {
        ...ENCRYPTION,
        questionnaireRefs: [{ questionnaire: "sig", id: "x".repeat(41) }],
      }, 400],
      ["PATCH", item, "", { category: "Crypto" }, 401],
      ["PATCH", item, acme.member, { category: "Crypto" }, 403],
      ["PATCH", item, acme.stranger, { category: "Crypto" }, 403],
      ["PATCH", item, acme.owner, {}, 400],
      [
        "PATCH",
        item,
        acme.owner,
        { citations: [{ kind: "control", id: acme.otherControlId }] },
        400,
      ],
      ["PATCH", item, acme.owner, { answer: "y".repeat(10_001) }, 400],
      ["PATCH", `${path}/${crypto.randomUUID()}`, acme.owner, { category: "Crypto" }, 404],
      ["DELETE", item, "", undefined, 401],
      ["DELETE", item, acme.member, undefined, 403],
      ["DELETE", item, acme.stranger, undefined, 403],
      ["DELETE", `${path}/${crypto.randomUUID()}`, acme.owner, undefined, 404],
    ];
    for (const [method, url, token, json, status] of attempts) {
      const res = await ctx.call(method, url, { token: token || undefined, json });
      assert.equal(res.status, status, `${method} ${url} ${JSON.stringify(json)?.slice(0, 120)}`);
      assert.ok((await res.json()).error.message);
    }
    assert.equal(await snapshotKv(ctx.kv), before);
  });

  await t.step(
    "owners add, change and remove; members read; a no-op change saves nothing",
    async () => {
      const listed = await ok(await ctx.call("GET", path, { token: acme.member }));
      assert.equal(listed.answers.length, 1);
      assert.equal(listed.answers[0].createdBy.email, "owner@acme.test");
      const forbidden = await ctx.call("GET", path, { token: acme.stranger });
      assert.equal(forbidden.status, 403);
      await forbidden.body?.cancel();
      const cited = await ok(
        await ctx.call("PATCH", item, {
          token: acme.owner,
          json: {
            citations: [
              { kind: "control", id: acme.scanId },
              { kind: "document", id: acme.policyId },
              { kind: "certification", id: acme.certificationId },
            ],
          },
        }),
      );
      assert.equal(cited.answer.citations.length, 3);
      const same = await snapshotKv(ctx.kv);
      await ok(
        await ctx.call("PATCH", item, { token: acme.owner, json: { category: "Encryption" } }),
      );
      assert.equal(await snapshotKv(ctx.kv), same);
      const removed = await ok(await ctx.call("DELETE", item, { token: acme.owner }));
      assert.equal(removed.answer.id, created.answer.id);
      assert.deepEqual((await ok(await ctx.call("GET", path, { token: acme.owner }))).answers, []);
    },
  );
});

/** Acme with a public cited answer, a restricted one, and one citing a private project. */
async function withAnswers(ctx: TestApp) {
  const acme = await setUp(ctx);
  const path = `/organizations/${acme.orgId}/answers`;
  const post = async (json: unknown) =>
    (await ok(await ctx.call("POST", path, { token: acme.owner, json }), 201)).answer;
  const encryption = await post({
    ...ENCRYPTION,
    citations: [
      { kind: "control", id: acme.scanId },
      { kind: "document", id: acme.policyId },
      { kind: "document", id: acme.reportId },
      { kind: "certification", id: acme.certificationId },
    ],
  });
  const pentest = await post({
    question: "When was your last penetration test?",
    answer: "March, by Example Labs; zero criticals remained after the retest.",
    category: "Testing",
    visibility: "restricted",
    questionnaireRefs: [{ questionnaire: "caiq-v4", id: "TVM-06.1" }, {
      questionnaire: "caiq-v4",
      id: "CEK-03.1",
    }],
  });
  const internal = await post({
    question: "Is there a formula risk?",
    answer: '=HYPERLINK("http://evil.example")',
    category: "Governance",
    visibility: "public",
    citations: [{ kind: "control", id: acme.hiddenControlId }],
  });
  return { ...acme, encryption, pentest, internal };
}

Deno.test("[http] answers: the public knowledge base, its search and formats", async (t) => {
  await using ctx = await createTestApp();
  const acme = await withAnswers(ctx);
  const base = `/public/trust/${acme.orgSlug}/answers`;

  await t.step("JSON: public answers rendered safely with resolved citations", async () => {
    const res = await ctx.call("GET", base);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    const list = PublicAnswers.parse(await ok(res));
    assert.equal(list.total, 3);
    assert.equal(list.query, null);
    assert.deepEqual(list.answers.map((a) => a.category), ["Encryption", "Governance", "Testing"]);
    const enc = list.answers[0];
    assert.doesNotMatch(enc.answerHtml!, /<script|href="javascript:/);
    assert.match(enc.answerHtml!, /&lt;script&gt;/);
    assert.match(enc.answerHtml!, /<strong>AES-256<\/strong>/);
    assert.deepEqual(
      enc.citations!.map((c) => [c.kind, c.title, c.state]),
      [
        ["control", "Vulnerability scan", "unknown"],
        ["document", "Encryption policy", null],
        ["document", "SOC 2 report", null],
        ["certification", "ISO/IEC 27001:2022 (achieved)", null],
      ],
    );
    assert.match(enc.citations![3].url!, /\/public\/trust\/[^/]+\/certifications$/);
    assert.match(enc.citations![1].url!, /\/documents\/[^/]+\/download$/);
    assert.match(enc.citations![2].url!, /\/documents\/request\?document=/);
    assert.equal(enc.citations![0].project!.name, "Acme Cloud");
    const restricted = list.answers.find((a) => a.visibility === "restricted")!;
    assert.equal(restricted.answer, null);
    assert.equal(restricted.answerHtml, null);
    assert.equal(restricted.citations, null);
    assert.equal(restricted.requestAccessUrl, null, "no NDA: requests are not open");
    assert.ok(!JSON.stringify(list).includes("Example Labs"), "a restricted answer stays hidden");
    const internal = list.answers.find((a) => a.id === acme.internal.id)!;
    assert.deepEqual(internal.citations, [], "a private project's control is not shown");
  });

  await t.step("search: all words, best first; restricted text is never searched", async () => {
    const search = async (q: string) =>
      PublicAnswers.parse(await ok(await ctx.call("GET", `${base}?q=${encodeURIComponent(q)}`)));
    assert.deepEqual((await search("ENCRYPT rest")).answers.map((a) => a.id), [acme.encryption.id]);
    assert.deepEqual((await search("aes-256")).answers.map((a) => a.id), [acme.encryption.id]);
    const byId = await search("CEK-03.1");
    assert.deepEqual(
      byId.answers.map((a) => a.id).sort(),
      [acme.encryption.id, acme.pentest.id].sort(),
    );
    assert.deepEqual((await search("penetration")).answers.map((a) => a.id), [acme.pentest.id]);
    assert.deepEqual((await search("Example Labs")).answers, [], "restricted text is not searched");
    assert.deepEqual((await search("encryption nothing")).answers, []);
    const tooLong = await ctx.call("GET", `${base}?q=${"x".repeat(201)}`);
    assert.equal(tooLong.status, 400);
    await tooLong.body?.cancel();
    const unknown = await ctx.call("GET", "/public/trust/nobody/answers");
    assert.equal(unknown.status, 404);
    await unknown.body?.cancel();
  });

  await t.step("HTML: a search form without script, results for q; Markdown alike", async () => {
    const page = await ctx.call("GET", `${base}?q=encryption`, { headers: { accept: BROWSER } });
    assert.equal(page.status, 200);
    const csp = page.headers.get("content-security-policy")!;
    assert.match(csp, /form-action http:\/\/trust\.test(;|$)/);
    assert.match(csp, /default-src 'none'/);
    const html = await page.text();
    assert.ok(!html.includes("<script"));
    assert.match(
      html,
      /<form class="search" role="search" method="get" action="http:\/\/trust\.test\/public\/trust\/acme\/answers">/,
    );
    assert.match(html, /name="q" type="search" value="encryption"/);
    assert.match(html, /1 of 3 answers match “encryption”/);
    assert.match(html, /CAIQ v4 CEK-03\.1 · SIG D\.4/);
    const explicit =
      await (await ctx.call("GET", `/public/trust/${acme.orgSlug}/answers.html?q=encryption`))
        .text();
    assert.equal(explicit, html);
    const md = await (await ctx.call("GET", `${base}.md?q=encryption`)).text();
    assert.match(md, /^# Acme: security answers/);
    assert.match(md, /## Do you encrypt customer data at rest\?/);
    assert.match(md, /> Yes: \*\*AES-256\*\*/);
    assert.match(md, /Sources: \[Acme Cloud: Vulnerability scan \\\(unknown\\\)\]/);
    const all = await (await ctx.call("GET", base, { headers: { accept: "text/markdown" } }))
      .text();
    assert.match(all, /## Testing\n\n### When was your last penetration test\?/);
    assert.match(all, /Restricted answer, available on request/);
  });

  await t.step("the trust page and the trust center carry the search form", async () => {
    const page = await ctx.call("GET", `/trust/${acme.project.slug}`, {
      headers: { accept: BROWSER },
    });
    const html = await page.text();
    assert.match(html, /<h2 id="live-answers-title">Security answers<\/h2>/);
    assert.match(html, /Acme answers 3 security questions \(1 restricted, on request\)\./);
    assert.match(page.headers.get("content-security-policy")!, /form-action http:\/\/trust\.test/);
    const center = await ctx.call("GET", `/public/trust/${acme.orgSlug}`, {
      headers: { accept: BROWSER },
    });
    const centerHtml = await center.text();
    assert.match(centerHtml, /id="answers-title">Security answers/);
    assert.match(centerHtml, /role="search"/);
    assert.match(
      center.headers.get("content-security-policy")!,
      /form-action http:\/\/trust\.test/,
    );
    const md = await (await ctx.call("GET", `/public/trust/${acme.orgSlug}.md`)).text();
    assert.match(md, /## Security answers/);
  });
});

/** The CSV's rows (RFC 4180, as the service writes it). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      row.push(field);
      field = "";
    } else if (ch === "\r" && text[i + 1] === "\n") {
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
      i++;
    } else field += ch;
  }
  return rows;
}

Deno.test("[http] answers: CSV and XLSX exports keyed by questionnaire id, same bytes each time", async (t) => {
  await using ctx = await createTestApp();
  const acme = await withAnswers(ctx);
  await ok(
    await ctx.call("PUT", `/organizations/${acme.orgId}/nda`, {
      token: acme.owner,
      json: { text: "Keep it to yourself." },
    }),
  );
  const base = `/public/trust/${acme.orgSlug}/answers`;
  const wanted = "questionnaire=caiq-v4&ids=" +
    encodeURIComponent("A&A-01.1,CEK-03.1,IAM-10.1,IAM-02.1");
  let csvRows: string[][] = [];

  await t.step("CSV: header, rows by questionnaire and id, no answer marked", async () => {
    const res = await ctx.call("GET", `${base}.csv?${wanted}`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "text/csv; charset=utf-8");
    assert.match(
      res.headers.get("content-disposition")!,
      /attachment; filename="acme-answers\.csv"/,
    );
    const bytes = new Uint8Array(await res.arrayBuffer());
    assert.deepEqual([...bytes.slice(0, 3)], [0xef, 0xbb, 0xbf], "UTF-8 byte order mark");
    const text = new TextDecoder().decode(bytes);
    csvRows = parseCsv(text);
    assert.deepEqual(csvRows[0], [
      "Questionnaire",
      "Question ID",
      "Status",
      "Question",
      "Answer",
      "Category",
      "Citations",
      "Answer URL",
    ]);
    const keys = csvRows.slice(1).map((r) => `${r[1]} ${r[2]}`);
    assert.deepEqual(keys, [
      "A&A-01.1 no answer",
      "CEK-03.1 answered",
      "CEK-03.1 restricted",
      "IAM-02.1 no answer",
      "IAM-10.1 no answer",
      "TVM-06.1 restricted",
    ]);
    const noAnswer = csvRows[1];
    assert.equal(noAnswer[4], "No answer");
    const answered = csvRows[2];
    assert.equal(answered[3], ENCRYPTION.question);
    assert.match(answered[4], /^Yes: \*\*AES-256\*\*/);
    assert.match(
      answered[6],
      /Control: Acme Cloud — Vulnerability scan \(unknown\); Document: Encryption policy; Document: SOC 2 report; Certification: ISO\/IEC 27001:2022 \(achieved\)/,
    );
    const restricted = csvRows[3];
    assert.match(
      restricted[4],
      /^Restricted: request access at http:\/\/trust\.test\/public\/trust\/acme\/documents\/request\?answers=1$/,
    );
    assert.ok(!text.includes("Example Labs"));
    const again = new Uint8Array(
      await (await ctx.call("GET", `${base}.csv?${wanted}`)).arrayBuffer(),
    );
    assert.deepEqual(again, bytes, "same data, same bytes");
  });

  await t.step(
    "CSV without a questionnaire: every id answers list, then unkeyed answers",
    async () => {
      const text = await (await ctx.call("GET", `${base}.csv`)).text();
      const rows = parseCsv(text.replace(/^\ufeff/, "")).slice(1);
      assert.deepEqual(rows.map((r) => `${r[0]} ${r[1]} ${r[2]}`), [
        "caiq-v4 CEK-03.1 answered",
        "caiq-v4 CEK-03.1 restricted",
        "caiq-v4 TVM-06.1 restricted",
        "sig D.4 answered",
        "  answered",
      ]);
      // The public Markdown escapes the "=" a line starts with, so no formula is left.
      // The vendor's text as typed (a spreadsheet renders no Markdown), the formula made inert.
      assert.equal(rows[4][4], `'=HYPERLINK("http://evil.example")`, "a formula is defused");
    },
  );

  await t.step("bad export queries are 400", async () => {
    for (
      const query of [
        "ids=IAM-02.1",
        "questionnaire=caiq-v4&ids=IAM-2",
        "questionnaire=hecvat",
        `questionnaire=sig&ids=${Array.from({ length: 501 }, (_, i) => `A.${i}`).join(",")}`,
      ]
    ) {
      for (const format of ["csv", "xlsx"]) {
        const res = await ctx.call("GET", `${base}.${format}?${query}`);
        assert.equal(res.status, 400, `${format} ${query.slice(0, 60)}`);
        assert.ok((await res.json()).error.message);
      }
    }
  });

  await t.step("XLSX: read back with SheetJS, the same rows as the CSV, same bytes", async () => {
    const res = await ctx.call("GET", `${base}.xlsx?${wanted}`);
    assert.equal(res.status, 200);
    assert.equal(
      res.headers.get("content-type"),
      "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    );
    const bytes = new Uint8Array(await res.arrayBuffer());
    // SheetJS adds fields to the array it reads: it gets a copy.
    const book = SheetJS.read(bytes.slice(), { type: "array" });
    assert.deepEqual(book.SheetNames, ["Answers", "About"]);
    const rows = SheetJS.utils.sheet_to_json<string[]>(book.Sheets.Answers, {
      header: 1,
      defval: "",
      raw: false,
    });
    assert.deepEqual(rows, csvRows.map((r) => r.map((cell) => cell.replace(/^'(?==)/, ""))));
    const about = SheetJS.utils.sheet_to_json<string[]>(book.Sheets.About, { header: 1 });
    assert.deepEqual(about[0], ["Organization", "Acme"]);
    assert.equal(about[2][0], "Answers last changed");
    assert.equal(about[2][1], acme.internal.updatedAt);
    const again = new Uint8Array(
      await (await ctx.call("GET", `${base}.xlsx?${wanted}`)).arrayBuffer(),
    );
    assert.deepEqual(again, bytes, "same data, same bytes");
    // The service keeps recent workbooks: write the same one afresh, more than the ZIP
    // format's 2 s time resolution apart, and get the served bytes both times.
    const org = (await getOrganizationBySlug(ctx.kv, acme.orgSlug))!;
    const list = await exportedAnswers(ctx.kv, org, ctx.config);
    const rows2 = exportRows(list, {
      questionnaire: "caiq-v4",
      wanted: ["A&A-01.1", "CEK-03.1", "IAM-10.1", "IAM-02.1"],
      answerUrl: (id) => `${list.url}#answer-${id}`,
    });
    const described = {
      organization: "Acme",
      source: list.url,
      lastChanged: acme.internal.updatedAt,
    };
    const first = await writeAnswersXlsx(rows2, described);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    const second = await writeAnswersXlsx(rows2, described);
    assert.deepEqual(second, first, "written twice, the same bytes");
    assert.deepEqual(first, bytes, "the served workbook is the one written");
    // Every ZIP entry carries the fixed date 1980-01-01 00:00 (DOS date 0x0021, time 0).
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let entries = 0;
    for (let i = 0; i + 4 <= bytes.length; i++) {
      if (view.getUint32(i, true) !== 0x04034b50) continue;
      assert.equal(view.getUint16(i + 10, true), 0, "mod time");
      assert.equal(view.getUint16(i + 12, true), 0x21, "mod date");
      entries++;
    }
    assert.ok(entries >= 6);
  });

  await t.step("changed data changes the bytes", async () => {
    const before = new Uint8Array(await (await ctx.call("GET", `${base}.xlsx`)).arrayBuffer());
    await ok(
      await ctx.call("PATCH", `/organizations/${acme.orgId}/answers/${acme.encryption.id}`, {
        token: acme.owner,
        json: { answer: "Yes, AES-256." },
      }),
    );
    const after = new Uint8Array(await (await ctx.call("GET", `${base}.xlsx`)).arrayBuffer());
    assert.notDeepEqual(after, before);
    const book = SheetJS.read(after.slice(), { type: "array" });
    const rows = SheetJS.utils.sheet_to_json<string[]>(book.Sheets.Answers, { header: 1 });
    assert.equal(rows[1][4], "Yes, AES-256.");
  });
});

Deno.test("[http] answers: restricted answers open through an approved access link", async (t) => {
  await using ctx = await createTestApp();
  const acme = await withAnswers(ctx);
  const submit = `/public/trust/${acme.orgSlug}/access-requests`;
  const visitor = {
    name: "Vera Visitor",
    email: "vera@customer.test",
    company: "Customer Inc",
    documentIds: [],
    ndaVersion: 1,
    acceptNda: true,
  };
  await ok(
    await ctx.call("PUT", `/organizations/${acme.orgId}/nda`, {
      token: acme.owner,
      json: { text: "Keep it to yourself." },
    }),
  );

  await t.step(
    "the answers page points restricted answers at the form, which offers them",
    async () => {
      const list = await ok(
        await ctx.call("GET", `/public/trust/${acme.orgSlug}/answers?q=penetration`),
      );
      assert.equal(
        list.answers[0].requestAccessUrl,
        `http://trust.test/public/trust/${acme.orgSlug}/documents/request?answers=1`,
      );
      const form =
        await (await ctx.call("GET", `/public/trust/${acme.orgSlug}/documents/request?answers=1`))
          .text();
      assert.match(
        form,
        /<input type="checkbox" name="answers" value="true" checked> Restricted answers to security questions \(1\)/,
      );
    },
  );

  await t.step("a request for nothing is 400 and stores nothing", async () => {
    const before = await snapshotKv(ctx.kv);
    const res = await ctx.call("POST", submit, { json: visitor });
    assert.equal(res.status, 400);
    await res.body?.cancel();
    assert.equal(await snapshotKv(ctx.kv), before);
  });

  let link = "";
  await t.step("asked for and approved, the link's page shows the restricted answer", async () => {
    const receipt = await ok(
      await ctx.call("POST", submit, { json: { ...visitor, answers: true } }),
      202,
    );
    const requests = await ok(
      await ctx.call("GET", `/organizations/${acme.orgId}/access-requests`, { token: acme.owner }),
    );
    assert.equal(requests.requests[0].answers, true);
    const approved = await ok(
      await ctx.call("POST", `/organizations/${acme.orgId}/access-requests/${receipt.id}/approve`, {
        token: acme.owner,
      }),
    );
    assert.equal(approved.link.answers, true);
    link = new URL(approved.link.url).pathname;
    const page = await ctx.call("GET", link);
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /<h2 id="answers-title">Restricted answers<\/h2>/);
    assert.match(html, /March, by Example Labs/);
    assert.ok(!html.includes("Your documents"), "no documents were asked for");
  });

  await t.step("a documents-only link shows no answers", async () => {
    const doc = await ok(
      await ctx.call("POST", submit, {
        json: { ...visitor, email: "dan@customer.test", documentIds: [acme.reportId] },
      }),
      202,
    );
    const approved = await ok(
      await ctx.call("POST", `/organizations/${acme.orgId}/access-requests/${doc.id}/approve`, {
        token: acme.owner,
      }),
    );
    const html = await (await ctx.call("GET", new URL(approved.link.url).pathname)).text();
    assert.match(html, /SOC 2 report/);
    assert.ok(!html.includes("Example Labs"));
  });

  await t.step("asking for answers an organization does not restrict is 400", async () => {
    await ok(
      await ctx.call("DELETE", `/organizations/${acme.orgId}/answers/${acme.pentest.id}`, {
        token: acme.owner,
      }),
    );
    const res = await ctx.call("POST", submit, {
      json: { ...visitor, email: "eve@customer.test", answers: true },
    });
    assert.equal(res.status, 400);
    assert.match((await res.json()).error.message, /no restricted answers/);
  });
});
