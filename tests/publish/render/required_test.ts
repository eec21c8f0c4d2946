/**
 * Controls the vendor marks required (issue 35): a control neither reported nor required does
 * not change the headline's verdict; a required one that has not reported makes it unknown and
 * is named ("Not reported: Policy results (required)"). The HTML headline, the Markdown's
 * first line, trust.json's `summary.verdict` and the trust center's lines say the same.
 */
import assert from "node:assert/strict";
import type {
  PublishedTrustControl,
  PublishedTrustProfile,
  PublishedTrustSummary,
} from "../../../src/domain/publish.ts";
import { headline, summaryLine, verdict } from "../../../src/publish/render/_format.ts";
import {
  renderOrgTrustCenterHtml,
  renderOrgTrustCenterMarkdown,
  renderTrustPageHtml,
  renderTrustPageMarkdown,
  serializeTrustJson,
} from "../../../src/publish/render/mod.ts";
import { acmeProfile, LINKS, PUBLISHED_AT, SEVEN_CONTROLS } from "./_fixtures.ts";

/** The seven controls with every one that is not passing turned into "never reported". */
const PASSING_OR_SILENT: PublishedTrustControl[] = SEVEN_CONTROLS.map((c) =>
  c.state === "pass" ? c : {
    ...c,
    state: "unknown" as const,
    confidence: 0,
    latestEvidenceAt: null,
    freshUntil: null,
    nextCheckAt: null,
  }
);

function requiring(controls: PublishedTrustControl[], ...keys: string[]): PublishedTrustControl[] {
  return controls.map((c) => keys.includes(c.key) ? { ...c, required: true as const } : c);
}

/** The HTML headline's state, label, title and detail. */
function htmlHeadline(page: string): string[] {
  const m = page.match(
    /<div class="overall s-([a-z]+)">[\s\S]*?<p class="label">([^<]*)<\/p>\s*<p class="state">([^<]*)<\/p>\s*<p class="why">([^<]*)<\/p>/,
  );
  assert.ok(m, "the page has a headline");
  return m.slice(1);
}

/** What one profile says as its verdict in HTML, Markdown and trust.json. */
function renderings(profile: PublishedTrustProfile) {
  const page = renderTrustPageHtml(profile, LINKS);
  const md = renderTrustPageMarkdown(profile, LINKS);
  const json = JSON.parse(new TextDecoder().decode(serializeTrustJson(profile)));
  return { page, md, json, html: htmlHeadline(page), mdLine: md.split("\n")[2] };
}

Deno.test("[publish] headline(): required controls not reported make the verdict unknown and are named", () => {
  const base: PublishedTrustSummary = {
    overallState: "unknown",
    totalControls: 7,
    passCount: 3,
    failCount: 0,
    staleCount: 0,
    degradedCount: 0,
    unknownCount: 4,
  };
  const named = requiring(PASSING_OR_SILENT, "evidence.policy_result");
  const rows: {
    name: string;
    input: PublishedTrustSummary;
    controls?: PublishedTrustControl[];
    expected: string[];
  }[] = [
    {
      name: "four not reported, none required: the verdict is what reported",
      input: { ...base, requiredUnknownCount: 0 },
      expected: [
        "pass",
        "Reported controls",
        "All 3 reported controls pass",
        "4 controls not reported yet · overall: unknown",
      ],
    },
    {
      name: "one of them required: named",
      input: { ...base, requiredUnknownCount: 1 },
      controls: named,
      expected: [
        "unknown",
        "Required controls",
        "Not reported: Policy results (required)",
        "3 of 3 reported controls pass · 4 not reported, 1 required",
      ],
    },
    {
      name: "two required: counted",
      input: { ...base, requiredUnknownCount: 2 },
      controls: requiring(PASSING_OR_SILENT, "evidence.policy_result", "evidence.sbom"),
      expected: [
        "unknown",
        "Required controls",
        "2 required controls not reported",
        "3 of 3 reported controls pass · 4 not reported, 2 required",
      ],
    },
    {
      name: "a failure still leads, with the required count beside it",
      input: {
        ...base,
        overallState: "fail",
        passCount: 2,
        failCount: 1,
        requiredUnknownCount: 1,
      },
      expected: [
        "fail",
        "Overall state",
        "Fail",
        "2 of 3 reported controls pass · 4 not reported, 1 required",
      ],
    },
    {
      name: "nothing reported, one required",
      input: { ...base, passCount: 0, unknownCount: 7, requiredUnknownCount: 1 },
      controls: requiring(
        SEVEN_CONTROLS.map((c) => ({ ...c, state: "unknown" as const })),
        "evidence.sbom",
      ),
      expected: [
        "unknown",
        "Required controls",
        "Not reported: Software bill of materials (required)",
        "None of 7 controls has reported yet, 1 of them required",
      ],
    },
    {
      name: "a version published before required marks (no count) reads as none required",
      input: base,
      expected: [
        "pass",
        "Reported controls",
        "All 3 reported controls pass",
        "4 controls not reported yet · overall: unknown",
      ],
    },
  ];
  for (const { name, input, controls, expected } of rows) {
    const lead = headline(input, controls);
    assert.deepEqual([lead.state, lead.label, lead.title, lead.detail], expected, name);
    assert.equal(lead.state, verdict(input), name);
  }
  assert.equal(
    summaryLine({
      ...base,
      totalControls: 1,
      passCount: 0,
      unknownCount: 1,
      requiredUnknownCount: 1,
    }),
    "The control has not reported yet (required)",
  );
});

