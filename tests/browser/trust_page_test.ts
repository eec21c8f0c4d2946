/**
 * The public trust page and organization trust center in real Chromium
 * against the real server: a public project with passing, failing and
 * unknown controls, published twice, rendered without script, console
 * errors or any subresource, accessible, without horizontal overflow at
 * phone and desktop widths, under a CSP that really blocks inline script;
 * and vendor markup in names shown as text in every published format.
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "../deps.ts";
import {
  assertAccessible,
  assertNoHorizontalOverflow,
  launchBrowser,
  openPage,
  type PageLog,
  WAIT_MS,
} from "../support/browser.ts";
import { startTestServer, type TestServer } from "../support/server.ts";

const SCREENSHOTS = "/tmp";
/** Phone, tablet landscape (the desktop table at its narrowest common width) and desktop. */
const WIDTHS = [375, 1024, 1280] as const;
const XSS_PROJECT = "<img src=x onerror=alert(1)>";
const XSS_CONTROL = `"</style><script>alert(1)</script>`;
/** Raw markup that must never reach a published document unescaped. */
const RAW_MARKUP = ["<img", "<script", "</style>", "onerror=alert(1)>"];

interface PublishedControl {
  key: string;
  name: string;
  state: string;
}

interface TrustJson {
  project: { slug: string; name: string };
  version: number;
  summary: { overallState: string; totalControls: number; passCount: number; unknownCount: number };
  controls: PublishedControl[];
}

interface PublicProject {
  server: TestServer;
  token: string;
  projectId: string;
  slug: string;
  orgSlug: string;
  orgName: string;
}

/** A JSON call to the server with an optional bearer token; throws on an unexpected status. */
async function call(
  server: TestServer,
  method: string,
  path: string,
  options: { token?: string; json?: unknown; expect?: number } = {},
  // deno-lint-ignore no-explicit-any
): Promise<any> {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.json !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers,
    body: options.json === undefined ? undefined : JSON.stringify(options.json),
    signal: AbortSignal.timeout(WAIT_MS),
  });
  const text = await res.text();
  const expected = options.expect ?? (method === "POST" ? 201 : 200);
  assert.equal(res.status, expected, `${method} ${path}: ${text}`);
  return text ? JSON.parse(text) : null;
}

/**
 * Bootstraps a public project with a collector that sent a heartbeat, a
 * CycloneDX SBOM (pass) and a vulnerability scan with a critical finding
 * (fail); the other controls have no evidence (unknown).
 */
