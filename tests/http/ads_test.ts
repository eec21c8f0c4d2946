/**
 * FedRAMP ADS on the trust center (docs/ads.md): the offering of the organization profile
 * (ADS-01, ADS-03) shown identically in the trust center's HTML, Markdown and JSON and in
 * `/public/trust/{orgSlug}/ads.json` (ADS-02); "How to get access" generated from the settings
 * (AC-01); the trust center's own status (answers counted per hour, disruptions).
 */
import assert from "node:assert/strict";
import { createTestApp, snapshotKv, type TestApp } from "../support/app.ts";
import { documentsWorkspace, makePdf, upload } from "../support/documents.ts";
import { readPublicStatus, StatusRecorder } from "../../src/store/public_status.ts";

const OFFERING = {
  marketplaceUrl: "https://marketplace.fedramp.gov/products/FR0000000000",
  serviceModel: "saas",
  deploymentModel: "government-community-cloud",
  businessCategory: "Security & compliance <tools>",
  uei: "abcd12345678",
  services: [
    { name: "Evidence API", description: "Collects *evidence* | from CI", impactLevel: "moderate" },
    { name: "Trust pages", impactLevel: "li-saas" },
    { name: "Exports [beta]", description: null, impactLevel: null },
  ],
  customerResponsibilities: "Keep your collector tokens secret.\n\nRotate them every 90 days.",
  secureConfigurationUrl: "https://acme.example/secure-config",
  accessProcess: "Ask your account manager if the form does not suit you.",
  supportContacts: [
    { label: "Customer support", email: "support@acme.example", url: "https://acme.example/help" },
    { label: "Trust & safety", phone: "+1 (555) 010-0100" },
  ],
  nextOngoingAuthorizationReport: "2027-01-15",
};

const entities: Record<string, string> = {
  "&amp;": "&",
  "&lt;": "<",
  "&gt;": ">",
  "&quot;": '"',
  "&#39;": "'",
};
const unescapeHtml = (text: string) =>
  text.replace(/<[^>]+>/g, "").replace(/&(amp|lt|gt|quot|#39);/g, (e) => entities[e]).trim();
const unescapeMarkdown = (text: string) =>
  text.replace(/\[(.*?)\]\(<[^>]*>\)/g, "$1").replace(/\\(.)/g, "$1")
    .replace(/&(amp|lt|gt);/g, (e) => entities[e]).trim();
const squash = (text: string) => text.replace(/\s+/g, " ").trim();

/** Every `data-ads` element's text, by field, in page order. */
function htmlValues(page: string): Map<string, string[]> {
  const values = new Map<string, string[]>();
  // The rows and list items holding one service or contact are containers, not values.
  const value = /<(\w+)[^>]*data-ads="(?!service"|supportContact")([^"]+)"[^>]*>([\s\S]*?)<\/\1>/g;
  for (const m of page.matchAll(value)) {
    values.set(m[2], [...values.get(m[2]) ?? [], squash(unescapeHtml(m[3]))]);
  }
  return values;
}

async function setUp(ctx: TestApp) {
  const ws = await documentsWorkspace(ctx);
  const res = await ctx.call("PATCH", `/organizations/${ws.orgId}/profile`, {
    token: ws.owner,
    json: { displayName: "Acme Cloud Inc.", offering: OFFERING },
  });
  assert.equal(res.status, 200, await res.clone().text());
  return ws;
}

