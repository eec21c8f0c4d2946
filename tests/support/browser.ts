/**
 * Real Chromium for browser tests (playwright-core driving the system
 * /usr/bin/chromium): a launch helper, a per-page log of console errors,
 * page errors, dialogs and every request URL, and an axe-core audit.
 */
import assert from "node:assert/strict";
import {
  axeCore,
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  chromium,
  type Page,
} from "../deps.ts";

export const CHROMIUM_PATH = "/usr/bin/chromium";

/** Upper bound for any single wait (element, navigation) in a browser test. */
export const WAIT_MS = 15_000;

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--disable-dev-shm-usage",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * Starts Chromium. Playwright gives every launch a fresh temporary profile
 * and deletes it on close. Close the browser in a `finally`.
 */
export async function launchBrowser(): Promise<Browser> {
  return await chromium.launch({ executablePath: CHROMIUM_PATH, args: ARGS, timeout: WAIT_MS });
}

/** What a page did that a test may assert on. */
export interface PageLog {
  consoleErrors: string[];
  pageErrors: string[];
  dialogs: string[];
  /** Every request URL of the context, in order (navigations, fetches, assets). */
  requests: string[];
  /** Requests whose origin is not `origin`. */
  foreignRequests(origin: string): string[];
}

export interface TrackedPage {
  context: BrowserContext;
  page: Page;
  log: PageLog;
}

/**
 * A new context (own cookies and storage) with one page whose console
 * errors, uncaught errors, dialogs (dismissed) and requests are recorded.
 */
export async function openPage(
  browser: Browser,
  options: BrowserContextOptions = {},
): Promise<TrackedPage> {
  const context = await browser.newContext({
    viewport: { width: 1280, height: 860 },
    ...options,
  });
  context.setDefaultTimeout(WAIT_MS);
  context.setDefaultNavigationTimeout(WAIT_MS);
  const log: PageLog = {
    consoleErrors: [],
    pageErrors: [],
    dialogs: [],
    requests: [],
    foreignRequests(origin) {
      return this.requests.filter((url) => {
        if (url.startsWith("data:") || url === "about:blank") return false;
        return new URL(url).origin !== origin;
      });
    },
  };
  context.on("request", (request) => log.requests.push(request.url()));
  const page = await context.newPage();
  page.on("console", (message) => {
    if (message.type() === "error") {
      const where = message.location().url;
      log.consoleErrors.push(`${message.text()}${where ? ` (${where})` : ""}`);
    }
  });
  page.on("pageerror", (error) => log.pageErrors.push(`${error.name}: ${error.message}`));
  page.on("dialog", (dialog) => {
    log.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    dialog.dismiss().catch(() => {});
  });
  return { context, page, log };
}

/** One axe-core rule failure, reduced to what a failing assertion should print. */
export interface AxeViolation {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

interface AxeRunResult {
  violations: {
    id: string;
    impact?: string | null;
    help: string;
    nodes: { target: unknown[] }[];
  }[];
}

/**
 * Runs axe-core (WCAG 2.x A/AA rules and best practices) on the page and
 * returns the serious and critical violations. The source is evaluated
 * through the DevTools protocol, which the page's CSP does not govern.
 */
export async function axe(page: Page): Promise<AxeViolation[]> {
  const loaded = await page.evaluate("typeof window.axe === 'object'");
  if (!loaded) await page.evaluate(axeCore.source);
  const result = await page.evaluate(
    "window.axe.run(document, { resultTypes: ['violations'] })",
  ) as AxeRunResult;
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({
      id: v.id,
      impact: v.impact ?? "",
      help: v.help,
      targets: v.nodes.map((n) => n.target.map(String).join(" ")),
    }));
}

/** A readable list of violations for an assertion message. */
export function describeViolations(violations: AxeViolation[]): string {
  return violations.map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.targets.join(", ")}`)
    .join("\n");
}

/** Fails with a readable list when axe-core finds serious or critical violations. */
export async function assertAccessible(page: Page, view: string): Promise<void> {
  const violations = await axe(page);
  assert.deepEqual(
    violations,
    [],
    `Serious or critical axe violations on ${view}:\n${describeViolations(violations)}`,
  );
}

/** Fails when the page is wider than the viewport (content would scroll sideways). */
export async function assertNoHorizontalOverflow(page: Page, view: string): Promise<void> {
  const [scrollWidth, innerWidth] = await page.evaluate(
    "[document.scrollingElement.scrollWidth, window.innerWidth]",
  ) as [number, number];
  assert.ok(
    scrollWidth <= innerWidth,
    `${view} overflows horizontally: scrollWidth ${scrollWidth} > innerWidth ${innerWidth}`,
  );
}

/** Runs `action`, which is expected to log failed requests with these statuses, and forgets them. */
export async function expectFailedRequests(
  log: PageLog,
  statuses: number[],
  action: () => Promise<void>,
): Promise<void> {
  const before = log.consoleErrors.length;
  await action();
  const added = log.consoleErrors.splice(before);
  const unexpected = added.filter((line) => !statuses.some((s) => line.includes(`status of ${s}`)));
  assert.deepEqual(unexpected, [], "Unexpected console errors");
}
