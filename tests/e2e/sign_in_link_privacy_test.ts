/**
 * Asking for an emailed sign-in link reveals nothing about accounts: the answer is the same,
 * in the same time, whether or not an account uses the address (the lookup and the sending
 * happen after the answer, in a job), and the email goes only to an address whose own
 * password sign-in is locked, at most 3 times an hour per address and 10 per client address.
 */
import assert from "node:assert/strict";
import { fakeClock } from "../../src/lib/clock.ts";
import { signUp } from "../support/builtin_login.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import {
  LINK_SUBJECT,
  lockAddress,
  lockOut,
  openSignIn,
  runJobs,
} from "../support/sign_in_link.ts";
import { startSmtpServer } from "../support/smtp.ts";

const OWNER = { email: "owner@acme.test", name: "Olga Owner", password: "correct horse battery" };
const UNKNOWN = "nobody@acme.test";
const HOUR = 60 * 60_000;

async function signUpAs(server: TestServer, account: typeof OWNER) {
  const created = await signUp(server.baseUrl, "", account);
  assert.equal(created.status, 303, "signing up signs in (a redirect to the dashboard)");
  await created.body?.cancel();
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

Deno.test("[e2e] sign-in link: answered in the same time whether or not an account uses the address", async () => {
  await using smtp = await startSmtpServer();
  const clock = fakeClock(new Date("2026-11-01T12:00:00Z"));
  await using server = await startTestServer({
    clock,
    env: { SIGNUP: "open", SMTP_URL: smtp.url },
  });
  await signUpAs(server, OWNER);
  const browser = await openSignIn(server.baseUrl, { email: OWNER.email });
  const times: Record<"existing" | "unknown", number[]> = { existing: [], unknown: [] };
  const PAIRS = 20;
  // One warm-up pair, then 20 timed, the order alternating so neither always goes first.
  for (let pair = -1; pair < PAIRS; pair++) {
    // A new hour: the per-address and per-client limits start again; both addresses locked.
    clock.advance(HOUR + 60_000);
    await lockAddress(server.kv, OWNER.email, { clock });
    await lockAddress(server.kv, UNKNOWN, { clock });
    const order = pair % 2 === 0
      ? ["existing", "unknown"] as const
      : ["unknown", "existing"] as const;
    for (const which of order) {
      const email = which === "existing" ? OWNER.email : UNKNOWN;
      const start = performance.now();
      const { res, html } = await browser.askForLink(email);
      const elapsed = performance.now() - start;
      assert.equal(res.status, 200, html);
      if (pair >= 0) times[which].push(elapsed);
      // What the answer set off runs before the next request is timed.
      await runJobs(server, clock);
    }
  }
  const existing = median(times.existing);
  const unknown = median(times.unknown);
  console.log(
    `sign-in link request, median of ${PAIRS}: existing account ${existing.toFixed(2)} ms, ` +
      `unknown address ${unknown.toFixed(2)} ms`,
  );
  const slower = Math.max(existing, unknown);
  const faster = Math.min(existing, unknown);
  assert.ok(
    slower - faster < 15 || slower / faster < 1.5,
    `medians differ: ${existing.toFixed(2)} vs ${unknown.toFixed(2)} ms`,
  );
  const sent = smtp.messages.filter((m) => m.subject === LINK_SUBJECT).length;
  assert.equal(sent, PAIRS + 1, "the existing account got each of its links, the unknown none");
  assert.ok(smtp.recipients.every((to) => to.length === 1 && to[0] === OWNER.email));
});

Deno.test("[e2e] sign-in link: a locked client naming other addresses mails none of them", async (t) => {
  await using smtp = await startSmtpServer();
  const clock = fakeClock(new Date("2026-11-01T12:00:00Z"));
  await using server = await startTestServer({
    clock,
    env: { SIGNUP: "open", SMTP_URL: smtp.url },
  });
  const base = server.baseUrl;
  await signUpAs(server, OWNER);
  const victims = Array.from({ length: 10 }, (_, i) => `victim${i}@acme.test`);
  for (const [i, email] of victims.entries()) {
    await signUpAs(server, { email, name: `Victim ${i}`, password: `victim password ${i}` });
  }
  const requester = await openSignIn(base, { email: OWNER.email });

  await t.step("the requester locks its own address and its client address", async () => {
    await lockOut(base, OWNER.email);
    // Wrong passwords for other addresses until this client address itself is locked.
    let locked = false;
    for (let i = 0; i < 30 && !locked; i++) {
      const { res } = await requester.signIn("wrong", `stranger${i}@elsewhere.test`);
      locked = res.status === 429;
    }
    assert.ok(locked, "the client address locked");
  });

  await t.step("10 requests naming 10 victims: refused, and no email to any", async () => {
    for (const email of victims) {
      const { res, html } = await requester.askForLink(email);
      assert.equal(res.status, 400, email);
      assert.match(html, /Sign-in is not locked for this address/);
    }
    await runJobs(server, clock);
    assert.deepEqual(smtp.recipients, []);
  });

  await t.step("asking for its own locked address mails only that address", async () => {
    const { res } = await requester.askForLink(OWNER.email);
    assert.equal(res.status, 200);
    await runJobs(server, clock);
    await smtp.next((m) => m.subject === LINK_SUBJECT);
    assert.deepEqual(smtp.recipients, [[OWNER.email]]);
  });
});

Deno.test("[e2e] sign-in link: at most 10 links an hour from one client address", async () => {
  await using smtp = await startSmtpServer();
  const clock = fakeClock(new Date("2026-11-01T12:00:00Z"));
  await using server = await startTestServer({
    clock,
    env: { SIGNUP: "open", SMTP_URL: smtp.url },
  });
  const targets = Array.from({ length: 11 }, (_, i) => `target${i}@acme.test`);
  for (const [i, email] of targets.entries()) {
    await signUpAs(server, { email, name: `Target ${i}`, password: `target password ${i}` });
    // Locked by guesses from elsewhere (each its own address, none of them this client's).
    await lockAddress(server.kv, email, { clock, ip: `192.0.2.${i + 1}` });
  }
  const browser = await openSignIn(server.baseUrl, { email: targets[0] });
  const statuses: number[] = [];
  for (const email of targets) statuses.push((await browser.askForLink(email)).res.status);
  assert.deepEqual(statuses, [...Array(10).fill(200), 429]);
  await runJobs(server, clock);
  assert.deepEqual(
    smtp.recipients.map((to) => to.join()).sort(),
    targets.slice(0, 10).sort(),
    "each of the first 10 addresses got its link; the 11th none",
  );
});

Deno.test("[e2e] sign-in link: a sending the mail server refused is tried again, its link deleted", async () => {
  await using smtp = await startSmtpServer();
  const clock = fakeClock(new Date("2026-11-01T12:00:00Z"));
  await using server = await startTestServer({
    clock,
    env: { SIGNUP: "open", SMTP_URL: smtp.url },
  });
  await signUpAs(server, OWNER);
  await lockAddress(server.kv, OWNER.email, { clock });
  const browser = await openSignIn(server.baseUrl, { email: OWNER.email });
  const links = async () => (await Array.fromAsync(server.kv.list({ prefix: ["sign_in_links"] })));
  smtp.refuseNext(1);
  assert.equal((await browser.askForLink()).res.status, 200);
  await runJobs(server, clock);
  assert.equal(smtp.messages.length, 0, "the server refused it");
  assert.equal((await links()).length, 0, "the link of the refused email is gone");
  clock.advance(2_000); // past the first backoff (1 s ± 20 %)
  await runJobs(server, clock);
  assert.equal(smtp.messages.length, 1, "sent on the next run, once");
  assert.equal((await links()).length, 1);
  clock.advance(60 * 60_000);
  await runJobs(server, clock);
  assert.equal(smtp.messages.length, 1, "never sent again");
});
