import assert from "node:assert/strict";
import {
  escapeMarkdown,
  renderOrgTrustCenterMarkdown,
  renderTrustPageMarkdown,
} from "../../../src/publish/render/mod.ts";
import {
  acmeProfile,
  HOSTILE_CONTROL,
  HOSTILE_NAME,
  hostileProfile,
  LINKS,
  PUBLISHED_AT,
} from "./_fixtures.ts";

/** Table cell separators: pipes without a backslash before them. */
function cellBreaks(line: string): number {
  return [...line.matchAll(/(?<!\\)\|/g)].length;
}

/** The rows of every table whose header starts so, in page order (controls come in groups). */
function tableRows(markdown: string, header: string): string[] {
  const lines = markdown.split("\n");
  const rows: string[] = [];
  lines.forEach((line, start) => {
    if (!line.startsWith(header)) return;
    const end = lines.findIndex((l, i) => i > start && !l.startsWith("|"));
    rows.push(...lines.slice(start + 2, end < 0 ? undefined : end));
  });
  assert.ok(rows.length > 0, `a table starting "${header}"`);
  return rows;
}

Deno.test("[publish] escapeMarkdown() neutralizes Markdown and HTML", async (t) => {
  const rows: { name: string; input: string; expected: string }[] = [
    { name: "HTML tags become entities", input: "<b>x</b>", expected: "&lt;b&gt;x&lt;/b&gt;" },
    { name: "ampersands become entities", input: "R&D &lt;", expected: "R&amp;D &amp;lt;" },
    { name: "emphasis", input: "*a* _b_", expected: "\\*a\\* \\_b\\_" },
    { name: "links and images", input: "![x](y)", expected: "\\!\\[x\\]\\(y\\)" },
    { name: "code spans", input: "`rm -rf`", expected: "\\`rm -rf\\`" },
    { name: "table cells", input: "a|b", expected: "a\\|b" },
    { name: "headings", input: "# Title", expected: "\\# Title" },
    { name: "backslashes", input: "a\\*", expected: "a\\\\\\*" },
    { name: "line breaks", input: "a\r\n\nb", expected: "a b" },
    { name: "plain text untouched", input: "Acme Cloud 2.0", expected: "Acme Cloud 2.0" },
  ];
  for (const { name, input, expected } of rows) {
    await t.step(name, () => assert.equal(escapeMarkdown(input), expected));
  }
});

Deno.test("[publish] renderTrustPageMarkdown() escapes vendor text", () => {
  const md = renderTrustPageMarkdown(hostileProfile(), LINKS);
  assert.ok(!md.includes("<img"), "no raw img tag");
  assert.ok(!md.includes("<script"), "no raw script tag");
  assert.ok(!md.includes("</style"), "no raw closing tag");
  assert.equal(md.split("\n")[0], `# ${escapeMarkdown(HOSTILE_NAME)}: trust profile`);
  assert.ok(
    md.includes(`| ${escapeMarkdown(HOSTILE_CONTROL)} |`),
    "control name escaped in its cell",
  );
  // Every raw `<` left is one of the service's own link destinations.
  const stray = md.replaceAll(/\(<https:[^>\s]+>\)/g, "").match(/</g);
  assert.equal(stray, null, "no raw < from vendor text");
});

Deno.test("[publish] renderTrustPageMarkdown() keeps the table intact around hostile names", () => {
  const profile = acmeProfile();
  profile.controls[0] = { ...profile.controls[0], name: "a | b\n| c |" };
  const md = renderTrustPageMarkdown(profile, LINKS);
  const rows = tableRows(md, "| Control |");
  assert.equal(rows.length, 7, "one line per control");
  const header = md.split("\n").find((l) => l.startsWith("| Control |"))!;
  for (const row of rows) assert.equal(cellBreaks(row), cellBreaks(header), row);
});

