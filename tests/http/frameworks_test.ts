/**
 * Framework mappings over HTTP: the public catalog, who may map a custom control (members;
 * refusals and bad input change nothing), the public framework view in JSON, HTML and
 * Markdown, its summary on the latest trust page, and the OSCAL export's criteria.
 */
import assert from "node:assert/strict";
import { PublicFrameworkView } from "../../src/domain/frameworks.ts";
import { DEFAULT_CATALOG } from "../../src/evaluate/catalog.ts";
import { createTestApp, snapshotKv, type TestApp } from "../support/app.ts";
import { collector, evidenceItem, team } from "../support/fixtures.ts";

const BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

async function ok(res: Response, status = 200) {
  const text = await res.text();
  assert.equal(res.status, status, text);
  return text ? JSON.parse(text) : null;
}

/** Acme with a custom control, a passing scan observed 2 hours before the clock, published. */
async function published(ctx: TestApp) {
  const t = await team(ctx);
  const custom = await ok(
    await ctx.call("POST", `/projects/${t.project.id}/controls`, {
      token: t.owner,
      json: {
        key: "custom.pentest",
        publicName: "Penetration test",
        evidenceType: "policy_result",
      },
    }),
    201,
  );
  const { secret } = await collector(ctx, { token: t.owner, project: t.project } as never);
  await ok(
    await ctx.call("POST", "/ingest/evidence", {
      headers: { authorization: `Bearer ${secret}` },
      json: {
        projectId: t.project.id,
        ...evidenceItem(ctx, { summary: { critical: 0, high: 0, medium: 0, low: 0 } }, {
          evidenceType: "vulnerability_scan",
          minutesAgo: 120,
        }),
      },
    }),
    201,
  );
  return { ...t, customId: custom.control.id as string };
}

async function publish(ctx: TestApp, projectId: string, token: string) {
  await ok(await ctx.call("POST", `/projects/${projectId}/publish`, { token }), 201);
}

Deno.test("[http] frameworks: the catalog lists every criterion and the default mappings", async () => {
  await using ctx = await createTestApp();
  const res = await ctx.call("GET", "/public/frameworks");
  assert.equal(res.headers.get("access-control-allow-origin"), "*");
  const catalog = await ok(res);
  assert.deepEqual(catalog.frameworks.map((f: { id: string }) => f.id), [
    "soc2",
    "iso27001",
    "ssdf",
    "slsa",
  ]);
  const count = (id: string) =>
    catalog.frameworks.find((f: { id: string }) => f.id === id).criteria.length;
  assert.equal(count("iso27001"), 93, "ISO/IEC 27001:2022 Annex A has 93 controls");
  assert.equal(count("soc2"), 61);
  const known = new Set(
    catalog.frameworks.flatMap((f: { id: string; criteria: { id: string }[] }) =>
      f.criteria.map((c) => `${f.id}:${c.id}`)
    ),
  );
  assert.deepEqual(
    catalog.catalogMappings.map((m: { key: string }) => m.key).sort(),
    DEFAULT_CATALOG.map((e) => e.key).sort(),
    "every default catalog control is mapped",
  );
  for (const mapping of catalog.catalogMappings) {
    assert.ok(mapping.criteria.length > 0, mapping.key);
    for (const c of mapping.criteria) assert.ok(known.has(`${c.framework}:${c.id}`), c.id);
  }
  const scan = catalog.catalogMappings.find((m: { key: string }) =>
    m.key === "evidence.vulnerability_scan"
  );
  assert.ok(scan.criteria.some((c: { id: string }) => c.id === "A.8.8"));
  assert.ok(scan.criteria.some((c: { id: string }) => c.id === "RV.1.1"));
});