Deno.test("[publish] a never-reported control that is not required leaves the verdict with what reported, in HTML, Markdown and JSON", () => {
  const { page, md, json, html, mdLine } = renderings(acmeProfile(PASSING_OR_SILENT));
  assert.equal(json.summary.overallState, "unknown", "trust.json keeps the evaluator's rule");
  assert.equal(json.summary.verdict, "pass");
  assert.equal(json.summary.requiredUnknownCount, 0);
  assert.ok(json.controls.every((c: object) => !("required" in c)), "no control is marked");
  assert.deepEqual(html, [
    "pass",
    "Reported controls",
    "All 3 reported controls pass",
    "4 controls not reported yet · overall: unknown",
  ]);
  assert.equal(
    mdLine,
    "**All 3 reported controls pass.** 4 controls not reported yet · overall: unknown.",
  );
  assert.doesNotMatch(page, /Required by the vendor/);
  assert.doesNotMatch(md, /\(required\)/);
  // Listed apart, after every category.
  assert.match(page, /<h3 id="group-not-reported">Not reported yet<\/h3>/);
});

Deno.test("[publish] a required control not reported leads the headline, the same in HTML, Markdown and JSON", () => {
  const controls = requiring(PASSING_OR_SILENT, "evidence.policy_result");
  const { page, md, json, html, mdLine } = renderings(acmeProfile(controls));
  assert.equal(json.summary.overallState, "unknown");
  assert.equal(json.summary.verdict, "unknown");
  assert.equal(json.summary.requiredUnknownCount, 1);
  const marked = json.controls.filter((c: { required?: boolean }) => c.required === true);
  assert.deepEqual(marked.map((c: { key: string }) => c.key), ["evidence.policy_result"]);
  assert.deepEqual(html, [
    "unknown",
    "Required controls",
    "Not reported: Policy results (required)",
    "3 of 3 reported controls pass · 4 not reported, 1 required",
  ]);
  assert.equal(html[0], json.summary.verdict, "HTML and JSON agree on the verdict");
  assert.equal(
    mdLine,
    "**Not reported: Policy results \\(required\\).** 3 of 3 reported controls pass · 4 not reported, 1 required.",
  );
  // The required control stays in its category with the mark; the others are listed apart.
  // (The fixtures' controls carry no buyer category: they are shown under "Other controls".)
  const policy = page.indexOf('<h3 id="group-other">');
  const apart = page.indexOf('<h3 id="group-not-reported">');
  const row = page.indexOf('<tr id="control-evidence.policy_result">');
  assert.ok(policy > 0 && apart > policy && row > policy && row < apart, "in its category");
  assert.match(
    page.slice(row, page.indexOf("</tr>", row)),
    /Policy results<span class="rel">Required by the vendor<\/span>/,
  );
  assert.match(md, /\| Policy results \(required\) \| `evidence\.policy_result` \|/);
});

Deno.test("[publish] a failing control leads whatever is required, and HTML, Markdown and JSON agree", () => {
  const controls = requiring(SEVEN_CONTROLS, "evidence.policy_result");
  const { json, html, mdLine } = renderings(acmeProfile(controls));
  assert.equal(json.summary.overallState, "fail");
  assert.equal(json.summary.verdict, "fail");
  assert.deepEqual(html, [
    "fail",
    "Overall state",
    "Fail",
    "3 of 6 reported controls pass · 1 not reported, 1 required",
  ]);
  assert.equal(
    mdLine,
    "**Overall state: fail.** 3 of 6 reported controls pass · 1 not reported, 1 required.",
  );
});

Deno.test("[publish] the trust center's project lines show the verdict, in HTML and Markdown", () => {
  const center = (summary: PublishedTrustSummary) => ({
    organization: { name: "Acme", slug: "acme" },
    projects: [{
      slug: "acme",
      name: "Acme Cloud",
      hostedSubdomain: null,
      version: 7,
      publishedAt: PUBLISHED_AT,
      summary,
      url: "https://trust.example.com/trust/acme",
    }],
    vendor: null,
    url: "https://trust.example.com/public/trust/acme",
    subprocessorsUrl: "https://trust.example.com/public/trust/acme/subprocessors",
  });
  const links = (slug: string) => `https://trust.example.com/trust/${slug}`;
  const silent = acmeProfile(PASSING_OR_SILENT).summary;
  const required = acmeProfile(requiring(PASSING_OR_SILENT, "evidence.policy_result")).summary;
  const cases: [PublishedTrustSummary, string, string][] = [
    [silent, "pass", "3 of 3 reported controls pass · 4 not reported"],
    [required, "unknown", "3 of 3 reported controls pass · 4 not reported, 1 required"],
  ];
  for (const [summary, state, line] of cases) {
    const page = renderOrgTrustCenterHtml(center(summary), links);
    assert.match(page, new RegExp(`<span class="pill s-${state}">`), state);
    assert.ok(page.includes(line), line);
    const md = renderOrgTrustCenterMarkdown(center(summary), links);
    assert.ok(md.includes("| Project | Verdict | Controls |"), md);
    assert.ok(md.includes(`| ${state} | ${line} |`), md);
  }
});
