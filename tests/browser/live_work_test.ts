/**
 * The dashboard's Live work section in real Chromium against the real service with its job
 * worker running: a job that fails its only attempt is dead-lettered, shows with its error,
 * and "Run again" runs it again (it fails once more, then succeeds and leaves the list), at
 * 1280 and 375 px and in the dark theme, with axe. Without a worker, the overviews warn that
 * live work is not running and the section says why.
 */
import assert from "node:assert/strict";
import type { JobMessage } from "../../src/domain/jobs.ts";
import { newJob } from "../../src/store/jobs.ts";
import { jobDueKey, jobKey } from "../../src/store/keys.ts";
import type { Page } from "../deps.ts";
import {
  assertAccessible,
  assertNoHorizontalOverflow,
  launchBrowser,
  openPage,
  WAIT_MS,
} from "../support/browser.ts";
import {
  assertCleanPage,
  dashboardTeam,
  OWNER,
  PASSWORD,
  signInToDashboard,
  viewDashboard,
} from "../support/dashboard.ts";
import { startTestServer, type TestServer } from "../support/server.ts";

/** A kind of job only this test has: it fails its first runs, then succeeds. */
const KIND = "test-flaky";
const SUMMARY = `A job of kind "${KIND}"`;

/** The runs of each flaky job so far, by its label, and waiters for the next ones. */
function flakyHandler(server: TestServer) {
  const runs = new Map<string, number>();
  const waiters: { label: string; run: number; resolve: () => void }[] = [];
  server.services.jobs.on(KIND, (message) => {
    const label = String(message.label);
    const run = (runs.get(label) ?? 0) + 1;
    runs.set(label, run);
    for (const w of waiters.filter((w) => w.label === label && w.run <= run)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
    if (run <= Number(message.failures)) {
      return Promise.reject(new Error(`Upstream refused run ${run} of ${label}`));
    }
    return Promise.resolve();
  });
  return {
    runs: (label: string) => runs.get(label) ?? 0,
    /** Resolves once run `run` of `label` has ended and the worker stored its outcome. */
    async ended(label: string, run: number) {
      if ((runs.get(label) ?? 0) < run) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        await Promise.race([
          new Promise<void>((resolve) => waiters.push({ label, run, resolve })),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error(`run ${run} of ${label}`)), WAIT_MS);
          }),
        ]).finally(() => clearTimeout(timer));
      }
      await server.services.jobs.settled();
    },
  };
}

/**
 * Schedules a job with one attempt (so its first failure dead-letters it), committed as the
 * job store stages jobs, and has the worker take it now.
 */
async function insertOneAttemptJob(server: TestServer, message: JobMessage): Promise<string> {
  const job = newJob(message, { now: new Date(), maxAttempts: 1 });
  const committed = await server.kv.atomic()
    .check({ key: jobKey(job.id), versionstamp: null })
    .set(jobKey(job.id), job)
    .set(jobDueKey(job.dueAt, job.id), job.id)
    .commit();
  assert.ok(committed.ok);
  await server.services.jobs.runDue();
  return job.id;
}

async function openLiveWork(page: Page) {
  await page.getByRole("navigation", { name: "Organization" })
    .getByRole("link", { name: "Live work" }).click();
  await page.locator("main[aria-busy]").waitFor({ state: "detached" });
  await page.getByRole("heading", { level: 2, name: "Dead-lettered jobs" }).waitFor();
}

async function refresh(page: Page, count: number) {
  await page.getByRole("button", { name: "Refresh live work" }).click();
  const jobs = `${count} dead-lettered job${count === 1 ? "" : "s"}`;
  await page.getByRole("status").filter({ hasText: `Refreshed: ${jobs}` }).waitFor();
}

