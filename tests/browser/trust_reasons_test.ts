/**
 * The trust page as a buyer reads it, in real Chromium at phone and desktop widths:
 * controls under buyer-category headings with what each checks, its reason and evidence
 * digest (the full value one click away), the repository signals as of publication, and
 * a human 404 page for a trust page that does not exist. No serious or critical axe
 * violation, no sideways scrolling, no script.
 */
import assert from "node:assert/strict";
import {
  assertAccessible,
  assertNoHorizontalOverflow,
  launchBrowser,
  openPage,
  WAIT_MS,
} from "../support/browser.ts";
import { startTestServer, type TestServer } from "../support/server.ts";

const WIDTHS = [375, 1280] as const;
const HOSTILE_REASON_SOURCE = "<img src=x onerror=alert(1)>";

async function call(
  server: TestServer,
  path: string,
  options: { token?: string; json?: unknown },
  // deno-lint-ignore no-explicit-any
): Promise<any> {
  const res = await fetch(`${server.baseUrl}${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${options.token}`,
    },
    body: JSON.stringify(options.json),
    signal: AbortSignal.timeout(WAIT_MS),
  });
  const text = await res.text();
  assert.ok(res.status < 300, `${path}: ${res.status} ${text}`);
  return JSON.parse(text);
}

/** A public project with a failing scan, a passing SBOM, signals, published once. */
async function published(server: TestServer): Promise<{ slug: string; checksum: string }> {
  const token = await server.tokenFor("buyer-view");
  const boot = await call(server, "/onboarding/bootstrap", {
    token,
    json: { workspaceName: "Acme", projectName: "Acme Cloud", projectVisibility: "public" },
  });
  const projectId = boot.project.id;
  const created = await call(server, `/projects/${projectId}/collectors`, {
    token,
    json: { name: "ci" },
  });
  const secret = created.secret.value;
  const observedAt = new Date(Date.now() - 60_000).toISOString();
  const evidence = (evidenceType: string, payload: unknown) => ({
    projectId,
    evidenceType,
    sourceType: "github_actions",
    sourceRef: "acme/api@refs/heads/main",
    observedAt,
    payload,
  });
  const scan = await call(server, "/ingest/evidence", {
    token: secret,
    json: evidence("vulnerability_scan", { summary: { critical: 2, high: 0 } }),
  });
  await call(server, "/ingest/evidence", {
    token: secret,
    json: evidence("sbom", { bomFormat: "CycloneDX", specVersion: "1.5", components: [] }),
  });
  await call(server, `/projects/${projectId}/controls`, {
    token,
    json: {
      key: "custom.hostile",
      publicName: HOSTILE_REASON_SOURCE,
      evidenceType: "policy_result",
      rule: { path: "verdict", op: "eq", value: HOSTILE_REASON_SOURCE },
    },
  });
  await call(server, "/ingest/signals", {
    token: secret,
    json: {
      projectId,
      detection: {
        detectedAt: new Date(Date.now() - 3_600_000).toISOString(),
        commitSha: "3f2a9c1d0e4b5a6978877665544332211aabbccd",
        ciCd: { detected: true, tools: ["GitHub Actions"] },
        monitoring: { detected: true, tools: ["Datadog"] },
        authProvider: { detected: false },
        cloudProvider: { detected: true, providers: ["AWS"] },
        securityContact: { detected: true, email: "security@acme.example" },
      },
    },
  });
  await call(server, `/projects/${projectId}/publish`, { token });
  return { slug: boot.project.slug, checksum: scan.record.checksum };
}

Deno.test("[browser] the trust page groups controls with reasons, digests and signals", async () => {
  await using server = await startTestServer({ worker: false });
  const { slug, checksum } = await published(server);
  const browser = await launchBrowser();
  try {
    for (const width of WIDTHS) {
      const view = `trust page at ${width}px`;
      const { context, page, log } = await openPage(browser, {
        viewport: { width, height: 900 },
      });
      try {
        await page.goto(`${server.baseUrl}/trust/${slug}`);
        const groups = await page.locator("main section.group h3").allInnerTexts();
        // Controls that never reported (runtime, policy here) are listed apart, last.
        assert.deepEqual(groups, [
          "Supply chain",
          "Vulnerability management",
          "Liveness",
          "Not reported yet",
        ], view);
        const scan = page.locator("#group-vulnerability_management + p + .table tbody tr");
        assert.equal(await scan.count(), 1, view);
        assert.ok(await scan.getByText("2 critical", { exact: false }).isVisible(), view);
        assert.ok(
          await scan.getByText("The latest vulnerability scan found no high or critical", {
            exact: false,
          }).isVisible(),
          view,
        );
        const summary = scan.locator("details.digest summary");
        assert.equal(await summary.getAttribute("title"), checksum, view);
        await summary.click();
        assert.ok(await scan.locator("details.digest > code").isVisible(), `${view}: full digest`);
        assert.equal(await scan.locator("details.digest > code").innerText(), checksum);
        const signals = page.locator("section[aria-labelledby=signals-title]");
        assert.ok(await signals.getByText("As detected on", { exact: false }).isVisible(), view);
        assert.ok(await signals.getByText("GitHub Actions").isVisible(), view);
        assert.ok(await signals.getByText("security@acme.example").isVisible(), view);
        // The hostile custom control is shown as text, and no dialog ever opened.
        assert.ok(await page.getByText(HOSTILE_REASON_SOURCE).first().isVisible(), view);
        assert.deepEqual(log.dialogs, [], view);
        assert.deepEqual(log.pageErrors, [], view);
        await assertNoHorizontalOverflow(page, view);
        await assertAccessible(page, view);
        await page.screenshot({ path: `/tmp/trust-reasons-${width}.png`, fullPage: true });
      } finally {
        await context.close();
      }
    }
  } finally {
    await browser.close();
  }
});

Deno.test("[browser] a missing trust page is a readable, accessible 404 page", async () => {
  await using server = await startTestServer({ worker: false });
  const browser = await launchBrowser();
  try {
    for (const width of WIDTHS) {
      const view = `404 page at ${width}px`;
      const { context, page, log } = await openPage(browser, {
        viewport: { width, height: 800 },
      });
      try {
        const response = await page.goto(`${server.baseUrl}/trust/no-such-vendor`);
        assert.equal(response?.status(), 404, view);
        assert.match(response?.headers()["content-type"] ?? "", /^text\/html/, view);
        assert.equal(await page.locator("h1").innerText(), "No trust page here", view);
        assert.ok(await page.getByText("no-such-vendor", { exact: false }).isVisible(), view);
        const margin = await page.evaluate("getComputedStyle(document.body).margin");
        assert.equal(margin, "0px", `${view}: the hashed stylesheet applied`);
        assert.deepEqual(log.pageErrors, [], view);
        await assertNoHorizontalOverflow(page, view);
        await assertAccessible(page, view);
        await page.screenshot({ path: `/tmp/trust-404-${width}.png`, fullPage: true });
      } finally {
        await context.close();
      }
    }
  } finally {
    await browser.close();
  }
});