async function publicProjectWithEvidence(server: TestServer, sub: string): Promise<PublicProject> {
  const token = await server.tokenFor(sub);
  const boot = await call(server, "POST", "/onboarding/bootstrap", {
    token,
    json: {
      workspaceName: "Acme Security",
      projectName: "Acme Cloud",
      projectVisibility: "public",
    },
  });
  const projectId = boot.project.id as string;
  const created = await call(server, "POST", `/projects/${projectId}/collectors`, {
    token,
    json: { name: "ci" },
  });
  const collectorAuth = `Bearer ${created.secret.value}`;
  const collect = async (path: string, body: unknown, expect: number) => {
    const res = await fetch(`${server.baseUrl}${path}`, {
      method: "POST",
      headers: { authorization: collectorAuth, "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(WAIT_MS),
    });
    assert.equal(res.status, expect, `${path}: ${await res.text()}`);
  };
  await collect(`/collectors/${created.collector.id}/heartbeat`, { sourceRef: "ci" }, 200);
  const observedAt = new Date(Date.now() - 60_000).toISOString();
  const evidence = (evidenceType: string, payload: unknown) => ({
    projectId,
    evidenceType,
    sourceType: "github_actions",
    sourceRef: "acme/api@refs/heads/main",
    observedAt,
    payload,
  });
  await collect(
    "/ingest/evidence",
    evidence("sbom", {
      bomFormat: "CycloneDX",
      specVersion: "1.5",
      components: [{ type: "library", name: "x", version: "1" }],
    }),
    201,
  );
  await collect(
    "/ingest/evidence",
    evidence("vulnerability_scan", { summary: { critical: 1, high: 0, medium: 0, low: 0 } }),
    201,
  );
  return {
    server,
    token,
    projectId,
    slug: boot.project.slug,
    orgSlug: boot.organization.slug,
    orgName: boot.organization.name,
  };
}

async function publish(p: PublicProject): Promise<number> {
  const body = await call(p.server, "POST", `/projects/${p.projectId}/publish`, { token: p.token });
  return body.publishedProfile.version;
}

async function trustJson(p: PublicProject): Promise<TrustJson> {
  return await call(p.server, "GET", `/trust/${p.slug}/trust.json`);
}

/**
 * The page made no request but its own document (a favicon probe on the
 * same origin is tolerated, though none is expected), and nothing left the origin.
 */
function assertOnlyTheDocument(log: PageLog, origin: string, documentUrl: string) {
  assert.deepEqual(log.foreignRequests(origin), [], "Requests to another origin");
  const others = log.requests.filter((u) => u !== documentUrl && !u.endsWith("/favicon.ico"));
  assert.deepEqual(others, [], "Subresource requests besides the document");
  assert.ok(log.requests.includes(documentUrl), `the document was requested: ${log.requests}`);
}

function assertCleanLog(log: PageLog) {
  assert.deepEqual(log.consoleErrors, [], "Console errors");
  assert.deepEqual(log.pageErrors, [], "Uncaught page errors");
  assert.deepEqual(log.dialogs, [], "Dialogs opened");
}

/** The inline stylesheet applied (a wrong CSP hash would leave the page unstyled). */
async function assertStyled(page: Page, view: string) {
  const margin = await page.evaluate("getComputedStyle(document.body).margin");
  assert.equal(margin, "0px", `${view}: the inline stylesheet did not apply`);
}

function stateLabel(state: string) {
  return state[0].toUpperCase() + state.slice(1);
}

/** Every published control's name and state is visible in its own row of the controls table. */
async function assertControlsVisible(page: Page, profile: TrustJson, view: string) {
  const rows = page.locator("main table tbody tr");
  assert.equal(await rows.count(), profile.controls.length, `${view}: one row per control`);
  // Rows are grouped by buyer category, so each control's row is found by its key.
  for (const control of profile.controls) {
    const key = new RegExp(`^${control.key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`);
    const row = rows.filter({ has: page.locator("th .key code", { hasText: key }) });
    assert.equal(await row.count(), 1, `${view}: one row for ${control.key}`);
    const name = row.locator("th");
    assert.ok(await name.isVisible(), `${view}: ${control.key} row is visible`);
    assert.ok(
      (await name.innerText()).startsWith(control.name),
      `${view}: ${control.key} shows its name "${control.name}", got "${await name.innerText()}"`,
    );
    assert.ok(await row.getByText(control.key, { exact: true }).isVisible(), control.key);
    const pill = row.locator(".pill");
    assert.ok(await pill.isVisible(), `${view}: ${control.key} state is visible`);
    assert.equal((await pill.innerText()).trim(), stateLabel(control.state), control.key);
  }
}

/**
 * The controls table lays out without hiding or mangling anything: no cell's content is
 * wider than the cell, the table is not wider than its card (the card clips, so a document
 * scrollWidth check cannot see it), no word of a control name is split across lines, and
 * in the phone layout each relative time sits under its date in the value column.
 */
async function assertTableLayout(page: Page, view: string, options: { wholeWords: boolean }) {
  const report = await page.evaluate(`(() => {
    const overflowing = [...document.querySelectorAll("main tbody th, main tbody td")]
      .filter((cell) => cell.scrollWidth > cell.clientWidth + 1)
      .map((cell) => cell.closest("tr").querySelector("th code").textContent + " " +
        (cell.dataset.label ?? "Control") + ": " + cell.scrollWidth + "px in " + cell.clientWidth + "px");
    const card = document.querySelector("main .table");
    const table = card.querySelector("table");
    const splitWords = [];
    for (const th of document.querySelectorAll("main tbody th")) {
      const text = th.firstChild;
      for (const m of text.textContent.matchAll(/\\S+/g)) {
        const range = document.createRange();
        range.setStart(text, m.index);
        range.setEnd(text, m.index + m[0].length);
        const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
        if (lines.size > 1) splitWords.push(m[0]);
      }
    }
    const misplaced = [...document.querySelectorAll("main tbody td")].filter((td) => {
      const time = td.querySelector(":scope > time");
      const rel = td.querySelector(":scope > .rel");
      return time && rel &&
        Math.abs(time.getBoundingClientRect().left - rel.getBoundingClientRect().left) > 1;
    }).map((td) => td.dataset.label + ": " + td.querySelector(":scope > .rel").textContent);
    return { overflowing, card: card.clientWidth, table: table.scrollWidth, splitWords, misplaced };
  })()`) as {
    overflowing: string[];
    card: number;
    table: number;
    splitWords: string[];
    misplaced: string[];
  };
  const problems = [
    ...(report.table > report.card + 1
      ? [
        `the controls table (${report.table}px) is wider than its card (${report.card}px), ` +
        "whose overflow is hidden: its right-hand columns are cut off",
      ]
      : []),
    ...report.overflowing.map((cell) => `content wider than its cell: ${cell}`),
    ...(options.wholeWords ? report.splitWords : []).map((w) => `name broken inside "${w}"`),
    ...report.misplaced.map((cell) => `relative time in the label column: ${cell}`),
  ];
  assert.deepEqual(problems, [], `${view}: the controls table is laid out badly`);
}

/** Opens `url` in a fresh context at `width` and checks what every public page must satisfy. */
async function visit(
  browser: Browser,
  server: TestServer,
  url: string,
  width: number,
  view: string,
  check: (page: Page) => Promise<void>,
  options: {
    screenshot?: string;
    colorScheme?: "light" | "dark";
    /** Check the controls table's layout (last, after everything else passed). */
    table?: { wholeWords: boolean };
  } = {},
) {
  const { context, page, log } = await openPage(browser, {
    viewport: { width, height: 860 },
    colorScheme: options.colorScheme ?? "light",
  });
  try {
    const res = await page.goto(url, { waitUntil: "load" });
    assert.equal(res?.status(), 200, `${view}: ${url}`);
    assert.match(res?.headers()["content-type"] ?? "", /^text\/html/, view);
    await page.locator("h1").waitFor();
    if (options.screenshot) {
      await page.screenshot({ path: `${SCREENSHOTS}/${options.screenshot}`, fullPage: true });
    }
    await check(page);
    await assertStyled(page, view);
    await assertNoHorizontalOverflow(page, view);
    await assertAccessible(page, view);
    assert.equal(await page.locator("script").count(), 0, `${view}: no script element`);
    assertCleanLog(log);
    assertOnlyTheDocument(log, server.baseUrl, url);
    if (options.table) await assertTableLayout(page, view, options.table);
  } finally {
    await context.close();
  }
}

Deno.test("[browser] the trust page renders with no console errors", async (t) => {
  await using server = await startTestServer();
  const p = await publicProjectWithEvidence(server, "olivia");
  const first = await publish(p);
  const second = await publish(p);
  assert.equal(second, first + 1, "two consecutive versions");
  const profile = await trustJson(p);
  const states = Object.fromEntries(profile.controls.map((c) => [c.key, c.state]));
  assert.equal(states["collector.heartbeat"], "pass", JSON.stringify(states));
  assert.equal(states["evidence.sbom"], "pass", JSON.stringify(states));
  assert.equal(states["evidence.vulnerability_scan"], "fail", JSON.stringify(states));
  assert.ok(Object.values(states).includes("unknown"), JSON.stringify(states));
  assert.equal(profile.summary.overallState, "fail");

  const pageUrl = `${server.baseUrl}/trust/${p.slug}`;
  const orgUrl = `${server.baseUrl}/public/trust/${p.orgSlug}`;
  const browser = await launchBrowser();
  try {
    for (const width of WIDTHS) {
      await t.step(
        `/trust/{slug} at ${width}px: every control, no errors or requests`,
        async () => {
          await visit(
            browser,
            server,
            pageUrl,
            width,
            `the trust page at ${width}px`,
            async (page) => {
              assert.equal(await page.title(), `${profile.project.name}: trust profile`);
              const h1 = page.getByRole("heading", { level: 1, name: profile.project.name });
              assert.ok(await h1.isVisible(), "the project name is the visible h1");
              for (const name of ["Summary", "Controls", "Downloads and verification"]) {
                assert.ok(
                  await page.getByRole("heading", { level: 2, name }).isVisible(),
                  `heading ${name}`,
                );
              }
              const overall = page.locator(".overall .state");
              assert.equal(
                (await overall.innerText()).trim(),
                "Fail",
                "the overall state is shown",
              );
              assert.equal(
                (await page.locator(".facts dd").first().innerText()).trim(),
                String(profile.version),
              );
              await assertControlsVisible(page, profile, `the trust page at ${width}px`);
            },
            { screenshot: `trust-page-${width}.png`, table: { wholeWords: true } },
          );
        },
      );
    }

    await t.step("/trust/{slug}.html is the same page", async () => {
      await visit(browser, server, `${pageUrl}.html`, 1280, "the .html page", async (page) => {
        await assertControlsVisible(page, profile, "the .html page");
      });
    });

    await t.step("the dark theme keeps its contrast", async () => {
      await visit(browser, server, pageUrl, 1280, "the trust page (dark)", async (page) => {
        await assertControlsVisible(page, profile, "the trust page (dark)");
      }, { screenshot: "trust-page-dark-1280.png", colorScheme: "dark" });
    });

    for (const width of WIDTHS) {
      await t.step(`the organization trust center at ${width}px`, async () => {
        await visit(browser, server, orgUrl, width, `the org page at ${width}px`, async (page) => {
          assert.equal(await page.title(), `${p.orgName}: trust center`);
          const h1 = page.getByRole("heading", { level: 1, name: p.orgName });
          assert.ok(await h1.isVisible(), "the organization name is the visible h1");
          assert.ok(await page.getByRole("heading", { level: 2, name: "Projects" }).isVisible());
          const item = page.locator(".projects li");
          assert.equal(await item.count(), 1, "one published project");
          const link = item.getByRole("link", { name: profile.project.name });
          assert.ok(await link.isVisible(), "the project is listed by name");
          assert.equal(await link.getAttribute("href"), pageUrl);
          assert.equal((await item.locator(".pill").innerText()).trim(), "Fail");
          assert.ok(
            await item.getByText(
              `${profile.summary.passCount} of ${
                7 - profile.summary.unknownCount
              } reported controls pass`,
            ).isVisible(),
          );
        }, { screenshot: `trust-page-org-${width}.png` });
      });
    }
  } finally {
    await browser.close();
  }
});

Deno.test("[browser] the trust page's CSP blocks inline script", async () => {
  await using server = await startTestServer();
  const p = await publicProjectWithEvidence(server, "carol");
  await publish(p);
  const urls = [`${server.baseUrl}/trust/${p.slug}`, `${server.baseUrl}/public/trust/${p.orgSlug}`];
  for (const url of urls) {
    const res = await fetch(url, {
      headers: { accept: "text/html" },
      signal: AbortSignal.timeout(WAIT_MS),
    });
    const page = await res.text();
    assert.equal(res.status, 200, url);
    const csp = res.headers.get("content-security-policy") ?? "";
    assert.ok(csp.includes("default-src 'none'"), `${url}: CSP lacks default-src 'none': ${csp}`);
    assert.doesNotMatch(csp, /script-src/, `${url}: no script source is allowed: ${csp}`);
    assert.doesNotMatch(csp, /'unsafe-inline'/, `${url}: ${csp}`);
    assert.ok(!page.includes("<script"), `${url}: the page has no script`);
    assert.equal(res.headers.get("x-content-type-options"), "nosniff");
  }

  const browser = await launchBrowser();
  try {
    for (const url of urls) {
      const { context, page, log } = await openPage(browser);
      try {
        await page.goto(url);
        await page.locator("h1").waitFor();
        // An inline script added to the live document must be refused by the CSP.
        const outcome = await page.evaluate(`new Promise((resolve) => {
          const violations = [];
          document.addEventListener("securitypolicyviolation", (e) => {
            violations.push(e.violatedDirective);
          });
          const s = document.createElement("script");
          s.textContent = "window.__inlineRan = true";
          document.body.append(s);
          setTimeout(() => resolve({ ran: window.__inlineRan === true, violations }), 200);
        })`) as { ran: boolean; violations: string[] };
        assert.equal(outcome.ran, false, `${url}: an inline script ran`);
        assert.ok(
          outcome.violations.some((d) => d.startsWith("script-src")),
          `${url}: a script-src violation was reported: ${outcome.violations}`,
        );
        const refused = log.consoleErrors.splice(0);
        assert.ok(
          refused.length > 0 && refused.every((e) => /Content Security Policy/.test(e)),
          `only the CSP refusal is logged: ${refused.join("\n")}`,
        );
        assertCleanLog(log);
      } finally {
        await context.close();
      }
    }
  } finally {
    await browser.close();
  }
});

Deno.test("[browser] vendor markup in names renders as text on every public page", async (t) => {
  await using server = await startTestServer();
  const p = await publicProjectWithEvidence(server, "mallory");
  await call(server, "PATCH", `/projects/${p.projectId}`, {
    token: p.token,
    json: { name: XSS_PROJECT },
  });
  const { controls } = await call(server, "GET", `/projects/${p.projectId}/controls`, {
    token: p.token,
  });
  const target = controls.find((c: { key: string }) => c.key === "evidence.vulnerability_scan");
  await call(server, "PATCH", `/projects/${p.projectId}/controls/${target.id}`, {
    token: p.token,
    json: { publicName: XSS_CONTROL },
  });
  await publish(p);
  await publish(p);
  const profile = await trustJson(p);
  assert.equal(profile.project.name, XSS_PROJECT, "trust.json carries the name as data");
  assert.ok(profile.controls.some((c) => c.name === XSS_CONTROL), "and the control name");

  const base = `${server.baseUrl}/trust/${p.slug}`;
  const browser = await launchBrowser();
  try {
    await t.step("the trust page shows the names as text", async () => {
      await visit(browser, server, base, 1280, "the hostile trust page", async (page) => {
        assert.equal(await page.title(), `${XSS_PROJECT}: trust profile`);
        const h1 = page.getByRole("heading", { level: 1, name: XSS_PROJECT });
        assert.ok(await h1.isVisible(), "the hostile project name is shown as text");
        const row = page.locator("main table tbody tr").filter({
          has: page.getByText("evidence.vulnerability_scan", { exact: true }),
        });
        assert.ok((await row.locator("th").innerText()).startsWith(XSS_CONTROL));
        assert.equal(await page.locator("img").count(), 0, "no img element");
        await assertControlsVisible(page, profile, "the hostile trust page");
        await page.waitForTimeout(250);
      }, { screenshot: "trust-page-xss-1280.png", table: { wholeWords: false } });
    });

    await t.step("the phone layout survives the long names", async () => {
      await visit(browser, server, base, 375, "the hostile trust page at 375px", async (page) => {
        await assertControlsVisible(page, profile, "the hostile trust page at 375px");
      }, { screenshot: "trust-page-xss-375.png", table: { wholeWords: false } });
    });

    await t.step("the organization page shows the project name as text", async () => {
      const url = `${server.baseUrl}/public/trust/${p.orgSlug}`;
      await visit(browser, server, url, 1280, "the hostile org page", async (page) => {
        const link = page.locator(".projects").getByRole("link", { name: XSS_PROJECT });
        assert.ok(await link.isVisible(), "the hostile project name is listed as text");
        assert.equal(await page.locator("img").count(), 0, "no img element");
        await page.waitForTimeout(250);
      }, { screenshot: "trust-page-xss-org-1280.png" });
    });
  } finally {
    await browser.close();
  }

  await t.step("Markdown, feed and badge carry no raw markup", async () => {
    const documents: [string, RegExp][] = [
      [`${base}.md`, /^text\/markdown/],
      [`${base}/feed.xml`, /^application\/atom\+xml/],
      [`${base}/badge.svg`, /^image\/svg\+xml/],
    ];
    const texts: Record<string, string> = {};
    for (const [url, type] of documents) {
      const res = await fetch(url, { signal: AbortSignal.timeout(WAIT_MS) });
      const text = await res.text();
      assert.equal(res.status, 200, url);
      assert.match(res.headers.get("content-type") ?? "", type, url);
      for (const raw of RAW_MARKUP) assert.ok(!text.includes(raw), `${url} contains ${raw}`);
      texts[url] = text;
    }
    const md = texts[`${base}.md`];
    assert.ok(
      md.includes("&lt;img src=x onerror=alert\\(1\\)&gt;"),
      "the Markdown escapes the name",
    );
    assert.ok(md.includes("&lt;/style&gt;&lt;script&gt;"), "and the control name");
    const feed = texts[`${base}/feed.xml`];
    assert.ok(feed.includes("&lt;img src=x onerror=alert(1)&gt;"), "the feed escapes the name");
    assert.ok(feed.includes("&lt;/style&gt;&lt;script&gt;"), "and the control name");
    const orgMd = await fetch(`${server.baseUrl}/public/trust/${p.orgSlug}`, {
      headers: { accept: "text/markdown" },
      signal: AbortSignal.timeout(WAIT_MS),
    });
    const orgText = await orgMd.text();
    assert.match(orgMd.headers.get("content-type") ?? "", /^text\/markdown/);
    for (const raw of RAW_MARKUP) assert.ok(!orgText.includes(raw), `org Markdown has ${raw}`);
  });
});
