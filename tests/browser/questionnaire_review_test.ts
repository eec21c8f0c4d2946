/**
 * A 300-question review done with the keyboard alone, in real Chromium at 1280×800 against the
 * real service: the owner opens an imported CSV (90 questions matched by id, 120 paraphrases
 * matched by text or not, 90 the knowledge base cannot answer), sees more than 12 rows at once,
 * accepts by score (b, Enter), selects two rows and accepts them (x, j, x, A), then goes
 * through every row still to review with n, a, r and e (typing the answer, Ctrl+Enter), and
 * searches and filters. Every key press is counted and printed; the rows are all decided at
 * the end (checked through the API), the line of what the answered file holds and the
 * summary's review line say so, Markdown shows rendered (no `**`; HTML and a script link stay
 * text), and axe finds nothing. Then
 * the questionnaire is shared with an NDA already set on a service that sends email: one
 * press to the link, and the next steps promise the emails.
 */
import assert from "node:assert/strict";
import type { Page } from "../deps.ts";
import { assertAccessible, launchBrowser, openPage } from "../support/browser.ts";
import {
  api,
  assertCleanPage,
  dashboardTeam,
  OWNER,
  PASSWORD,
  signInToDashboard,
  viewDashboard,
} from "../support/dashboard.ts";
import { startTestServer } from "../support/server.ts";

/** What the knowledge base answers: a topic's question phrase, and its answer (Markdown). */
const TOPICS: [string, string][] = [
  ["encrypt customer data at rest", "Yes: **AES-256** at rest, keys rotated **quarterly**."],
  ["encrypt data in transit over public networks", "Yes: TLS 1.2 or later everywhere."],
  ["enforce multi-factor authentication for administrators", "Yes, with hardware keys."],
  ["review user access rights every quarter", "Yes: managers review access **quarterly**."],
  ["run penetration tests by an independent firm", "Yes, once a year by an outside firm."],
  ["scan production systems for vulnerabilities", "Yes: weekly scans, criticals fixed in 7 days."],
  ["keep backups of production databases", "Yes: nightly, kept 35 days, restored monthly."],
  ["test the disaster recovery plan", "Yes, every year with a written report."],
  ["train employees on security awareness", "Yes: at hiring and every year."],
  ["perform background checks on new employees", "Yes, where the law allows."],
  ["log administrative actions centrally", "Yes: logs kept one year, tamper-evident."],
  ["monitor security events around the clock", "Yes: a 24/7 on-call rotation."],
  ["maintain an incident response plan", "Yes, tested twice a year."],
  ["notify customers of personal data breaches", "Yes, within 72 hours."],
  ["assess the security of subprocessors", "Yes: before signing and every year."],
  ["hold a SOC 2 Type II report", "Yes: the report is available under NDA."],
  ["segment the production network", "Yes: production is isolated from the office network."],
  ["harden server configurations against a baseline", "Yes: CIS benchmarks, checked daily."],
  ["manage mobile devices used for work", "Yes: enrolled in device management."],
  ["review application code for security flaws", "Yes: every change is reviewed by a peer."],
  ["sign software releases", "Yes: releases are signed and verifiable."],
  ["keep an inventory of hardware assets", "Yes, updated automatically."],
  ["classify data by sensitivity", "Yes: four levels, labelled at creation."],
  ["delete customer data at contract end", "Yes, within 30 days."],
  ["restrict physical access to offices", "Yes: badges and visitor logs."],
  ["rotate cryptographic keys regularly", "Yes, every 90 days."],
  ["document a change management process", "Yes: every change is ticketed and approved."],
  ["separate development and production environments", "Yes, with separate accounts."],
  ["protect endpoints with anti-malware", "Yes, on every laptop and server."],
  // Markdown that must stay text: HTML, and a link to a script.
  [
    "publish a vulnerability disclosure policy",
    "Yes: see [the policy](javascript:alert(1)), <b>raw</b> and https://acme.example/security.",
  ],
];
/** Questions the knowledge base cannot answer. */
const OTHER = [
  "keep a cat in the office",
  "offer a cafeteria on site",
  "sponsor a football team",
  "print brochures on recycled paper",
  "celebrate birthdays at work",
  "run a book club for staff",
  "plant trees every spring",
  "paint the meeting rooms blue",
  "serve espresso in the lobby",
];
const PARAPHRASES = [
  (t: string) => `Does your company ${t}?`,
  (t: string) => `Please describe how you ${t}.`,
  (t: string) => `Can you confirm that you ${t}?`,
  (t: string) => `Explain whether your team ${t}.`,
];