Deno.test("[publish] renderTrustPageMarkdown() has the title, summary, controls and links", () => {
  const profile = acmeProfile();
  const md = renderTrustPageMarkdown(profile, LINKS);
  assert.ok(md.startsWith("# Acme Cloud: trust profile\n"));
  assert.ok(
    md.includes("**Overall state: fail.** 3 of 6 reported controls pass · 1 not reported."),
    md,
  );
  assert.ok(md.includes("- Version: 7\n- Published: 2026-03-14T09:30:00Z\n"));
  assert.ok(md.includes("- Controls: 7 (1 fail, 1 stale, 1 degraded, 3 pass, 1 not reported)"));
  const summary = tableRows(md, "| State | Controls |");
  assert.deepEqual(summary.map((r) => r.split(" | ").slice(0, 2)), [
    ["| pass", "3"],
    ["| fail", "1"],
    ["| degraded", "1"],
    ["| stale", "1"],
    ["| unknown", "1"],
  ]);
  const rows = tableRows(md, "| Control |");
  profile.controls.forEach((c, i) => {
    const cells = rows[i].split(" | ");
    assert.equal(cells[0], `| ${c.name}`);
    assert.equal(cells[1], `\`${c.key}\``);
    assert.equal(cells[3], c.state);
    assert.equal(cells[4], `${Math.round(c.confidence * 100)}%`);
  });
  assert.ok(rows[1].includes("2026-03-14T06:30:00Z (3 hours before publication)"), rows[1]);
  assert.ok(
    rows[6].endsWith("| no evidence yet | awaiting evidence | when new evidence arrives |"),
  );
  for (const [name, url] of Object.entries(LINKS)) {
    assert.ok(md.includes(`](<${url}>)`), `${name} link`);
  }
  assert.ok(md.endsWith("\n") && !md.endsWith("\n\n"));
  assert.equal(md, renderTrustPageMarkdown(acmeProfile(), LINKS), "deterministic");
});

Deno.test("[publish] renderTrustPageMarkdown() explains a profile without controls", () => {
  const md = renderTrustPageMarkdown(acmeProfile([]), LINKS);
  assert.ok(md.includes("**Overall state: unknown.** No control is enabled yet."));
  assert.ok(md.includes("No control is enabled for this project yet"));
  assert.ok(!md.includes("| Control |"));
});

Deno.test("[publish] renderOrgTrustCenterMarkdown() lists projects and escapes names", () => {
  const { summary } = acmeProfile();
  const md = renderOrgTrustCenterMarkdown({
    organization: { name: HOSTILE_NAME, slug: "acme" },
    projects: [
      {
        slug: "acme",
        name: "Acme [beta]",
        hostedSubdomain: null,
        version: 7,
        publishedAt: PUBLISHED_AT,
        summary,
        url: "https://trust.example.com/trust/acme",
      },
    ],
    vendor: null,
    url: "https://trust.example.com/public/trust/acme",
    subprocessorsUrl: "https://trust.example.com/public/trust/acme/subprocessors",
  }, (slug) => `https://trust.example.com/trust/${slug}`);
  assert.ok(!md.includes("<img"));
  assert.equal(md.split("\n")[0], `# ${escapeMarkdown(HOSTILE_NAME)}: trust center`);
  assert.ok(md.includes("1 project publishes"));
  assert.ok(
    md.includes(
      "| [Acme \\[beta\\]](<https://trust.example.com/trust/acme>) | fail | 3 of 6 reported controls pass · 1 not reported | 7 | 2026-03-14T09:30:00Z |",
    ),
    md,
  );
  const empty = renderOrgTrustCenterMarkdown({
    organization: { name: "Acme", slug: "a" },
    projects: [],
    vendor: null,
    url: "https://trust.example.com/public/trust/a",
    subprocessorsUrl: "https://trust.example.com/public/trust/a/subprocessors",
  }, (s) => s);
  assert.ok(empty.includes("No project of Acme has published a trust profile yet."));
});
