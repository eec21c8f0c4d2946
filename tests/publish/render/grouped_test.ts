/**
 * The trust page renderers with this service's additions: controls grouped by buyer
 * category, each with what it checks, its reason and evidence digest, the signals at
 * publication, and hostile vendor text in reasons, names and descriptions kept as text.
 */
import assert from "node:assert/strict";
import type { TrustSignalDetection } from "../../../src/domain/collector.ts";
import type { PublishedTrustControl } from "../../../src/domain/publish.ts";
import {
  escapeMarkdown,
  renderNotFoundHtml,
  renderTrustPageHtml,
  renderTrustPageMarkdown,
} from "../../../src/publish/render/mod.ts";
import { acmeProfile, HOSTILE_CONTROL, HOSTILE_NAME, LINKS, SEVEN_CONTROLS } from "./_fixtures.ts";

const DIGEST = `sha256:${"9f86d081884c7d65".repeat(4)}`;
const GROUPS: Record<string, PublishedTrustControl["group"]> = {
  "collector.heartbeat": "liveness",
  "evidence.sbom": "supply_chain",
  "evidence.vulnerability_scan": "vulnerability_management",
  "evidence.build_provenance": "supply_chain",
  "evidence.dependency_inventory": "supply_chain",
  "evidence.deployment_snapshot": "runtime",
  "evidence.policy_result": "policy",
};

/** The seven controls with reasons, evidence, groups and descriptions, as a publish makes them. */
function explained(): PublishedTrustControl[] {
  return SEVEN_CONTROLS.map((c) => ({
    ...c,
    reason: c.key === "evidence.vulnerability_scan"
      ? "Trivy report: 2 critical, 0 high"
      : `${c.name}: ${c.state}`,
    evidence: { digest: c.latestEvidenceAt ? DIGEST : null, observedAt: c.latestEvidenceAt },
    group: GROUPS[c.key],
    description: `Checks ${c.name.toLowerCase()}`,
  }));
}

const SIGNALS: TrustSignalDetection = {
  detectedAt: "2026-03-13T08:00:00.000Z",
  commitSha: "3f2a9c1d0e4b5a6978877665544332211aabbccd",
  ciCd: { detected: true, tools: ["GitHub Actions"] },
  monitoring: { detected: false },
  authProvider: { detected: true, providers: [HOSTILE_NAME] },
  cloudProvider: { detected: true },
  securityContact: { detected: true, email: "security@acme.example" },
};

Deno.test("[publish] the HTML page groups controls by buyer category in the registry's order", () => {
  const page = renderTrustPageHtml(acmeProfile(explained()), LINKS);
  const headings = [...page.matchAll(/<h3 id="group-([a-z_-]+)">([^<]*)/g)].map((m) => m[2]);
  // The one control that never reported (policy results) is listed apart, after the categories.
  assert.deepEqual(headings, [
    "Supply chain",
    "Vulnerability management",
    "Runtime",
    "Liveness",
    "Not reported yet",
  ]);
  const apart = page.slice(page.indexOf('id="group-not-reported"'));
  assert.ok(apart.includes("Policy results"), "the silent control is in its own table");
  const supply = page.slice(page.indexOf('id="group-supply_chain"'), page.indexOf("group-vuln"));
  for (const name of ["Software bill of materials", "Build provenance", "Dependency inventory"]) {
    assert.ok(supply.includes(name), name);
  }
  assert.equal([...page.matchAll(/<th scope="row">/g)].length, 7);
});

Deno.test("[publish] each HTML row has what it checks, the reason and the evidence digest", () => {
  const page = renderTrustPageHtml(acmeProfile(explained()), LINKS);
  assert.match(page, /<span class="checks">Checks vulnerability scan<\/span>/);
  assert.match(page, /<td data-label="Why" class="reason">Trivy report: 2 critical, 0 high<\/td>/);
  assert.ok(page.includes(`<summary title="${DIGEST}">`), "the full digest on hover");
  assert.ok(page.includes(`<code>${DIGEST}</code>`), "and in the details");
  assert.ok(page.includes("<code>sha256:9f86d081884c…</code>"), "short form");
  const unknown = page.slice(page.indexOf("Policy results"));
  assert.ok(!unknown.slice(0, unknown.indexOf("</tr>")).includes("<details"), "no digest");
});

