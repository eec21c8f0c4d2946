/**
 * The first ten minutes in a browser, on a phone (375 px) and a laptop (1280 px): sign up and
 * arrive signed in, follow the getting-started checklist to a collector, read the rendered
 * setup guide, send a heartbeat and evidence as CI would, and publish the first version; the
 * checklist marks each step done. Every view passes axe-core and fits the screen.
 */
import assert from "node:assert/strict";
import type { Page } from "../deps.ts";
import {
  assertAccessible,
  assertNoHorizontalOverflow,
  launchBrowser,
  openPage,
} from "../support/browser.ts";
import { assertCleanPage, PASSWORD } from "../support/dashboard.ts";
import { startTestServer } from "../support/server.ts";

const WIDTHS = [375, 1280];

async function ready(page: Page) {
  await page.locator("main[aria-busy]").waitFor({ state: "detached" });
}

/** The checklist's steps as "done"/"to do", in order. */
async function checklistState(page: Page): Promise<string[]> {
  const steps = page.locator(".checklist li");
  const states: string[] = [];
  for (let i = 0; i < await steps.count(); i++) {
    states.push((await steps.nth(i).locator(".step-state").innerText()).trim().toLowerCase());
  }
  return states;
}

async function fits(page: Page, view: string) {
  await assertAccessible(page, view);
  await assertNoHorizontalOverflow(page, view);
}