Deno.test("[http] ADS-01: the offering is edited on the profile and bad input changes nothing", async () => {
  await using ctx = await createTestApp();
  const ws = await setUp(ctx);
  const path = `/organizations/${ws.orgId}/profile`;
  const { profile } = await (await ctx.call("GET", path, { token: ws.member })).json();
  assert.equal(profile.offering.uei, "ABCD12345678");
  assert.equal(profile.offering.services[1].description, null);
  assert.equal(profile.offering.supportContacts[1].email, null);

  const before = await snapshotKv(ctx.kv);
  const bad: Record<string, unknown>[] = [
    { serviceModel: "faas" },
    { deploymentModel: "cloud" },
    { uei: "short" },
    { marketplaceUrl: "http://marketplace.fedramp.gov/x" },
    { services: [{ name: "" }] },
    { services: [{ name: "x", impactLevel: "extreme" }] },
    { services: Array.from({ length: 101 }, (_, i) => ({ name: `s${i}` })) },
    { supportContacts: [{ label: "Nobody" }] },
    { supportContacts: [{ label: "x", phone: "call me" }] },
    { nextOngoingAuthorizationReport: "2027-02-30" },
    { customerResponsibilities: "x".repeat(5001) },
    { accessProcess: "bell\u0007" },
    { unknown: 1 },
  ];
  for (const offering of bad) {
    const res = await ctx.call("PATCH", path, { token: ws.owner, json: { offering } });
    assert.equal(res.status, 400, JSON.stringify(offering));
    assert.ok((await res.json()).error.message);
  }
  const member = await ctx.call("PATCH", path, {
    token: ws.member,
    json: { offering: { uei: null } },
  });
  assert.equal(member.status, 403);
  await member.body?.cancel();
  assert.equal(await snapshotKv(ctx.kv), before);

  // Fields left out are kept; null clears one.
  const res = await ctx.call("PATCH", path, {
    token: ws.owner,
    json: { offering: { uei: null } },
  });
  const { profile: changed } = await res.json();
  assert.equal(changed.offering.uei, null);
  assert.equal(changed.offering.services.length, 3);
});

Deno.test("[http] ADS-02: the offering is identical in the trust center's HTML, Markdown, JSON and ads.json", async () => {
  await using ctx = await createTestApp();
  const ws = await setUp(ctx);
  const center = `/public/trust/${ws.orgSlug}`;
  const json = await (await ctx.call("GET", center)).json();
  const ads = await (await ctx.call("GET", `${center}/ads.json`)).json();
  const html = await (await ctx.call("GET", `${center}.html`)).text();
  const md = await (await ctx.call("GET", `${center}.md`)).text();

  assert.equal(ads.kind, "ads-offering");
  assert.deepEqual(json.offering, ads.offering);
  const offering = ads.offering;
  assert.equal(offering.serviceModel, "saas");
  assert.equal(offering.uei, "ABCD12345678");
  assert.equal(json.adsUrl, `${json.url}/ads.json`);

  // What each raw value reads as on the pages.
  const expected = new Map<string, string[]>([
    ["serviceModel", ["Software as a Service (SaaS)"]],
    ["deploymentModel", ["Government-only community cloud"]],
    ["businessCategory", [offering.businessCategory]],
    ["uei", [offering.uei]],
    ["marketplaceUrl", [offering.marketplaceUrl]],
    ["nextOngoingAuthorizationReport", [offering.nextOngoingAuthorizationReport]],
    ["secureConfigurationUrl", [offering.secureConfigurationUrl]],
    ["service.name", offering.services.map((s: { name: string }) => s.name)],
    ["service.impactLevel", ["Moderate", "Low (LI-SaaS)", "Not stated"]],
    [
      "service.description",
      offering.services.map((s: { description: string | null }) => s.description ?? ""),
    ],
    ["customerResponsibilities", [squash(offering.customerResponsibilities)]],
    ["supportContact.label", offering.supportContacts.map((c: { label: string }) => c.label)],
    ["supportContact.email", ["support@acme.example"]],
    ["supportContact.url", ["https://acme.example/help"]],
    ["supportContact.phone", ["+1 (555) 010-0100"]],
  ]);
  assert.deepEqual(htmlValues(html), expected);

  // Markdown: the facts as "- **Label**: value", the services table, the texts and contacts.
  const section = md.slice(md.indexOf("## The service offering"));
  const facts = new Map(
    [...section.matchAll(/^- \*\*(.+?)\*\*: (.*)$/gm)]
      .map((m) => [unescapeMarkdown(m[1]), unescapeMarkdown(m[2])]),
  );
  const fact = (label: string) => facts.get(label);
  assert.equal(fact("Service model"), expected.get("serviceModel")![0]);
  assert.equal(fact("Deployment model"), expected.get("deploymentModel")![0]);
  assert.equal(fact("Business category"), offering.businessCategory);
  assert.equal(fact("UEI"), offering.uei);
  assert.equal(fact("FedRAMP Marketplace"), offering.marketplaceUrl);
  assert.equal(fact("Next Ongoing Authorization Report"), offering.nextOngoingAuthorizationReport);
  assert.equal(fact("Secure configuration guide"), offering.secureConfigurationUrl);
  const rows = section.split("\n").filter((l) => l.startsWith("| ") && !l.startsWith("| Service"))
    .map((l) => l.slice(2, -2).split(/(?<!\\) \| /).map(unescapeMarkdown));
  assert.deepEqual(
    rows,
    offering.services.map((s: { name: string; description: string | null }, i: number) => [
      s.name,
      expected.get("service.impactLevel")![i],
      s.description ?? "",
    ]),
  );
  assert.ok(
    squash(section).includes("Keep your collector tokens secret. Rotate them every 90 days."),
  );
  assert.equal(
    fact("Customer support"),
    "support@acme.example · https://acme.example/help",
  );
  assert.equal(fact("Trust & safety"), "+1 (555) 010-0100");

  // A change shows everywhere at once.
  await ctx.call("PATCH", `/organizations/${ws.orgId}/profile`, {
    token: ws.owner,
    json: { offering: { serviceModel: "paas" } },
  });
  const again = await (await ctx.call("GET", `${center}.html`)).text();
  assert.deepEqual(htmlValues(again).get("serviceModel"), ["Platform as a Service (PaaS)"]);
  const adsAgain = await (await ctx.call("GET", `${center}/ads.json`)).json();
  assert.equal(adsAgain.offering.serviceModel, "paas");
});