Deno.test("[publish] hostile vendor text in reasons, names and descriptions stays text", () => {
  const controls = explained().map((c) => ({
    ...c,
    name: HOSTILE_CONTROL,
    reason: HOSTILE_NAME,
    description: HOSTILE_CONTROL,
  }));
  const page = renderTrustPageHtml(acmeProfile(controls), LINKS, { signals: SIGNALS });
  for (const raw of ["<img", "<script", "</style><"]) {
    assert.ok(!page.includes(raw), raw);
  }
  assert.ok(page.includes("&lt;img src=x onerror=alert(1)&gt;"));
  const md = renderTrustPageMarkdown(acmeProfile(controls), LINKS, { signals: SIGNALS });
  assert.ok(!md.includes("<img") && !md.includes("<script"), "no raw markup in Markdown");
  assert.ok(md.includes(escapeMarkdown(HOSTILE_NAME)));
  const rows = md.split("\n").filter((l) => l.startsWith("| ") && l.includes("&lt;img"));
  assert.equal(rows.length, 7, "one intact row per control");
});

Deno.test("[publish] signals are shown as of their detection, only when there is one", () => {
  const page = renderTrustPageHtml(acmeProfile(explained()), LINKS, { signals: SIGNALS });
  assert.match(page, /<h2 id="signals-title">Signals<\/h2>/);
  assert.match(page, /As detected on <time datetime="2026-03-13T08:00:00Z">/);
  assert.match(page, /from commit <code>3f2a9c1<\/code>/);
  assert.match(page, /<dt>CI\/CD<\/dt>\s*<dd>GitHub Actions<\/dd>/);
  assert.match(page, /<dt>Monitoring<\/dt>\s*<dd><span class="none">Not detected<\/span>/);
  assert.match(page, /<dt>Cloud provider<\/dt>\s*<dd>Detected \(no name reported\)<\/dd>/);
  assert.match(page, /<a href="mailto:security@acme.example">security@acme.example<\/a>/);
  assert.ok(!renderTrustPageHtml(acmeProfile(explained()), LINKS).includes("signals-title"));
  const md = renderTrustPageMarkdown(acmeProfile(explained()), LINKS, { signals: SIGNALS });
  assert.match(md, /^## Signals$/m);
  assert.match(md, /^- Monitoring: Not detected$/m);
  assert.match(md, /^- Security contact: security@acme.example$/m);
  assert.ok(!renderTrustPageMarkdown(acmeProfile(explained()), LINKS).includes("## Signals"));
});

Deno.test("[publish] the Markdown page groups controls with reasons and full digests", () => {
  const md = renderTrustPageMarkdown(acmeProfile(explained()), LINKS);
  const headings = md.split("\n").filter((l) => l.startsWith("### "));
  assert.deepEqual(headings, [
    "### Supply chain",
    "### Vulnerability management",
    "### Runtime",
    "### Liveness",
    "### Not reported yet",
  ]);
  const scan = md.split("\n").find((l) => l.startsWith("| Vulnerability scan |"))!;
  const cells = scan.split(" | ");
  assert.equal(cells[2], "Checks vulnerability scan");
  assert.equal(cells[3], "fail");
  assert.equal(cells[5], "Trivy report: 2 critical, 0 high");
  assert.ok(cells[6].endsWith(`\`${DIGEST}\``), cells[6]);
});

Deno.test("[publish] trust.json and its signature are downloads, not JSON shown to a person", () => {
  const page = renderTrustPageHtml(acmeProfile(explained()), LINKS);
  const links = [...page.matchAll(/<a href="([^"]+)"([^>]*)>/g)];
  for (const [, href, attributes] of links) {
    if (href === LINKS.trustJson || href === LINKS.signature) {
      assert.match(attributes, /download="acme-trust\.json(\.jws)?"/, href);
    }
  }
});

Deno.test("[publish] renderNotFoundHtml() escapes the message and loads nothing", () => {
  const page = renderNotFoundHtml({ message: HOSTILE_NAME, rulesUrl: "/docs/evaluation" });
  assert.ok(!page.includes("<img"), page);
  assert.match(page, /<h1 id="title">No trust page here<\/h1>/);
  assert.doesNotMatch(page, /<script|<[^>]*\ssrc=/);
});