Deno.test("[http] frameworks: members map custom controls; refusals and bad input store nothing", async (t) => {
  await using ctx = await createTestApp();
  const acme = await published(ctx);
  const other = await ok(
    await ctx.call("POST", "/onboarding/bootstrap", {
      token: acme.stranger,
      json: { workspaceName: "Else", projectName: "Else app" },
    }),
    201,
  );
  const path = `/projects/${acme.project.id}/controls/${acme.customId}/criteria`;
  const mapping = { criteria: [{ framework: "iso27001", id: "A.8.29" }] };
  const controls = await ok(
    await ctx.call("GET", `/projects/${acme.project.id}/controls`, { token: acme.owner }),
  );
  const scanId =
    controls.controls.find((c: { key: string }) => c.key === "evidence.vulnerability_scan").id;

  await t.step("refusals and bad input answer 4xx and change nothing", async () => {
    const before = await snapshotKv(ctx.kv);
    const many = Array.from({ length: 41 }, (_, i) => ({ framework: "soc2", id: `CC${i}` }));
    const attempts: [string, string, unknown, number][] = [
      [path, "", mapping, 401],
      [path, acme.stranger, mapping, 403],
      [
        `/projects/${other.project.id}/controls/${acme.customId}/criteria`,
        acme.owner,
        mapping,
        403,
      ],
      [
        `/projects/${acme.project.id}/controls/${crypto.randomUUID()}/criteria`,
        acme.owner,
        mapping,
        404,
      ],
      [`/projects/${acme.project.id}/controls/${scanId}/criteria`, acme.owner, mapping, 400],
      [path, acme.owner, { criteria: [{ framework: "pci", id: "1.1" }] }, 400],
      [path, acme.owner, { criteria: [{ framework: "iso27001", id: "A.9.9" }] }, 400],
      [path, acme.owner, { criteria: [{ framework: "soc2", id: "A.8.8" }] }, 400],
      [path, acme.owner, { criteria: [mapping.criteria[0], mapping.criteria[0]] }, 400],
      [path, acme.owner, { criteria: [{ framework: "slsa", id: "x".repeat(41) }] }, 400],
      [path, acme.owner, { criteria: many }, 400],
      [path, acme.owner, { criteria: [{ framework: "soc2" }] }, 400],
      [path, acme.owner, { criteria: mapping.criteria, extra: 1 }, 400],
      [path, acme.owner, {}, 400],
    ];
    for (const [url, token, json, status] of attempts) {
      const res = await ctx.call("PUT", url, { token: token || undefined, json });
      assert.equal(res.status, status, `${url} ${JSON.stringify(json).slice(0, 80)}`);
      assert.ok((await res.json()).error.message);
    }
    const text = await ctx.call("PUT", path, {
      token: acme.owner,
      body: "iso27001 A.8.29",
      headers: { "content-type": "text/plain" },
    });
    assert.equal(text.status, 415);
    await text.body?.cancel();
    assert.equal(await snapshotKv(ctx.kv), before);
  });

  await t.step(
    "an owner and a member map it; the list shows catalog and custom mappings",
    async () => {
      const saved = await ok(await ctx.call("PUT", path, { token: acme.owner, json: mapping }));
      assert.equal(saved.mapping.source, "custom");
      assert.deepEqual(saved.mapping.criteria, mapping.criteria);
      const both = {
        criteria: [{ framework: "ssdf", id: "PW.8.2" }, { framework: "iso27001", id: "A.8.29" }],
      };
      const byMember = await ok(await ctx.call("PUT", path, { token: acme.member, json: both }));
      assert.deepEqual(
        byMember.mapping.criteria,
        [{ framework: "iso27001", id: "A.8.29" }, { framework: "ssdf", id: "PW.8.2" }],
        "stored in framework order",
      );
      const same = await snapshotKv(ctx.kv);
      await ok(await ctx.call("PUT", path, { token: acme.member, json: both }));
      assert.equal(await snapshotKv(ctx.kv), same, "the same mapping again writes nothing");
      const list = await ok(
        await ctx.call("GET", `/projects/${acme.project.id}/control-criteria`, {
          token: acme.member,
        }),
      );
      const keys = list.mappings.map((m: { key: string }) => m.key);
      assert.equal(keys.at(-1), "custom.pentest");
      assert.equal(list.mappings[0].source, "catalog");
      const listed = await ctx.call("GET", `/projects/${acme.project.id}/control-criteria`, {
        token: acme.stranger,
      });
      assert.equal(listed.status, 403);
      await listed.body?.cancel();
    },
  );
});

