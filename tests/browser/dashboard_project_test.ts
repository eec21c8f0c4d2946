/**
 * The project sections of the dashboard in real Chromium against the real
 * server: a collector created in the UI feeds evidence from outside, the
 * status recomputes, evidence and payloads show as text, publishing and
 * the private notice, visibility, secret rotation, custom domains over a
 * real DNS server, and control management. Every new view is checked for
 * accessibility, phone width and the dark theme.
 */
import assert from "node:assert/strict";
import type { Locator, Page } from "../deps.ts";
import {
  assertAccessible,
  assertNoHorizontalOverflow,
  expectFailedRequests,
  launchBrowser,
  openPage,
} from "../support/browser.ts";
import { startDnsServer } from "../support/dns_server.ts";
import { startTestServer } from "../support/server.ts";

const PASSWORD = "correct horse battery staple";
const MARKUP = "<img src=x onerror=alert(1)>";
const SHOTS = "/tmp/dashboard-project";
const OWNER = { name: "Priya Platform", email: "priya@example.com" };
const DOMAIN = "trust.acme.example";
/** The trust-page host a custom domain's CNAME points at (TRUST_PAGE_BASE). */
const TRUST_HOST = "pages.trust-service.example";

const heading = (page: Page, name: string | RegExp) =>
  page.getByRole("heading", { level: 1, name });

/** Waits until the view finished rendering. */
async function settled(page: Page) {
  await page.locator("main[aria-busy]").waitFor({ state: "detached" });
}

async function openSection(page: Page, name: string) {
  await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name }).click();
  await settled(page);
  await page.locator(".tabs a[aria-current=page]", { hasText: name }).waitFor();
}

/** The row of a table whose cell shows `key` in code. */
function rowOf(table: Locator, key: string) {
  return table.locator("tbody tr:not(.detail-row)", {
    has: table.page().locator("code", { hasText: new RegExp(`^${key.replace(/\./g, "\\.")}$`) }),
  });
}

async function shot(page: Page, name: string) {
  await page.screenshot({ path: `${SHOTS}-${name}.png`, fullPage: true });
}