/** 300 questions: 90 by id, 120 paraphrases without id, 90 the knowledge base cannot answer. */
function questionnaireCsv(): string {
  const lines = ["ID,Question,Answer"];
  for (let i = 0; i < 90; i++) {
    const topic = i % 30;
    lines.push(`VQ-${topic}-${Math.floor(i / 30)},Do you ${TOPICS[topic][0]}?,`);
  }
  for (let i = 0; i < 120; i++) {
    lines.push(`,${PARAPHRASES[i % 4](TOPICS[i % 30][0])},`);
  }
  for (let i = 0; i < 90; i++) lines.push(`,Do you ${OTHER[i % 9]} (case ${i + 1})?,`);
  return lines.join("\n") + "\n";
}

/** Key presses, each counted: a key (with its modifiers) or a character typed. */
class Keyboard {
  count = 0;
  constructor(private page: Page) {}
  async press(key: string) {
    this.count++;
    await this.page.keyboard.press(key);
  }
  async type(text: string) {
    this.count += text.length;
    await this.page.keyboard.type(text);
  }
}

interface Row {
  key: string;
  best: unknown;
  decision: { state: string; answer: string | null };
}

Deno.test("[browser] questionnaire review: 300 questions with the keyboard alone (1280×800)", async () => {
  // Email configured (never sent: no worker runs), so sharing says what email will carry.
  await using server = await startTestServer({
    env: { SIGNUP: "open", SMTP_URL: "smtp://127.0.0.1:2525" },
    worker: false,
  });
  const base = server.baseUrl;
  const { owner, boot } = await dashboardTeam(base);
  const orgId = boot.organization.id;
  for (const [index, [phrase, answer]] of TOPICS.entries()) {
    await api(base, owner, "POST", `/organizations/${orgId}/answers`, {
      question: `Do you ${phrase}?`,
      answer,
      category: "Security",
      visibility: "public",
      questionnaireRefs: [0, 1, 2].map((k) => ({ questionnaire: "other", id: `VQ-${index}-${k}` })),
    });
  }
  const upload = await fetch(`${base}/organizations/${orgId}/questionnaires?name=Vendor%20review`, {
    method: "POST",
    headers: { authorization: `Bearer ${owner}`, "content-type": "text/csv" },
    body: questionnaireCsv(),
  });
  assert.equal(upload.status, 201, await upload.clone().text());
  const { questionnaire } = await upload.json();
  assert.equal(questionnaire.coverage.questions, 300);
  const path = `/organizations/${orgId}/questionnaires/${questionnaire.id}`;
  const allRows = async (): Promise<Row[]> => {
    const rows: Row[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 5; page++) {
      const query: string = `?limit=200${cursor ? `&cursor=${cursor}` : ""}`;
      const body = await api(base, owner, "GET", `${path}/rows${query}`);
      rows.push(...body.rows);
      cursor = body.nextCursor;
      if (!cursor) break;
    }
    return rows;
  };
  const before = await allRows();
  assert.equal(before.length, 300);
  const noBest = before.filter((r) => r.best === null).length;
  assert.ok(noBest >= 90, `${noBest} rows without a suggestion`);

  const browser = await launchBrowser();
  try {
    const { page, log } = await openPage(browser, { viewport: { width: 1280, height: 800 } });
    await signInToDashboard(page, base, { email: OWNER.email, password: PASSWORD });
    await viewDashboard(
      page,
      `${base}/dashboard/#/orgs/${orgId}/questionnaires/${questionnaire.id}`,
    );
    const progress = page.locator(".review-progress");
    await progress.getByText("0 of 300 answered in the file").waitFor();
    await page.locator(".review-grid tbody tr").first().waitFor();
    await page.getByText("300 rows", { exact: true }).waitFor();

    // Dense: with the table scrolled to the top of the screen, more than 12 rows show whole.
    const visible = await page.evaluate(`(() => {
      const scroll = document.querySelector(".review-scroll");
      scroll.scrollIntoView({ block: "start" });
      const box = scroll.getBoundingClientRect();
      const bottom = Math.min(box.bottom, innerHeight);
      const head = scroll.querySelector("thead").getBoundingClientRect().bottom;
      return [...scroll.querySelectorAll("tbody tr")].filter((tr) => {
        const r = tr.getBoundingClientRect();
        return r.top >= head - 1 && r.bottom <= bottom + 1;
      }).length;
    })()`) as number;
    assert.ok(visible >= 12, `${visible} rows visible at once`);
    console.log(`rows visible at once at 1280×800: ${visible}`);
    await assertAccessible(page, "the review of 300 questions");

    // Markdown is rendered: the first row's answer shows bold text, never the asterisks.
    const first = page.locator(".review-detail");
    await first.locator("strong", { hasText: "AES-256" }).first().waitFor();
    assert.ok(!(await first.innerText()).includes("**"), "no raw Markdown in the detail");
    assert.ok(
      !(await page.locator(".review-grid").innerText()).includes("**"),
      "no raw Markdown in the table",
    );

    const keys = new Keyboard(page);
    const status = page.locator(".review-status");
    await page.locator("body").focus();

    // Accept by score: b focuses the threshold (0.80), Enter accepts, Escape goes back.
    const high = before.filter((r) => r.best && (r.best as { score: number }).score >= 0.8).length;
    await keys.press("b");
    await keys.press("Enter");
    await status.getByText(`${high} rows accepted scoring at least 0.80`).waitFor();
    await keys.press("Escape");

    // n: the first row to review; x, j, x, A: two rows selected and accepted together.
    await keys.press("n");
    await status.getByText(/^Next to review: /).waitFor();
    await keys.press("x");
    await keys.press("j");
    await keys.press("x");
    await page.getByRole("button", { name: "Accept selected (2)" }).waitFor();
    await keys.press("A");
    await status.getByText(/rows? accepted from the selection$/).waitFor();

    // Every row still to review: a when it has a suggestion, r when not, e for three of them.
    let edits = 0;
    for (let turn = 0; turn < 320; turn++) {
      const pending = await page.evaluate(
        `document.querySelector(".review-progress")?.textContent?.match(/· (\\d+) to review/)?.[1]`,
      );
      if (pending === "0") break;
      // A decision moves to the next row to review by itself; n only when it could not.
      const current = page.locator(".review-grid tr.is-current");
      await current.waitFor();
      if ((await current.locator(".col-decision").innerText()).trim() !== "To review") {
        await keys.press("n");
        await current.locator(".col-decision", { hasText: "To review" }).waitFor();
      }
      const name = (await current.locator(".row-open").innerText()).trim();
      const hasBest = (await current.locator(".score-id, .score-text").count()) > 0;
      const message = status.getByText(/: (accepted|rejected|edited)(\. Next: .*)?$/);
      const previous = await status.textContent();
      if (hasBest) await keys.press("a");
      else if (edits < 3) {
        edits++;
        await keys.press("e");
        await page.getByRole("textbox", { name: /^Answer to / }).waitFor();
        await keys.press("Control+a");
        await keys.type("No, not applicable.");
        await keys.press("Control+Enter");
      } else await keys.press("r");
      // Each announcement names its row, so the next one differs from the last.
      await status.filter({ hasNotText: previous ?? "" }).waitFor();
      await message.waitFor();
      assert.ok(name.length > 0);
    }
    await progress.getByText(/· 0 to review · /).waitFor();
    console.log(
      `key presses for the 300-question review: ${keys.count} ` +
        `(${high} accepted by score, 2 by selection, 3 edits typed)`,
    );

    const after = await allRows();
    assert.ok(after.every((r) => r.decision.state !== "pending"), "every row decided");
    const edited = after.filter((r) => r.decision.state === "edited");
    assert.equal(edited.length, 3);
    assert.ok(edited.every((r) => r.decision.answer === "No, not applicable."));
    const accepted = after.filter((r) => r.decision.state === "accepted").length;
    const rejected = after.filter((r) => r.decision.state === "rejected").length;
    assert.equal(accepted + rejected + 3, 300);
    await progress.getByText(`${accepted + 3} of 300 answered in the file`).waitFor();
    await page.getByText(
      new RegExp(`^Review: ${accepted} accepted, 3 edited, ${rejected} rejected; 0 to review$`),
    ).waitFor();
    await page.getByText(`In the answered file: ${accepted + 3} of 300 questions answered`)
      .waitFor();
    assert.ok(keys.count < 300, `${keys.count} key presses: fewer than one a question`);

    // Search and filters (typed, so counted apart from the review).
    await page.keyboard.press("/");
    await page.keyboard.type("VQ-29-0");
    await page.keyboard.press("Enter");
    await page.getByText("1 of 300 rows match").waitFor();
    // Its answer: the HTML shows as typed, the script link as text, the web address as a link.
    const detail = page.locator(".review-detail .suggestion-text").first();
    await detail.getByText("<b>raw</b>", { exact: false }).waitFor();
    assert.equal(await detail.locator("b").count(), 0);
    assert.equal(await detail.locator('a[href^="javascript"]').count(), 0);
    assert.match(await detail.innerText(), /the policy \(javascript:alert\(1\)\)/);
    await detail.getByRole("link", { name: "https://acme.example/security" }).waitFor();
    await page.keyboard.press("Escape");
    await page.getByLabel("Search", { exact: true }).fill("");
    await page.getByLabel("Show", { exact: true }).selectOption("rejected");
    await page.getByText(`${rejected} of 300 rows match`).waitFor();
    await page.getByLabel("Match", { exact: true }).selectOption("id");
    await page.getByText("No row matches the search and filters.").waitFor();
    await page.getByLabel("Show", { exact: true }).selectOption("all");
    await page.getByText("90 of 300 rows match").waitFor();
    await assertAccessible(page, "the reviewed questionnaire, filtered");

    // Sharing with an NDA already set and email on: one press to the link, email promised.
    await api(base, owner, "PUT", `/organizations/${orgId}/nda`, { text: "Keep it." });
    await page.getByRole("button", { name: "Share with the buyer" }).click();
    const sharing = page.getByRole("form", { name: "Share with the buyer" });
    await sharing.getByText("the buyer accepts your NDA (version 1)").waitFor();
    assert.equal(await sharing.getByLabel("Your NDA").count(), 0);
    await sharing.getByRole("button", { name: "Create the link" }).click();
    const shared = page.locator(".share-result");
    await shared.getByText("You get an email when they ask.").waitFor();
    await shared.getByText(/they get an email with a download link/).waitFor();
    assert.match(
      await page.getByLabel("Link for the buyer").inputValue(),
      /documents\/request\?document=/,
    );
    await assertAccessible(page, "the link for the buyer, email on");
    assertCleanPage(log, base);
    await page.context().close();
  } finally {
    await browser.close();
  }
});
