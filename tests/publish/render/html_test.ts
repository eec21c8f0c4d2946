import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import type { TrustCenterPage } from "../../../src/publish/render/org_center.ts";
import { escapeHtml } from "../../../src/lib/escape.ts";
import {
  renderOrgTrustCenterHtml,
  renderTrustPageHtml,
  styleHash,
  TRUST_PAGE_STYLE,
  trustPageCsp,
} from "../../../src/publish/render/mod.ts";
import {
  acmeProfile,
  HOSTILE_CONTROL,
  HOSTILE_NAME,
  hostileProfile,
  LINKS,
  PUBLISHED_AT,
} from "./_fixtures.ts";

/** The text of every `<style>` element. */
function styles(page: string): string[] {
  return [...page.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]);
}

/** The `<tr>` of each control, in order. */
/** The controls' rows of every table body, in page order (controls come in groups). */
function rows(page: string): string[] {
  const bodies = [...page.matchAll(/<tbody>([\s\S]*?)<\/tbody>/g)].map((m) => m[1]).join("");
  return [...bodies.matchAll(/<tr(?: [^>]*)?>([\s\S]*?)<\/tr>/g)].map((m) => m[1]);
}

function center(name: string, projectName: string): TrustCenterPage {
  const p = acmeProfile();
  return {
    organization: { name, slug: "acme-inc" },
    projects: [
      {
        slug: "acme",
        name: projectName,
        hostedSubdomain: null,
        version: 7,
        publishedAt: PUBLISHED_AT,
        summary: p.summary,
        url: "https://trust.example.com/trust/acme",
      },
      {
        slug: "acme-api",
        name: "Acme Public API",
        hostedSubdomain: null,
        version: 12,
        publishedAt: "2026-03-13T18:02:00Z",
        summary: {
          ...p.summary,
          overallState: "pass",
          passCount: 7,
          failCount: 0,
          staleCount: 0,
          degradedCount: 0,
          unknownCount: 0,
        },
        url: "https://trust.example.com/trust/acme-api",
      },
    ],
    vendor: null,
    url: "https://trust.example.com/public/trust/acme-inc",
    subprocessorsUrl: "https://trust.example.com/public/trust/acme-inc/subprocessors",
  };
}

Deno.test("[publish] renderTrustPageHtml() escapes vendor text", () => {
  const page = renderTrustPageHtml(hostileProfile(), LINKS);
  assert.ok(!page.includes("<script"), "no script element or raw script tag anywhere");
  assert.ok(!page.includes("<img"), "no raw img tag anywhere");
  assert.ok(!page.includes("onerror=alert(1)>"), "the attribute never closes a raw tag");
  assert.equal(styles(page).length, 1, "the control name did not close the style element");
  assert.ok(page.includes(`<h1 id="title">${escapeHtml(HOSTILE_NAME)}</h1>`), "name shown as text");
  assert.ok(page.includes(`<title>${escapeHtml(HOSTILE_NAME)}: trust profile</title>`));
  assert.ok(page.includes(`content="${escapeHtml(HOSTILE_NAME)} trust profile`), "meta escaped");
  assert.ok(page.includes(`<th scope="row">${escapeHtml(HOSTILE_CONTROL)}<span`), "control name");
});

Deno.test("[publish] renderTrustPageHtml() inline style matches styleHash()", async () => {
  const page = renderTrustPageHtml(acmeProfile(), LINKS);
  const [style] = styles(page);
  assert.equal(style, TRUST_PAGE_STYLE);
  const node = `'sha256-${createHash("sha256").update(style).digest("base64")}'`;
  assert.equal(styleHash(), node);
  // A second implementation (WebCrypto over the UTF-8 bytes), as a browser computes it.
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(style));
  const web = `'sha256-${btoa(String.fromCharCode(...new Uint8Array(digest)))}'`;
  assert.equal(styleHash(), web);
  assert.ok(trustPageCsp().startsWith("default-src 'none'; "), trustPageCsp());
  assert.ok(trustPageCsp().includes(`style-src ${styleHash()}`), trustPageCsp());
  assert.doesNotMatch(trustPageCsp(), /script-src|unsafe-inline/);
  assert.equal(
    renderOrgTrustCenterHtml(center("Acme", "Acme Cloud"), (s) => s).includes(
      `<style>${TRUST_PAGE_STYLE}</style>`,
    ),
    true,
    "the org page uses the same hashed stylesheet",
  );
});