Deno.test("[http] frameworks: the public view, its formats, the trust page summary and OSCAL", async (t) => {
  await using ctx = await createTestApp();
  const acme = await published(ctx);
  const path = `/projects/${acme.project.id}/controls/${acme.customId}/criteria`;
  await ok(
    await ctx.call("PUT", path, {
      token: acme.owner,
      json: {
        criteria: [{ framework: "iso27001", id: "A.8.29" }, { framework: "slsa", id: "build-l3" }],
      },
    }),
  );
  const slug = acme.project.slug;
  const before = await ctx.call("GET", `/trust/${slug}/frameworks`);
  assert.equal(before.status, 404, "nothing published yet");
  await before.body?.cancel();
  await publish(ctx, acme.project.id, acme.owner);

  await t.step("JSON: criteria with their controls, state and evidence time", async () => {
    const res = await ctx.call("GET", `/trust/${slug}/frameworks`);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    const view = PublicFrameworkView.parse(await ok(res));
    const iso = view.frameworks.find((f) => f.id === "iso27001")!;
    const a88 = iso.criteria.find((c) => c.id === "A.8.8")!;
    assert.equal(a88.title, "Handling technical vulnerabilities");
    assert.deepEqual(a88.controls.map((c) => [c.key, c.state]), [
      ["evidence.vulnerability_scan", "pass"],
    ]);
    assert.equal(a88.controls[0].evidenceObservedAt, "2026-11-01T10:00:00.000Z");
    const a829 = iso.criteria.find((c) => c.id === "A.8.29")!;
    assert.deepEqual(a829.controls.map((c) => c.key), ["custom.pentest"]);
    assert.equal(iso.criteriaMapped, iso.criteria.length);
    assert.ok(iso.criteriaPassing >= 1 && iso.criteriaPassing < iso.criteriaMapped);
    const slsa = view.frameworks.find((f) => f.id === "slsa")!;
    assert.ok(slsa.criteria.some((c) => c.id === "build-l3"));
    assert.ok(!iso.criteria.some((c) => c.id === "A.5.1"), "unsupported criteria are left out");
  });

  await t.step("HTML and Markdown say it in words, with the time of the evidence", async () => {
    const page = await ctx.call("GET", `/trust/${slug}/frameworks`, {
      headers: { accept: BROWSER },
    });
    assert.equal(page.status, 200);
    assert.match(page.headers.get("content-type")!, /text\/html/);
    assert.match(page.headers.get("content-security-policy")!, /default-src 'none'/);
    const html = await page.text();
    assert.match(html, /<code>A\.8\.8<\/code>Handling technical vulnerabilities/);
    assert.match(html, /Vulnerability scan<\/span><span class="pill s-pass">/);
    assert.match(html, /evidence of \d+ \w{3} \d{4}, \d\d:\d\d UTC/);
    const explicit = await (await ctx.call("GET", `/trust/${slug}/frameworks.html`)).text();
    assert.equal(explicit, html);
    const md = await ctx.call("GET", `/trust/${slug}/frameworks.md`);
    assert.match(md.headers.get("content-type")!, /text\/markdown/);
    const text = await md.text();
    assert.match(
      text,
      /- ISO\/IEC 27001 A\.8\.8 \(Handling technical vulnerabilities\) — Vulnerability scan: pass, evidence of \d+ \w{3} \d{4}, \d\d:\d\d UTC/,
    );
    const negotiated = await ctx.call("GET", `/trust/${slug}/frameworks`, {
      headers: { accept: "text/markdown" },
    });
    assert.equal(await negotiated.text(), text);
  });

  await t.step(
    "the latest trust page summarizes it; the versioned page does not change",
    async () => {
      const html = await (await ctx.call("GET", `/trust/${slug}.html`)).text();
      assert.match(html, /<h2 id="live-frameworks-title">Framework mappings<\/h2>/);
      assert.match(
        html,
        /ISO\/IEC 27001: \d+ criteria mapped; every mapped control passes for \d+; /,
      );
      assert.doesNotMatch(html, /criteria supported|with every control passing/);
      const md = await (await ctx.call("GET", `/trust/${slug}.md`)).text();
      assert.match(md, /## Framework mappings/);
      const version = await (await ctx.call("GET", `/trust/${slug}/versions/1/index.html`)).text();
      assert.ok(!version.includes("live-frameworks-title"));
    },
  );

  await t.step("the OSCAL export names each finding's criteria", async () => {
    const oscal = await ok(await ctx.call("GET", `/trust/${slug}/oscal-assessment-results.json`));
    const findings = oscal["assessment-results"].results[0].findings;
    const criteriaOf = (key: string) =>
      findings.find((f: { target: { "target-id": string } }) => f.target["target-id"] === key)
        .props.filter((p: { name: string }) => p.name === "framework-criterion")
        .map((p: { class: string; value: string }) => `${p.class}:${p.value}`);
    assert.deepEqual(criteriaOf("custom.pentest"), ["iso27001:A.8.29", "slsa:build-l3"]);
    assert.ok(criteriaOf("evidence.vulnerability_scan").includes("iso27001:A.8.8"));
  });

  await t.step("a private project's view is the trust pages' 404", async () => {
    await ok(
      await ctx.call("PATCH", `/projects/${acme.project.id}`, {
        token: acme.owner,
        json: { visibility: "private" },
      }),
    );
    const res = await ctx.call("GET", `/trust/${slug}/frameworks`);
    assert.equal(res.status, 404);
    await res.body?.cancel();
  });
});