Deno.test("[browser] onboarding: sign-up → checklist → collector → first publish, at 375 and 1280 px", async (t) => {
  await using server = await startTestServer({ env: { SIGNUP: "open" } });
  const base = server.baseUrl;
  const browser = await launchBrowser();
  try {
    for (const width of WIDTHS) {
      const { context, page, log } = await openPage(browser, {
        viewport: { width, height: 860 },
      });
      const person = { name: `Pat ${width}`, email: `pat${width}@acme.test` };
      let projectId = "";
      let secret = "";
      let collectorId = "";
      try {
        await t.step(`${width} px: signing up signs in`, async () => {
          await page.goto(`${base}/dashboard/`);
          await page.getByRole("link", { name: "Create an account" }).click();
          for (const label of ["Name", "Email"]) {
            assert.equal(await page.getByLabel(label).getAttribute("required"), "");
          }
          await page.getByLabel("Name").fill(person.name);
          await page.getByLabel("Email").fill(person.email);
          await page.getByLabel(/^Password/).fill(PASSWORD);
          await page.getByRole("button", { name: "Create account" }).click();
          await page.getByRole("heading", { level: 1, name: "Create your workspace" }).waitFor();
          await ready(page);
          assert.equal(new URL(page.url()).search, "", "no code, state or marker left in the URL");
          assert.equal(await page.getByLabel("Password").count(), 0, "no password asked again");
          await fits(page, `the onboarding form at ${width} px`);
        });

        await t.step(`${width} px: required fields are marked`, async () => {
          const label = page.locator(".field-label", { hasText: "Workspace name" });
          assert.match(await label.innerText(), /Workspace name\s*\(required\)/);
          await page.getByLabel("Workspace name").fill(`Acme ${width}`);
          await page.getByLabel("Project name").fill("Acme Cloud");
          await page.getByRole("button", { name: "Create workspace" }).click();
          await page.getByRole("heading", { name: "Getting started" }).waitFor();
          await ready(page);
          projectId = new URL(page.url()).hash.split("/")[2];
          assert.ok(projectId);
        });

        await t.step(`${width} px: the checklist leads to the collector`, async () => {
          assert.deepEqual(await checklistState(page), [
            "to do",
            "to do",
            "to do",
            "to do",
            "to do",
          ]);
          await page.getByText("0 of 5 steps done.").waitFor();
          const overview = page.locator(".summary-card");
          const publicLink = overview.getByRole("link", { name: /\/trust\// });
          assert.match(await publicLink.getAttribute("href") ?? "", /\/trust\/[a-z0-9-]+$/);
          await overview.getByText("answers 404 while the project is private").waitFor();
          await fits(page, `the overview with the checklist at ${width} px`);
          await page.getByRole("link", { name: "Next: connect a collector" }).click();
          await page.getByRole("button", { name: "Create collector" }).waitFor();
          await ready(page);
        });

        await t.step(`${width} px: a collector and the rendered setup guide`, async () => {
          const label = page.locator(".field-label", { hasText: "Collector name" });
          assert.match(await label.innerText(), /\(required\)/);
          await page.getByLabel("Collector name").fill("GitHub Actions");
          await page.getByRole("button", { name: "Create collector" }).click();
          const secretField = page.getByLabel("Collector secret", { exact: true });
          await secretField.waitFor();
          secret = await secretField.inputValue();
          collectorId = await page.getByLabel("Collector ID", { exact: true }).inputValue();
          await page.getByRole("button", { name: "I have stored the secret" }).click();
          await page.getByRole("button", { name: "Show the setup guide" }).click();
          const guide = page.getByRole("region", { name: "Setup guide" });
          await guide.waitFor();
          assert.equal(await guide.getByText("```").count(), 0, "rendered, not raw Markdown");
          assert.ok(await guide.getByRole("heading", { name: "In GitHub Actions" }).count());
          const blocks = guide.locator(".code-block");
          assert.equal(await blocks.count(), 5, "three shell blocks, a workflow and GitLab jobs");
          for (let i = 0; i < 5; i++) {
            await blocks.nth(i).getByRole("button", { name: /^Copy: / }).waitFor();
            const [scroll, client] = await blocks.nth(i).locator("pre").evaluate(
              (pre) => [pre.scrollWidth, pre.clientWidth],
            ) as [number, number];
            assert.ok(scroll <= client, `code block ${i + 1} is cut off at ${width} px`);
          }
          const text = await guide.innerText();
          assert.ok(text.includes(`TRUST_COLLECTOR_ID=${collectorId}`));
          assert.ok(!text.includes(secret), "never the secret");
          const [cardWidth, mainWidth] = await page.evaluate(
            `[document.querySelector(".guide").closest("section").getBoundingClientRect().width,
              document.getElementById("main").getBoundingClientRect().width]`,
          ) as [number, number];
          assert.ok(cardWidth >= mainWidth - 64, `the guide takes the full width at ${width} px`);
          await context.grantPermissions(["clipboard-read", "clipboard-write"]);
          await blocks.nth(1).getByRole("button", { name: /^Copy: / }).click();
          await blocks.nth(1).getByText("Copied").waitFor();
          const copied = await page.evaluate("navigator.clipboard.readText()") as string;
          assert.match(copied, /^curl -fsS -X POST .*\/heartbeat/);
          await fits(page, `the collectors with the setup guide at ${width} px`);
        });

        await t.step(
          `${width} px: CI reports; the checklist marks it and leads to publish`,
          async () => {
            const headers = {
              authorization: `Bearer ${secret}`,
              "content-type": "application/json",
            };
            const beat = await fetch(`${base}/collectors/${collectorId}/heartbeat`, {
              method: "POST",
              headers,
              body: JSON.stringify({ sourceRef: "ci" }),
            });
            assert.equal(beat.status, 200);
            await beat.body?.cancel();
            const sent = await fetch(`${base}/ingest/evidence`, {
              method: "POST",
              headers,
              body: JSON.stringify({
                projectId,
                evidenceType: "sbom",
                sourceType: "github_actions",
                sourceRef: "acme/cloud@1",
                observedAt: new Date().toISOString(),
                payload: { bomFormat: "CycloneDX", specVersion: "1.5", components: [] },
              }),
            });
            assert.equal(sent.status, 201);
            await sent.body?.cancel();
            await page.getByRole("link", { name: "Overview" }).click();
            await page.getByRole("heading", { name: "Getting started" }).waitFor();
            await ready(page);
            assert.deepEqual(await checklistState(page), [
              "done",
              "done",
              "to do",
              "to do",
              "to do",
            ]);
            await page.getByRole("link", { name: "Next: publish the first version" }).click();
            await page.getByRole("button", { name: "Review and publish" }).waitFor();
            await ready(page);
          },
        );

        await t.step(`${width} px: the first publish`, async () => {
          await page.getByRole("button", { name: "Review and publish" }).click();
          const review = page.getByRole("region", { name: "Review version 1" });
          await review.getByRole("button", { name: "Publish version 1" }).click();
          await page.getByText("Published version 1").waitFor();
          await fits(page, `the publish section after version 1 at ${width} px`);
          await page.getByRole("link", { name: "Overview" }).click();
          await page.getByRole("heading", { name: "Getting started" }).waitFor();
          await ready(page);
          assert.deepEqual(await checklistState(page), [
            "done",
            "done",
            "done",
            "to do",
            "to do",
          ]);
          await page.getByText("3 of 5 steps done.").waitFor();
          const next = page.getByRole("link", { name: "Next: make the trust page public" });
          assert.match(await next.getAttribute("href") ?? "", /\/settings$/);
          await fits(page, `the overview after the first publish at ${width} px`);
          assertCleanPage(log, base);
        });
      } finally {
        await context.close();
      }
    }
  } finally {
    await browser.close();
  }
});