Deno.test("[http] AC-01: how to get access follows the organization's settings", async () => {
  await using ctx = await createTestApp();
  const ws = await setUp(ctx);
  const access = `/public/trust/${ws.orgSlug}/access`;
  const steps = async () => (await (await ctx.call("GET", access)).json()).steps as string[];

  assert.deepEqual(await steps(), [
    "Acme Cloud Inc. shares no restricted documents here: there is nothing to request.",
  ]);
  const bytes = await makePdf();
  assert.equal(
    (await upload(ctx, ws.orgId, { token: ws.owner, bytes, query: "title=SOC%202" })).status,
    201,
  );
  const noNda = await steps();
  assert.match(noNda.join(" "), /cannot be requested here yet/);

  await ctx.call("PUT", `/organizations/${ws.orgId}/nda`, {
    token: ws.owner,
    json: { text: "Keep it secret." },
  });
  const manual = await steps();
  assert.match(manual.join(" "), /Read and accept Acme Cloud Inc\.'s NDA \(version 1\)/);
  assert.match(manual.join(" "), /reviews each request/);
  assert.doesNotMatch(manual.join(" "), /approved at once/);

  const settings = await ctx.call("PUT", `/organizations/${ws.orgId}/document-settings`, {
    token: ws.owner,
    json: { autoApproveDomains: ["agency.gov"] },
  });
  assert.equal(settings.status, 200);
  await settings.body?.cancel();
  const guide = await (await ctx.call("GET", access)).json();
  assert.equal(guide.autoApproval, true);
  assert.match(guide.steps.join(" "), /approved at once/);
  assert.equal(guide.requestFormUrl, `${guide.trustCenterUrl}/documents/request`);
  // The domains themselves are not published.
  const md = await (await ctx.call("GET", `${access}.md`)).text();
  const html = await (await ctx.call("GET", access, { headers: { accept: "text/html" } })).text();
  for (const text of [md, html, JSON.stringify(guide)]) assert.ok(!text.includes("agency.gov"));
  // The same steps in each form, and the vendor's words and contacts.
  const htmlSteps = [...html.matchAll(/<li data-ads="step">([\s\S]*?)<\/li>/g)]
    .map((m) => squash(unescapeHtml(m[1])));
  assert.deepEqual(htmlSteps, guide.steps);
  const mdSteps = md.split("\n").filter((l) => /^\d+\. /.test(l))
    .map((l) => unescapeMarkdown(l.replace(/^\d+\. /, "")));
  assert.deepEqual(mdSteps, guide.steps);
  assert.ok(html.includes(OFFERING.accessProcess));
  assert.ok(md.includes("support@acme.example"));
  const ads = await (await ctx.call("GET", `/public/trust/${ws.orgSlug}/ads.json`)).json();
  assert.deepEqual(ads.access, guide);

  assert.equal((await ctx.call("GET", "/public/trust/nobody-here/access")).status, 404);
});

Deno.test("[http] the trust center's status: public answers counted per hour, 5xx hours are disruptions", async () => {
  await using ctx = await createTestApp();
  const ws = await setUp(ctx);
  const status = `/public/trust/${ws.orgSlug}/status`;
  const first = await (await ctx.call("GET", status)).json();
  // The answers before this one (the set-up reads none publicly) are counted when it reads.
  const counted = first.last24Hours.answers;
  for (let i = 0; i < 3; i++) {
    await (await ctx.call("GET", `/public/trust/${ws.orgSlug}`)).body?.cancel();
  }
  await (await ctx.call("GET", "/public/trust/nobody-here")).body?.cancel();
  await (await ctx.call("GET", `/organizations/${ws.orgId}/profile`, { token: ws.owner })).body
    ?.cancel();
  const second = await (await ctx.call("GET", status)).json();
  // The first status read, three pages and a 404 (served, not failed); the dashboard API is not public.
  assert.equal(second.last24Hours.answers, counted + 5);
  assert.equal(second.last24Hours.failed, 0);
  assert.equal(second.last24Hours.availability, 1);
  assert.deepEqual(second.disruptions, []);

  // Failures in two consecutive hours and one later hour: two disruptions, newest first.
  const recorder = new StatusRecorder(ctx.kv);
  const at = (iso: string) => new Date(iso);
  recorder.count(at("2026-11-01T08:10:00Z"), 200);
  recorder.count(at("2026-11-01T08:20:00Z"), 503);
  recorder.count(at("2026-11-01T09:05:00Z"), 500);
  recorder.count(at("2026-11-01T09:06:00Z"), 200);
  recorder.count(at("2026-11-01T11:30:00Z"), 502);
  await recorder.flush(at("2026-11-01T11:31:00Z"));
  const read = await readPublicStatus(ctx.kv, ctx.clock.now());
  assert.deepEqual(read.disruptions, [
    { start: "2026-11-01T11:00:00.000Z", end: "2026-11-01T12:00:00.000Z", answers: 1, failed: 1 },
    { start: "2026-11-01T08:00:00.000Z", end: "2026-11-01T10:00:00.000Z", answers: 4, failed: 2 },
  ]);
  assert.equal(read.last24Hours.failed, 3);
  const html = await (await ctx.call("GET", status, { headers: { accept: "text/html" } })).text();
  assert.match(html, /2 of 4 answers failed/);
  const md = await (await ctx.call("GET", `${status}.md`)).text();
  assert.match(md, /Recent disruptions/);
  const ads = await (await ctx.call("GET", `/public/trust/${ws.orgSlug}/ads.json`)).json();
  assert.equal(ads.status.last24Hours.failed, 3);
  // Hours older than 30 days are not read.
  const later = await readPublicStatus(
    ctx.kv,
    new Date(ctx.clock.now().getTime() + 31 * 86400_000),
  );
  assert.equal(later.last30Days.answers, 0);
  assert.equal(later.measuredSince, null);
});