Deno.test("[browser] live work: a dead-lettered job shows with its error and runs again", async (t) => {
  await using server = await startTestServer({ env: { SIGNUP: "open" }, worker: true });
  const base = server.baseUrl;
  const flaky = flakyHandler(server);
  const { boot } = await dashboardTeam(base);
  const orgId = boot.organization.id;
  const projectId = boot.project.id;
  const browser = await launchBrowser();
  try {
    for (const width of [1280, 375]) {
      await t.step(`a failed job, Run again twice, at ${width} px`, async () => {
        const { page, log } = await openPage(browser, { viewport: { width, height: 860 } });
        await signInToDashboard(page, base, { email: OWNER.email, password: PASSWORD });
        await viewDashboard(page, `${base}/dashboard/#/orgs/${orgId}`);
        assert.equal(await page.getByText("Live work is not running").count(), 0);
        await openLiveWork(page);
        await page.getByText("No job has failed.").waitFor();
        const status = page.getByRole("region", { name: "Status" });
        await status.getByText("Running", { exact: true }).waitFor();
        await status.getByText("The job loop of the instance that answered").waitFor();
        await status.getByText("None is waiting").waitFor();

        const label = `w${width}`;
        const id = await insertOneAttemptJob(server, { kind: KIND, projectId, label, failures: 2 });
        await flaky.ended(label, 1);
        await refresh(page, 1);
        const row = page.locator(`tr[data-id="${id}"]`);
        await row.getByText(SUMMARY).waitFor();
        await row.locator("code", { hasText: KIND }).waitFor();
        await row.getByRole("link", { name: "Acme Cloud" }).waitFor();
        await row.getByText("1 of 1").waitFor();
        await row.getByText(`Upstream refused run 1 of ${label}`).waitFor();
        await status.getByText("1", { exact: true }).waitFor();
        await assertAccessible(page, `the Live work section with a dead job at ${width} px`);
        await assertNoHorizontalOverflow(page, `the Live work section at ${width} px`);
        if (width === 1280) {
          await page.emulateMedia({ colorScheme: "dark" });
          await assertAccessible(page, "the Live work section in the dark theme");
          await page.emulateMedia({ colorScheme: "light" });
        }

        const runAgain = page.getByRole("button", { name: `Run again: ${SUMMARY} (Acme Cloud)` });
        await runAgain.click();
        await page.getByRole("status").filter({ hasText: "was scheduled to run again" }).waitFor();
        await flaky.ended(label, 2);
        await refresh(page, 1);
        await row.getByText(`Upstream refused run 2 of ${label}`).waitFor();
        await row.getByText("1 of 1").waitFor();
        await row.getByText("Earlier errors (1)").click();
        await row.getByText(`Upstream refused run 1 of ${label}`).waitFor();
        await assertNoHorizontalOverflow(page, `a job with its earlier errors at ${width} px`);

        await runAgain.click();
        await page.getByRole("status").filter({ hasText: "was scheduled to run again" }).waitFor();
        await flaky.ended(label, 3);
        await refresh(page, 0);
        await page.getByText("No job has failed.").waitFor();
        assert.equal(flaky.runs(label), 3, "the job ran three times: two failures, one success");
        assert.equal(await row.count(), 0);
        assertCleanPage(log, base);
        await page.context().close();
      });
    }
  } finally {
    await browser.close();
  }
});

Deno.test("[browser] live work: without a worker the overviews warn and the section says why", async (t) => {
  await using server = await startTestServer({ env: { SIGNUP: "open" }, worker: false });
  const base = server.baseUrl;
  const { boot } = await dashboardTeam(base);
  const orgId = boot.organization.id;
  const projectId = boot.project.id;
  const browser = await launchBrowser();
  try {
    for (const width of [1280, 375]) {
      await t.step(`the warning and the problems at ${width} px`, async () => {
        const { page, log } = await openPage(browser, { viewport: { width, height: 860 } });
        await signInToDashboard(page, base, { email: OWNER.email, password: PASSWORD });
        await viewDashboard(page, `${base}/dashboard/#/orgs/${orgId}`);
        await page.getByText("Live work is not running.").waitFor();
        await page.getByText(/^No job worker runs here/).waitFor();
        await assertAccessible(page, `the organization overview's warning at ${width} px`);
        await assertNoHorizontalOverflow(page, `the organization overview at ${width} px`);

        await viewDashboard(page, `${base}/dashboard/#/projects/${projectId}`);
        await page.getByText("Live work is not running.").waitFor();
        await assertNoHorizontalOverflow(page, `the project overview at ${width} px`);
        await page.getByRole("link", { name: "Open the Live work section" }).click();
        await page.locator("main[aria-busy]").waitFor({ state: "detached" });
        const status = page.getByRole("region", { name: "Status" });
        await status.getByText("Not running", { exact: true }).waitFor();
        await status.getByText("None: nothing runs jobs on the instance that answered").waitFor();
        await status.getByText(/^No job worker runs here/).waitFor();
        await page.getByText("No job has failed.").waitFor();
        await assertAccessible(page, `the Live work section without a worker at ${width} px`);
        await assertNoHorizontalOverflow(page, `the Live work section at ${width} px`);
        if (width === 1280) {
          await page.emulateMedia({ colorScheme: "dark" });
          await assertAccessible(page, "the Live work section's warning in the dark theme");
          await page.emulateMedia({ colorScheme: "light" });
        }
        assertCleanPage(log, base);
        await page.context().close();
      });
    }
  } finally {
    await browser.close();
  }
});