Deno.test("[publish] renderTrustPageHtml() loads nothing and needs nothing the CSP blocks", () => {
  const page = renderTrustPageHtml(acmeProfile(), LINKS);
  assert.ok(page.startsWith('<!doctype html>\n<html lang="en">'), page.slice(0, 40));
  assert.doesNotMatch(page, /<script|<iframe|<img|<object|<embed|\ssrc=/i);
  assert.doesNotMatch(page, /<link[^>]+rel="(stylesheet|icon|preload)"/);
  assert.doesNotMatch(page, /\sstyle="/, "style attributes would be blocked by the CSP");
  assert.doesNotMatch(page, /\son[a-z]+=/i, "no event handler attributes");
  assert.doesNotMatch(TRUST_PAGE_STYLE, /url\(|@import|@font-face/);
  assert.match(TRUST_PAGE_STYLE, /^[\x20-\x7e\n]*$/, "the stylesheet is ASCII");
  assert.match(TRUST_PAGE_STYLE, /prefers-color-scheme:dark/);
  assert.match(page, /<meta name="viewport" content="width=device-width, initial-scale=1">/);
});

Deno.test("[publish] renderTrustPageHtml() has landmarks and headings in order", () => {
  const page = renderTrustPageHtml(acmeProfile(), LINKS);
  for (const landmark of ["<header", "<main", "<nav", "<footer"]) {
    assert.ok(page.includes(landmark), landmark);
  }
  const headings = [...page.matchAll(/<h([1-6])[^>]*>([^<]*)/g)].map((m) => `${m[1]} ${m[2]}`);
  assert.deepEqual(headings, [
    "1 Acme Cloud",
    "2 Summary",
    "2 Controls",
    "3 Other controls",
    "3 Not reported yet",
    "2 Downloads and verification",
    "3 This profile",
    "3 History and log",
  ]);
  // Five column headers a table: the reported controls', and those not reported yet.
  assert.equal([...page.matchAll(/<th scope="col">/g)].length, 10, "column headers");
  assert.equal([...page.matchAll(/<th scope="row">/g)].length, 7, "a row header per control");
  assert.match(page, /<caption class="vh">/);
});

Deno.test("[publish] renderTrustPageHtml() links every companion document", () => {
  const page = renderTrustPageHtml(acmeProfile(), LINKS);
  for (const [name, url] of Object.entries(LINKS)) {
    assert.ok(page.includes(`<a href="${escapeHtml(url)}"`), `${name} link ${url}`);
  }
  assert.ok(
    page.includes(`<link rel="alternate" type="application/atom+xml" href="${LINKS.feed}"`),
  );
  assert.ok(
    page.includes(`<link rel="alternate" type="application/json" href="${LINKS.trustJson}"`),
  );
});

Deno.test("[publish] renderTrustPageHtml() shows the summary and every control with its state", () => {
  const profile = acmeProfile();
  const page = renderTrustPageHtml(profile, LINKS);
  assert.match(page, /<p class="state">Fail<\/p>/, "overall state in words");
  assert.match(page, /<p class="why">3 of 6 reported controls pass · 1 not reported<\/p>/);
  assert.match(page, /<dt>Version<\/dt>\s*<dd>7<\/dd>/);
  assert.ok(page.includes('<time datetime="2026-03-14T09:30:00Z">'), "publication time");
  const counts = { pass: 3, fail: 1, degraded: 1, stale: 1, unknown: 1 };
  for (const [state, n] of Object.entries(counts)) {
    assert.match(page, new RegExp(`<li class="s-${state}">\\s*<span class="n">${n}</span>`), state);
  }
  const trs = rows(page);
  assert.equal(trs.length, profile.controls.length);
  profile.controls.forEach((control, i) => {
    const row = trs[i];
    const label = control.state[0].toUpperCase() + control.state.slice(1);
    assert.ok(row.includes(`<th scope="row">${control.name}<span`), control.key);
    assert.ok(row.replaceAll("<wbr>", "").includes(`<code>${control.key}</code>`), control.key);
    assert.match(row, new RegExp(`class="pill s-${control.state}">.*${label}</span>`), control.key);
    assert.ok(row.includes(`>Confidence ${Math.round(control.confidence * 100)}%<`), control.key);
  });
});

Deno.test("[publish] renderTrustPageHtml() words times from the data, not the clock", async (t) => {
  const profile = acmeProfile();
  await t.step("evidence age and freshness are measured from the publication", () => {
    const sbom = rows(renderTrustPageHtml(profile, LINKS))[1];
    assert.ok(sbom.includes('<time datetime="2026-03-14T06:30:00Z">'), sbom);
    assert.ok(sbom.includes('<span class="rel">3 hours before publication</span>'), sbom);
    assert.ok(sbom.includes('<span class="rel">6 days after publication</span>'), sbom);
  });
  await t.step("the same arguments give the same page", () => {
    assert.equal(renderTrustPageHtml(profile, LINKS), renderTrustPageHtml(acmeProfile(), LINKS));
  });
  await t.step(
    "`now` describes freshness from that instant, evidence age still from publication",
    () => {
      const now = new Date(Date.parse(PUBLISHED_AT) + 2 * 86_400_000).toISOString();
      const sbom = rows(renderTrustPageHtml(profile, LINKS, { now }))[1];
      assert.ok(sbom.includes("3 hours before publication"), sbom);
      assert.ok(sbom.includes('<span class="rel">4 days from now</span>'), sbom);
    },
  );
  await t.step("missing times say why", () => {
    const unknown = rows(renderTrustPageHtml(profile, LINKS))[6];
    assert.ok(unknown.includes("No evidence yet"), unknown);
    assert.ok(unknown.includes("Awaiting evidence"), unknown);
  });
});

Deno.test("[publish] renderTrustPageHtml() explains a profile without controls", () => {
  const page = renderTrustPageHtml(acmeProfile([]), LINKS);
  assert.ok(!page.includes("<table"), "no empty table");
  assert.match(page, /No control is enabled for this project yet/);
  assert.match(page, /<p class="state">No controls<\/p>/);
  assert.match(page, /<p class="why">No control is enabled yet<\/p>/);
});

Deno.test("[publish] renderOrgTrustCenterHtml() lists every project with its state and link", () => {
  const page = renderOrgTrustCenterHtml(
    center("Acme, Inc.", "Acme Cloud"),
    (slug) => `/trust/${slug}`,
  );
  assert.match(page, /<title>Acme, Inc\.: trust center<\/title>/);
  assert.match(page, /<h1 id="title">Acme, Inc\.<\/h1>/);
  assert.match(page, /<h3><a href="\/trust\/acme">Acme Cloud<\/a><\/h3>/);
  assert.match(page, /<h3><a href="\/trust\/acme-api">Acme Public API<\/a><\/h3>/);
  assert.equal([...page.matchAll(/<li class="card">/g)].length, 2);
  assert.match(page, /class="pill s-fail">.*Fail<\/span>/);
  assert.match(page, /class="pill s-pass">.*Pass<\/span>/);
  assert.match(
    page,
    /3 of 6 reported controls pass · 1 not reported · Version 7 · Published <time datetime="2026-03-14T09:30:00Z">/,
  );
  assert.match(page, /2 projects publish live/);
  assert.match(
    page,
    /<meta name="description" content="Acme, Inc\. trust center\. 2 projects publish live, signed trust profiles\./,
  );
});

Deno.test("[publish] renderOrgTrustCenterHtml() escapes vendor text", () => {
  const page = renderOrgTrustCenterHtml(
    center(HOSTILE_NAME, HOSTILE_CONTROL),
    (s) => `/trust/${s}`,
  );
  assert.ok(!page.includes("<script"));
  assert.ok(!page.includes("<img"));
  assert.equal(styles(page).length, 1);
  assert.ok(page.includes(`<h1 id="title">${escapeHtml(HOSTILE_NAME)}</h1>`));
  assert.ok(page.includes(`>${escapeHtml(HOSTILE_CONTROL)}</a>`));
});

Deno.test("[publish] renderOrgTrustCenterHtml() says when nothing is published", () => {
  const page = renderOrgTrustCenterHtml(
    {
      organization: { name: "Acme", slug: "acme" },
      projects: [],
      vendor: null,
      url: "https://t/o",
      subprocessorsUrl: "https://t/o/subprocessors",
    },
    (s) => s,
  );
  assert.match(page, /No project of Acme has published a trust profile yet/);
  assert.ok(!page.includes('class="projects"'));
  assert.match(page, /0 projects publish/);
});