Deno.test("[browser] dashboard project: collectors, evidence, status, publishing, domains, controls", async (t) => {
  const dns = await startDnsServer();
  await using server = await startTestServer({
    env: {
      SIGNUP: "open",
      DNS_NAMESERVER: `${dns.host}:${dns.port}`,
      TRUST_PAGE_BASE: `https://${TRUST_HOST}`,
    },
  });
  const base = server.baseUrl;
  const browser = await launchBrowser();
  try {
    const { page, log } = await openPage(browser);
    let projectId = "";
    let collectorId = "";
    let secret = "";
    const collectorFetch = (path: string, body: unknown, token = secret) =>
      fetch(`${base}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });

    await t.step("signs up (and is signed in) and creates a workspace", async () => {
      await page.goto(`${base}/dashboard/`);
      await page.getByRole("link", { name: "Create an account" }).click();
      await page.getByLabel("Name").fill(OWNER.name);
      await page.getByLabel("Email").fill(OWNER.email);
      await page.getByLabel(/^Password/).fill(PASSWORD);
      await page.getByRole("button", { name: "Create account" }).click();
      // Signing up signs in: no second form.
      await heading(page, "Create your workspace").waitFor();
      await page.getByLabel("Workspace name").fill("Acme Security");
      await page.getByLabel("Project name").fill("Acme Cloud");
      await page.getByRole("button", { name: "Create workspace" }).click();
      await heading(page, "Acme Cloud").waitFor();
      projectId = new URL(page.url()).hash.match(/^#\/projects\/([0-9a-f-]{36})$/)?.[1] ?? "";
      assert.ok(projectId, page.url());
      await page.getByRole("button", { name: "Recompute now" }).waitFor();
    });

    await t.step("creates a collector and sees its secret once, with a warning", async () => {
      await openSection(page, "Collectors");
      await page.getByText("No collectors yet").waitFor();
      await page.getByLabel("Collector name").fill("GitHub Actions");
      for (const action of ["heartbeat", "ingest:evidence", "ingest:signals"]) {
        assert.ok(await page.getByRole("checkbox", { name: new RegExp(action) }).isChecked());
      }
      await page.getByRole("button", { name: "Create collector" }).click();
      const secretField = page.getByLabel("Collector secret", { exact: true });
      await secretField.waitFor();
      secret = await secretField.inputValue();
      assert.match(secret, /^tpc_/);
      collectorId = await page.getByLabel("Collector ID", { exact: true }).inputValue();
      assert.equal(await page.getByLabel("Project ID", { exact: true }).inputValue(), projectId);
      await page.getByText("Copy this secret now: it is shown only once.").waitFor();
      assert.equal(
        await page.evaluate("document.activeElement.id") as string,
        await secretField.getAttribute("id"),
        "the secret is focused",
      );
      await page.getByRole("button", { name: "Copy collector secret" }).click();
      await page.getByRole("status").filter({ hasText: /Secret copied|Selected; press/ }).waitFor();
      const table = page.getByRole("table", { name: "Collectors of the project" });
      const row = table.locator("tbody tr", { hasText: "GitHub Actions" });
      await row.getByText("Active").waitFor();
      await row.getByText("Never").waitFor();
      await assertAccessible(page, "the collectors with a new secret");
      await shot(page, "collectors-secret");
      await page.getByRole("button", { name: "I have stored the secret" }).click();
      assert.equal(await page.getByLabel("Collector secret", { exact: true }).count(), 0);
      await page.reload();
      await settled(page);
      await table.waitFor();
      assert.equal(await page.getByText(secret).count(), 0, "the secret is never shown again");
      assert.equal(await page.locator(`input[value="${secret}"]`).count(), 0);
    });

    await t.step("the collector's secret sends a heartbeat and evidence", async () => {
      const heartbeat = await collectorFetch(`/collectors/${collectorId}/heartbeat`, {
        sourceRef: "ci",
      });
      assert.equal(heartbeat.status, 200, await heartbeat.text());
      const observedAt = new Date().toISOString();
      const batch = await collectorFetch("/ingest/evidence/batch", {
        projectId,
        records: Array.from({ length: 26 }, (_, i) => ({
          evidenceType: "policy_result",
          sourceType: "custom",
          sourceRef: `opa/run-${i}`,
          // Observed before the SBOM below, which heads the list (newest observed first).
          observedAt: new Date(Date.parse(observedAt) - 1000).toISOString(),
          payload: { passed: true, run: i },
        })),
      });
      assert.equal(batch.status, 201, await batch.text());
      const sbom = await collectorFetch("/ingest/evidence", {
        projectId,
        evidenceType: "sbom",
        sourceType: "github_actions",
        sourceRef: `acme/cloud@${MARKUP}`,
        observedAt,
        payload: {
          bomFormat: "CycloneDX",
          specVersion: "1.5",
          components: [{ name: MARKUP, version: "1.0.0" }, { name: "left-pad", version: "1.3.0" }],
        },
      });
      assert.equal(sbom.status, 201, await sbom.text());
    });

    await t.step("recomputes: the heartbeat and the SBOM pass", async () => {
      await openSection(page, "Overview");
      await page.getByRole("button", { name: "Recompute now" }).click();
      await page.getByText(/^Recomputed \d+ controls$/).waitFor();
      const status = page.getByRole("table", { name: "Control status" });
      for (const key of ["collector.heartbeat", "evidence.sbom", "evidence.policy_result"]) {
        const row = rowOf(status, key);
        await row.locator(".badge", { hasText: "Pass" }).waitFor();
        assert.equal(await row.locator(".badge svg").count(), 1, `${key} state has an icon`);
        assert.equal(await row.locator("td[data-label=Confidence]").textContent(), "100%");
      }
      const sbom = rowOf(status, "evidence.sbom");
      assert.match(await sbom.locator("td[data-label=Reason]").innerText(), /CycloneDX 1\.5/);
      assert.match(
        await sbom.locator("td[data-label='Evidence age']").innerText(),
        /now|second|minute/,
      );
      assert.match(await sbom.locator("td[data-label='Fresh until']").innerText(), /in (6|7) days/);
      await rowOf(status, "evidence.vulnerability_scan").getByText("Unknown").waitFor();
      await page.locator(".overall-value", { hasText: "Unknown" }).waitFor();
      await assertAccessible(page, "the project status");
      await shot(page, "status");
    });

    await t.step("lists evidence newest first, filters it and loads more", async () => {
      await openSection(page, "Evidence");
      const table = page.getByRole("table", { name: "Evidence records" });
      const rows = table.locator("tbody tr");
      await page.getByText("Showing 25 records").waitFor();
      const first = rows.first();
      assert.equal(await first.locator("td[data-label=Type]").innerText(), "SBOM");
      assert.equal(
        await first.locator("td[data-label=Source] code.source-ref").innerText(),
        `acme/cloud@${MARKUP}`,
      );
      await first.getByText("via GitHub Actions").waitFor();
      const checksum = first.locator("td[data-label=Payload] code.checksum");
      assert.match(await checksum.innerText(), /^sha256:[0-9a-f]{8}…[0-9a-f]{4}$/);
      assert.match(await checksum.getAttribute("title") ?? "", /^sha256:[0-9a-f]{64}$/);
      await page.getByRole("button", { name: "Load more" }).click();
      await page.getByText("Showing 27 records").waitFor();
      await page.getByLabel("Evidence type").selectOption("vulnerability_scan");
      await page.getByText("No Vulnerability scan records").waitFor();
      await page.getByLabel("Evidence type").selectOption("sbom");
      await page.getByText("Showing 1 record").waitFor();
      assert.equal(await rows.count(), 1);
    });

    await t.step("opens a payload, pretty-printed as text", async () => {
      const table = page.getByRole("table", { name: "Evidence records" });
      await table.getByRole("button", { name: "View payload" }).click();
      const json = page.getByRole("region", { name: /^Payload of SBOM from acme\/cloud@<img/ });
      await json.waitFor();
      const text = await json.innerText();
      assert.deepEqual(JSON.parse(text).components[0], { name: MARKUP, version: "1.0.0" });
      assert.match(text, /\n {2}"bomFormat": "CycloneDX"/, "indented two spaces");
      assert.equal(await page.locator("main img").count(), 0, "vendor markup stays text");
      assert.equal(log.requests.filter((u) => new URL(u).pathname.endsWith("/x")).length, 0);
      await table.getByRole("button", { name: "Hide payload" }).waitFor();
      await assertAccessible(page, "the evidence with a payload open");
      await shot(page, "evidence");
    });

    await t.step(
      "shows the private project's setup guide, with its ids and no secret",
      async () => {
        await openSection(page, "Collectors");
        assert.equal(
          await page.getByRole("link", { name: "setup.md" }).count(),
          0,
          "no public copy",
        );
        const button = page.getByRole("button", { name: "Show the setup guide" });
        await button.click();
        const guide = page.getByRole("region", { name: "Setup guide" });
        await guide.waitFor();
        const text = await guide.innerText();
        assert.ok(text.includes(`TRUST_PROJECT_ID=${projectId}`), "project id filled in");
        assert.ok(text.includes(`TRUST_COLLECTOR_ID=${collectorId}`), "collector id filled in");
        assert.match(text, /collector\.ts heartbeat/);
        assert.ok(!text.includes(secret), "never the secret");
        assert.equal(
          await page.locator("main img").count(),
          0,
          "the project's markup name stays text",
        );
        await assertAccessible(page, "the setup guide");
        await page.getByRole("button", { name: "Hide the setup guide" }).click();
        assert.equal(await guide.count(), 0);
      },
    );

    await t.step("publishes version 1; the private notice sits next to the button", async () => {
      await openSection(page, "Publish");
      await page.getByText("Not published yet").waitFor();
      const button = page.getByRole("button", { name: "Review and publish" });
      const bar = page.locator(".publish-bar");
      const notice = bar.locator("#publish-private-notice");
      assert.match(
        await notice.innerText(),
        /public pages answer 404 until the visibility is public/,
      );
      assert.equal(await button.getAttribute("aria-describedby"), "publish-private-notice");
      assert.equal(
        await bar.locator(":scope > *").count(),
        2,
        "the bar holds the button and notice",
      );
      await notice.getByRole("link", { name: "Settings" }).waitFor();
      await button.click();
      const review = page.getByRole("region", { name: "Review version 1" });
      await review.waitFor();
      assert.equal(
        await page.evaluate("document.activeElement.textContent") as string,
        "Review version 1",
        "the review takes focus",
      );
      await review.getByText("Version 1 publishes 7 controls for the first time.").waitFor();
      const changes = review.getByRole("table", { name: "Changes in version 1" });
      const sbomChange = rowOf(changes, "evidence.sbom");
      assert.match(
        await sbomChange.locator("td[data-label=State]").textContent() ?? "",
        /^Not published→ becomes Pass$/,
      );
      assert.match(await sbomChange.locator("td[data-label=Reason]").innerText(), /CycloneDX/);
      await rowOf(changes, "evidence.vulnerability_scan").getByText("Unknown").waitFor();
      assert.equal(await changes.locator("tbody tr").count(), 7);
      await assertAccessible(page, "the review before the first publication");
      await shot(page, "publish-review");
      await review.getByRole("button", { name: "Cancel" }).click();
      assert.equal(await review.count(), 0, "cancel closes the review");
      assert.equal(
        await page.evaluate("document.activeElement.textContent") as string,
        "Review and publish",
      );
      const nothing = await fetch(`${base}/projects/${projectId}/published-profiles`, {
        headers: { authorization: `Bearer ${await accessToken(page)}` },
      });
      assert.deepEqual((await nothing.json()).publishedProfiles, [], "nothing was published");
      await button.click();
      await review.getByRole("button", { name: "Publish version 1" }).click();
      await page.getByText("Published version 1").waitFor();
      assert.equal(await review.count(), 0, "the review closes once published");
      await page.locator(".latest-version", { hasText: "Version 1" }).waitFor();
      const versions = page.getByRole("table", { name: "Published versions" });
      assert.equal(await versions.locator("tbody tr").count(), 1);
      await versions.getByText("Latest").waitFor();
      const latest = page.locator(".latest");
      for (const path of ["", "/trust.json", "/trust.json.jws", "/feed.xml", "/badge.svg"]) {
        const link = latest.getByRole("link", { name: `/trust/acme-cloud${path}`, exact: true });
        assert.equal(await link.getAttribute("href"), `${base}/trust/acme-cloud${path}`);
      }
      assert.equal(await page.locator("main img").count(), 0, "no badge image while private");
      const hidden = await fetch(`${base}/trust/acme-cloud/trust.json`);
      await hidden.body?.cancel();
      assert.equal(hidden.status, 404, "what the notice says");
      await assertAccessible(page, "the publish section");
      await shot(page, "publish-private");
    });

    await t.step("makes the project public in Settings; the notice is gone", async () => {
      await page.locator("#publish-private-notice").getByRole("link", { name: "Settings" }).click();
      await settled(page);
      await page.getByLabel(/^Public/).check();
      await page.getByRole("button", { name: "Save changes" }).click();
      await page.getByText("Changes saved").waitFor();
      await page.locator(".page-header .badge", { hasText: "Public" }).waitFor();
      await openSection(page, "Publish");
      await page.locator(".latest-version", { hasText: "Version 1" }).waitFor();
      assert.equal(await page.locator("#publish-private-notice").count(), 0);
      assert.equal(await page.getByText("answer 404").count(), 0);
      const badge = page.getByRole("img", { name: /Badge showing the overall state/ });
      await badge.waitFor();
      await page.waitForFunction(
        "document.querySelector('.latest-badge')?.complete && document.querySelector('.latest-badge').naturalWidth > 0",
      );
      const published = await fetch(`${base}/trust/acme-cloud/trust.json`);
      assert.equal(published.status, 200);
      assert.equal((await published.json()).version, 1);
      await page.getByRole("table", { name: "Published versions" }).getByRole("link", {
        name: "Signature",
      }).waitFor();
      await assertAccessible(page, "the publish section of a public project");
      await shot(page, "publish-public");
    });

    await t.step("rotates the secret: the old one gets 401, the new one works", async () => {
      await openSection(page, "Collectors");
      await page.getByRole("button", { name: "Show the setup guide" }).waitFor();
      assert.equal(
        await page.getByRole("link", { name: "setup.md" }).count(),
        0,
        "no public copy of the setup guide, even for a public project",
      );
      await page.getByRole("button", { name: "Rotate secret of GitHub Actions" }).click();
      await page.getByText("Rotate? The current secret stops working at once.").waitFor();
      await page.getByRole("button", { name: "Rotate", exact: true }).click();
      await page.getByRole("heading", { name: "New secret for “GitHub Actions”" }).waitFor();
      const rotated = await page.getByLabel("Collector secret", { exact: true }).inputValue();
      assert.match(rotated, /^tpc_/);
      assert.notEqual(rotated, secret);
      await page.getByText("The previous secret has stopped working.").waitFor();
      const old = await collectorFetch(`/collectors/${collectorId}/heartbeat`, { sourceRef: "ci" });
      await old.body?.cancel();
      assert.equal(old.status, 401);
      const fresh = await collectorFetch(
        `/collectors/${collectorId}/heartbeat`,
        { sourceRef: "ci" },
        rotated,
      );
      await fresh.body?.cancel();
      assert.equal(fresh.status, 200);
      await page.getByRole("button", { name: "I have stored the secret" }).click();
      await page.reload();
      await settled(page);
      const row = page.getByRole("table", { name: "Collectors of the project" }).locator(
        "tbody tr",
        { hasText: "GitHub Actions" },
      );
      await row.getByText(/ago|just now/).waitFor();
    });

    await t.step("adds a custom domain and verifies its TXT record", async () => {
      await openSection(page, "Domains");
      await page.getByText("No custom domains").waitFor();
      await page.getByLabel("Domain", { exact: true }).fill("Trust.ACME.example.");
      await page.getByRole("button", { name: "Add domain" }).click();
      await page.getByRole("heading", { level: 3, name: DOMAIN }).waitFor();
      const name = await page.getByLabel("Record name", { exact: true }).inputValue();
      const value = await page.getByLabel("Record value", { exact: true }).inputValue();
      assert.equal(name, `_service.${DOMAIN}`);
      assert.equal(await page.getByLabel("Record type", { exact: true }).inputValue(), "TXT");
      assert.match(value, /^trust-verification=\S+$/);
      await page.getByRole("button", { name: "Copy record value" }).waitFor();
      await page.locator(".domain .badge", { hasText: "Pending" }).waitFor();
      assert.match(
        await page.locator(".domain .domain-meta").innerText(),
        /Verify by .+, or the claim lapses/,
        "a pending claim says when it lapses",
      );
      assert.equal(await page.getByLabel("CNAME name", { exact: true }).inputValue(), DOMAIN);
      assert.equal(
        await page.getByLabel("CNAME target", { exact: true }).inputValue(),
        TRUST_HOST,
        "the CNAME points at the trust-page host from the configuration",
      );
      await page.getByRole("heading", {
        level: 4,
        name: "Point the domain and serve it over HTTPS",
      }).waitFor();
      assert.match(
        await page.locator(".domain .tls-note").innerText(),
        new RegExp(`reverse proxy .* certificate for ${DOMAIN.replace(/\./g, "\\.")}`),
        "off Deno Deploy, the reverse proxy provides HTTPS",
      );
      await assertAccessible(page, "the domains with a pending domain");
      await page.getByRole("button", { name: `Verify ${DOMAIN}` }).click();
      const failed = page.getByRole("alert").filter({ hasText: "Not verified yet." });
      await failed.waitFor();
      await failed.getByText(value).waitFor();
      await failed.getByText("No TXT record").waitFor();
      await shot(page, "domains-pending");
      dns.records.set(name, [[value]]);
      await page.getByRole("button", { name: `Verify ${DOMAIN}` }).click();
      await page.getByText(`${DOMAIN} is verified`).waitFor();
      await page.locator(".domain .badge", { hasText: "Verified" }).waitFor();
      assert.doesNotMatch(await page.locator(".domain .domain-meta").innerText(), /lapses/);
      assert.equal(
        await page.getByLabel("CNAME target", { exact: true }).inputValue(),
        TRUST_HOST,
        "still told where to point it once verified",
      );
      await assertAccessible(page, "the domains with a verified domain");
      await shot(page, "domains-verified");
    });

    await t.step("edits a control and shows the API's validation error inline", async () => {
      await openSection(page, "Overview");
      const catalog = page.getByRole("table", { name: "Control catalog" });
      await catalog.getByRole("button", { name: "Edit Vulnerability scan" }).click();
      const editor = page.getByRole("form", { name: "Edit Vulnerability scan" });
      await editor.getByLabel("Public name").fill("Vulnerability scanning");
      await editor.getByLabel("Freshness window", { exact: true }).fill("2");
      await editor.getByLabel("Degraded after", { exact: true }).fill("10");
      await editor.getByLabel("Degraded after: unit").selectOption("days");
      await expectFailedRequests(log, [400], async () => {
        await editor.getByRole("button", { name: "Save control" }).click();
        await editor.getByRole("alert").filter({
          hasText: "degradedAfterSeconds must not exceed staleAfterSeconds",
        }).waitFor();
      });
      await assertAccessible(page, "the control editor with an error");
      await shot(page, "control-editor");
      await editor.getByLabel("Degraded after", { exact: true }).fill("3");
      await editor.getByRole("button", { name: "Save control" }).click();
      await page.getByText("“Vulnerability scanning” saved").waitFor();
      const row = rowOf(catalog, "evidence.vulnerability_scan");
      await row.getByText("Vulnerability scanning").waitFor();
      assert.equal(await row.locator("td[data-label='Freshness window']").innerText(), "2 days");
      const { controls } = await (await fetch(`${base}/projects/${projectId}/controls`, {
        headers: { authorization: `Bearer ${await accessToken(page)}` },
      })).json();
      const scan = controls.find((c: { key: string }) => c.key === "evidence.vulnerability_scan");
      assert.deepEqual(scan.degradationPolicyJson, {
        staleAfterSeconds: 7 * 86400,
        degradedAfterSeconds: 3 * 86400,
      });
      assert.deepEqual(scan.freshnessPolicyJson, { kind: "time_window", windowSeconds: 2 * 86400 });
    });

    await t.step("adds a custom control with a rule", async () => {
      await page.getByText("Add a custom control").click();
      const form = page.locator(".add-control form");
      await form.getByLabel("Key").fill("custom.Bad Key");
      await form.getByLabel("Public name").fill("No critical vulnerabilities");
      await form.getByLabel("Evidence type").selectOption("vulnerability_scan");
      await form.getByLabel("Path").fill("summary.critical");
      await form.getByLabel("Condition").selectOption("eq");
      await form.getByLabel("Value").fill("0");
      await expectFailedRequests(log, [400], async () => {
        await form.getByRole("button", { name: "Add control" }).click();
        await form.getByRole("alert").filter({ hasText: 'Field "key"' }).waitFor();
      });
      await form.getByLabel("Key").fill("custom.no-critical");
      await form.getByRole("button", { name: "Add control" }).click();
      await page.getByText("“No critical vulnerabilities” added").waitFor();
      const catalog = page.getByRole("table", { name: "Control catalog" });
      const custom = rowOf(catalog, "custom.no-critical");
      await custom.getByText("summary.critical eq 0", { exact: true }).waitFor();
      assert.equal(await catalog.locator("tbody tr").count(), 8);
      await page.getByText("8 of 8").waitFor();
    });

    await t.step("disables a control: it leaves the evaluations after a recompute", async () => {
      const status = page.getByRole("table", { name: "Control status" });
      await rowOf(status, "evidence.deployment_snapshot").waitFor();
      const toggle = page.getByRole("switch", { name: "Enabled: Deployment snapshot" });
      assert.ok(await toggle.isChecked());
      await toggle.uncheck();
      await page.getByText("“Deployment snapshot” disabled. Recompute to update the status.")
        .waitFor();
      assert.equal(await toggle.isChecked(), false);
      await page.getByText("7 of 8").waitFor();
      await page.getByRole("button", { name: "Recompute now" }).click();
      await page.getByText("Recomputed 7 controls").waitFor();
      assert.equal(await rowOf(status, "evidence.deployment_snapshot").count(), 0);
      await rowOf(status, "custom.no-critical").getByText("Unknown").waitFor();
      await page.reload();
      await settled(page);
      assert.equal(
        await page.getByRole("switch", { name: "Enabled: Deployment snapshot" }).isChecked(),
        false,
        "the change was saved",
      );
      assert.equal(await rowOf(status, "evidence.deployment_snapshot").count(), 0);
      await assertAccessible(page, "the overview after control changes");
      await shot(page, "overview");
    });

    await t.step("revokes the collector after a confirmation", async () => {
      await openSection(page, "Collectors");
      await page.getByRole("button", { name: "Revoke GitHub Actions" }).click();
      await page.getByRole("button", { name: "Revoke", exact: true }).click();
      await page.getByText("GitHub Actions was revoked; its secret no longer works").waitFor();
      await page.locator("tbody .badge", { hasText: "Revoked" }).waitFor();
      assert.equal(await page.getByRole("button", { name: /Rotate secret/ }).count(), 0);
    });

    await t.step("every new view fits a 375px phone and keeps contrast in the dark", async () => {
      const sections = ["", "publish", "collectors", "evidence", "domains"];
      await page.setViewportSize({ width: 375, height: 812 });
      for (const section of sections) {
        await page.evaluate(
          `location.hash = ${JSON.stringify(`#/projects/${projectId}${section && `/${section}`}`)}`,
        );
        await settled(page);
        await page.locator("main h1").waitFor();
        await assertNoHorizontalOverflow(page, section || "overview");
        await shot(page, `375-${section || "overview"}`);
      }
      await page.evaluate(`location.hash = "#/projects/${projectId}/evidence"`);
      await settled(page);
      await page.getByRole("button", { name: "View payload" }).first().click();
      await page.getByRole("region", { name: /^Payload of / }).waitFor();
      await assertNoHorizontalOverflow(page, "evidence with a payload");
      await page.locator(".payload").scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${SHOTS}-375-evidence-payload.png` });
      await page.setViewportSize({ width: 1280, height: 860 });
      await page.emulateMedia({ colorScheme: "dark" });
      try {
        for (const section of sections) {
          await page.evaluate(
            `location.hash = ${
              JSON.stringify(`#/projects/${projectId}${section && `/${section}`}`)
            }`,
          );
          await settled(page);
          await page.locator("main h1").waitFor();
          await assertAccessible(page, `${section || "overview"} in the dark theme`);
          await shot(page, `dark-${section || "overview"}`);
        }
      } finally {
        await page.emulateMedia({ colorScheme: "light" });
      }
    });

    await t.step("no console errors, page errors, dialogs or foreign requests", () => {
      assert.deepEqual(log.consoleErrors, [], "Console errors");
      assert.deepEqual(log.pageErrors, [], "Uncaught page errors");
      assert.deepEqual(log.dialogs, [], "Dialogs opened");
      assert.deepEqual(log.foreignRequests(base), [], "Requests to another origin");
    });
  } finally {
    await browser.close();
    await dns.close();
  }
});

async function accessToken(page: Page): Promise<string> {
  const session = await page.evaluate("sessionStorage.getItem('tp.session')") as string;
  return JSON.parse(session).accessToken;
}
