/**
 * The service as Deno Deploy runs it, behind a CDN: deploy.ts on Deno 2.5.0 (and 2.9.6) in processes that
 * start on demand and stop after 5 s without traffic (tests/support/deploy_host.ts), Deno KV
 * without queues, no raw TCP to 443/25/465/587, cron ticks from the platform, and the shipped
 * Varnish configuration standing in for Deploy's CDN (its purge API answered by xkey). Every
 * request goes through the CDN: first-run sign-up, evidence, publishing, public reads while
 * pages change, a freshness window that lapses while nothing runs, a webhook retry across a stop,
 * and email through SES.
 *
 * Long sub-steps are marked with their expected duration.
 */
import assert from "node:assert/strict";
import { login, signUp } from "../support/builtin_login.ts";
import {
  DEPLOY_DENO_VERSION,
  type DeployHost,
  README_DENO_VERSION,
  startDeployHost,
} from "../support/deploy_host.ts";
import {
  type Acknowledged,
  type EdgeRead,
  hitRatio,
  purgeAcks,
  readVersion,
  secondPurgeAck,
  staleAfterPurge,
} from "../support/deploy_reads.ts";
import {
  ACCOUNT,
  acmeProject,
  type Call,
  caller,
  eventually,
  sendScan,
  startReceiver,
} from "../support/live_vendor.ts";
import { startSes } from "../support/ses.ts";

const SLUG = "acme";
const REFUSED_PORTS = [443, 25, 465, 587];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/** Sends an SBOM observed at `observedAt` through `base`. */
async function sendSbom(base: string, target: { projectId: string; secret: string }, at: number) {
  const res = await fetch(`${base}/ingest/evidence`, {
    method: "POST",
    headers: { authorization: `Bearer ${target.secret}`, "content-type": "application/json" },
    body: JSON.stringify({
      projectId: target.projectId,
      evidenceType: "sbom",
      sourceType: "collector",
      sourceRef: "ci",
      observedAt: new Date(at).toISOString(),
      payload: {
        bomFormat: "CycloneDX",
        specVersion: "1.5",
        components: [{ name: "left-pad", version: `1.${at}` }],
      },
    }),
  });
  assert.equal(res.status, 201, await res.text());
}

/** The latest version as the API says (signed in, never cached). */
async function latestVersion(call: Call, projectId: string) {
  const res = await call("GET", `/projects/${projectId}/published-profile`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.publishedProfile as { version: number; publishedAt: string };
}

/** Polls trust.json and the HTML page through the CDN until both show more than `version`. */
async function whenBothShowAfter(base: string, version: number, since: number, timeoutMs: number) {
  const seenAt: Record<"json" | "html", number | null> = { json: null, html: null };
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && (seenAt.json === null || seenAt.html === null)) {
    for (const kind of ["json", "html"] as const) {
      if (seenAt[kind] !== null) continue;
      const read = await readVersion(base, SLUG, kind);
      if (read.version > version) seenAt[kind] = Date.now() - since;
    }
    await sleep(25);
  }
  return seenAt;
}

function dump(host: DeployHost) {
  const summary = host.processes.map((p) =>
    `#${p.index} pid ${p.pid}${p.forCron ? " (cron)" : ""}: started ${p.startedAt}, sigint ${
      p.sigintAt ?? "-"
    }, sigkill ${p.sigkillAt ?? "-"}, exited ${p.exitedAt ?? "-"} ${JSON.stringify(p.status)}`
  );
  console.log(`${summary.join("\n")}\n--- last output ---\n${host.lines.slice(-80).join("\n")}`);
}

/** Deploy's runtime, and the version the README pins (DESIGN.md §14: CI runs both). */
for (const version of [DEPLOY_DENO_VERSION, README_DENO_VERSION]) {
  Deno.test(`[e2e] deploy-shaped: deploy.ts on Deno ${version} behind the CDN, started and stopped on demand`, async (t) => {
    await using ses = await startSes();
    // Resolves (and warms) the Deno that runs deploy.ts and starts Varnish; no process runs yet.
    const host = await startDeployHost({
      denoVersion: version,
      varnish: true,
      env: {
        ...ses.env,
        MAIL_FROM: "Acme Trust <trust@acme.test>",
        WEBHOOK_ALLOW_PRIVATE: "true",
        DEPLOY_TEST_PROBE_CONNECT: "1",
      },
    });
    const url = host.url;
    let answered = 0;
    // The webhook receiver fails the first delivery, so the next attempt waits for its retry.
    const receiver = startReceiver(() => (answered++ === 0 ? 500 : 200));
    let call: Call = () => Promise.reject(new Error("not signed in"));
    let target = { projectId: "", secret: "" };
    const results: boolean[] = [];
    try {
      results.push(
        await t.step(
          "first run through the CDN: sign-up, project, evidence, version 1",
          async () => {
            const health = await fetch(`${url}/health`);
            assert.deepEqual(await health.json(), { status: "ok" });
            const setup = (await host.waitFor(/\/signup\?setup=/)).trim();
            assert.ok(setup.startsWith(`${url}/signup?setup=`), setup);
            const signedUp = await signUp(url, new URL(setup).search.slice(1), ACCOUNT);
            assert.equal(signedUp.status, 303);
            await signedUp.body?.cancel();
            call = caller([url], (await login(url, ACCOUNT)).access_token);
            target = await acmeProject(call);
            await sendSbom(url, target, Date.now() - 1000);
            await sendScan(url, target, 0);
            assert.equal((await call("POST", `/projects/${target.projectId}/publish`)).status, 201);
            const patch = await call("PATCH", `/projects/${target.projectId}`, {
              autoPublish: true,
            });
            assert.equal(patch.status, 200);
            const first = await readVersion(url, SLUG, "json");
            assert.equal(first.version, 1);
          },
        ),
      );

      results.push(
        await t.step("a subscriber's confirmation email goes out through SES", async () => {
          const email = "buyer@customer.test";
          const res = await fetch(`${url}/trust/${SLUG}/subscriptions`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ email }),
          });
          assert.equal(res.status, 202, await res.text());
          const mail = await ses.next((m) => m.stored.destination.to.includes(email), 20_000);
          const link = (mail.stored.body.text ?? "").match(
            /https?:\/\/[^\s]+\/subscriptions\/confirm\/[A-Za-z0-9._-]+/,
          );
          assert.ok(link, `no confirmation link in ${mail.stored.body.text}`);
          assert.ok(link[0].startsWith(url), "the link points at the public URL");
          const confirmed = await fetch(link[0], { method: "POST" });
          assert.equal(confirmed.status, 200);
          await confirmed.body?.cancel();
        }),
      );

      results.push(
        await t.step(
          "a failing scan while warm: the new version through the CDN, time printed (target 2 s: deno task bench)",
          async () => {
            // Both pages cached first.
            for (let i = 0; i < 2; i++) {
              await readVersion(url, SLUG, "json");
              await readVersion(url, SLUG, "html");
            }
            const before = await latestVersion(call, target.projectId);
            assert.equal(host.running().length, 1, "warm");
            const from = host.lines.length;
            await sendScan(url, target, 3);
            const accepted = Date.now();
            // Visible at all is what this test proves; how fast is a benchmark's question
            // (tests/bench/edge.ts), since two busy cores make any time bound here noise.
            const seen = await whenBothShowAfter(url, before.version, accepted, 20_000);
            // Where the time went: the publication, then the purge after its pages were stored.
            const published = await latestVersion(call, target.projectId);
            // Each group of the project's pages is purged by its own tag once stored.
            const purged = purgeAcks(host.lines, from)
              .find((a) => a.tags.some((t) => t.startsWith(`project-${target.projectId}-`)));
            console.log(
              `warm: the new version through the CDN ${seen.json} ms (trust.json) and ${seen.html} ms ` +
                `(page) after the scan was accepted; published after ${
                  Date.parse(published.publishedAt) - accepted
                } ms, purge acknowledged after ${purged ? purged.at - accepted : "-"} ms`,
            );
            assert.ok(seen.json !== null, "trust.json never showed the new version");
            assert.ok(seen.html !== null, "the page never showed the new version");
          },
        ),
      );

      results.push(
        await t.step(
          "[~25 s] a freshness window lapses while nothing runs: a cron tick publishes it, visible within 65 s",
          async () => {
            const WINDOW_MS = 14_000;
            const { body } = await call("GET", `/projects/${target.projectId}/controls`);
            const sbom = body.controls.find((c: { key: string }) => c.key === "evidence.sbom");
            const observedAt = Date.now();
            await sendSbom(url, target, observedAt);
            const patched = await call(
              "PATCH",
              `/projects/${target.projectId}/controls/${sbom.id}`,
              {
                freshnessPolicyJson: { kind: "time_window", windowSeconds: WINDOW_MS / 1000 },
                degradationPolicyJson: { staleAfterSeconds: null, degradedAfterSeconds: null },
              },
            );
            assert.equal(patched.status, 200);
            const lapse = observedAt + WINDOW_MS;
            const before = await latestVersion(call, target.projectId);
            assert.equal((await readVersion(url, SLUG, "json")).version, before.version);
            // No request from here on: the idle stop (5 s) ends every process before the lapse.
            await host.allStopped(lapse - Date.now() - 1_000);
            await sleep(lapse - Date.now() + 1_000);
            assert.equal(host.running().length, 0, "nothing runs when the window lapses");
            const tick = await host.tick();
            assert.ok(tick.process.forCron, "the tick started a process of its own");
            const seen = await whenBothShowAfter(url, before.version, lapse, 65_000);
            console.log(
              `cron: the decayed version through the CDN ${seen.json} ms (trust.json) and ` +
                `${seen.html} ms (page) after the window lapsed`,
            );
            assert.ok(
              seen.json !== null && seen.json <= 65_000,
              `trust.json after ${seen.json} ms`,
            );
            assert.ok(seen.html !== null && seen.html <= 65_000, `page after ${seen.html} ms`);
            const latest = await (await fetch(`${url}/trust/${SLUG}/trust.json`)).json();
            const state = latest.controls.find((c: { key: string }) => c.key === "evidence.sbom");
            assert.equal(state.state, "stale");
            assert.ok(
              purgeAcks(tick.process.lines).some((a) =>
                a.tags.some((t) => t.startsWith(`project-${target.projectId}-`))
              ),
              "the process started for the tick purged the project's pages",
            );
          },
        ),
      );

      results.push(
        await t.step(
          "[~12 s] 2,000 reads through the CDN with publishes between: none older than a render's second purge",
          async () => {
            const TOTAL = 2_000;
            const PUBLISH_AT = [300, 700, 1_100, 1_500];
            const reads: EdgeRead[] = [];
            const acks: Acknowledged[] = [];
            const firstPurges: Array<{ from: number; groups: Array<{ tag: string; at: number }> }> =
              [];
            let started = 0;
            const readers = Array.from({ length: 8 }, async () => {
              while (started < TOTAL) {
                const kind = started++ % 2 === 0 ? "json" : "html";
                // A read that throws is kept as a failed read with its error, so the assertion
                // below names it (it used to stop its reader and show only a shorter count).
                reads.push(
                  await readVersion(url, SLUG, kind).catch((error) => ({
                    startedAt: Date.now(),
                    kind,
                    status: 0,
                    version: 0,
                    cache: String(error),
                  })),
                );
                await sleep(25);
              }
            });
            const publisher = (async () => {
              let critical = 0;
              for (const at of PUBLISH_AT) {
                const deadline = Date.now() + 30_000;
                while (started < at && Date.now() < deadline) await sleep(5);
                const from = host.lines.length;
                const previous = await latestVersion(call, target.projectId);
                await sendScan(url, target, critical);
                critical = critical === 0 ? 3 : 0;
                const published = await eventually(`version ${previous.version + 1}`, async () => {
                  const latest = await latestVersion(call, target.projectId);
                  return latest.version > previous.version ? latest : null;
                }, 10_000);
                const publishedAt = Date.parse(published.publishedAt);
                // trust.json and the page are of two groups, each purged by its own tag: a
                // read shows the version once both were acknowledged.
                const groupAck = (group: string) =>
                  eventually(
                    `the ${group} purge after version ${published.version}`,
                    () =>
                      Promise.resolve(
                        purgeAcks(host.lines, from).find((a) =>
                          a.at >= publishedAt &&
                          a.tags.includes(`project-${target.projectId}-${group}`)
                        ),
                      ),
                    10_000,
                  );
                const both = await Promise.all([groupAck("signed"), groupAck("latest")]);
                acks.push({
                  version: published.version,
                  at: Math.max(...both.map((a) => a.at)),
                });
                firstPurges.push({
                  from,
                  groups: ["signed", "latest"].map((group, i) => ({
                    tag: `project-${target.projectId}-${group}`,
                    at: both[i].at,
                  })),
                });
              }
            })();
            const [publishing] = await Promise.allSettled([publisher, Promise.all(readers)]);
            // A cache miss in flight across a render's purge may still land in the cache with
            // the older page (docs/edge.md, "The race one purge cannot close"); the render's
            // second purge, PURGE_AGAIN_MS later, evicts it. What is promised holds from there.
            const settled: Acknowledged[] = [];
            for (const [i, first] of firstPurges.entries()) {
              const at = await Promise.all(first.groups.map(({ tag, at }) =>
                eventually(
                  `the second purge of ${tag}`,
                  () => Promise.resolve(secondPurgeAck(host.lines, first.from, tag, at)),
                  10_000,
                )
              ));
              settled.push({ version: acks[i].version, at: Math.max(...at) });
            }
            const stale = staleAfterPurge(reads, settled);
            const early = staleAfterPurge(reads, acks);
            const ratio = hitRatio(reads);
            console.log(
              `${reads.length} reads through the CDN: hit ratio ${(ratio * 100).toFixed(1)} % ` +
                `(${
                  reads.filter((r) => r.cache === "HIT").length
                } HIT), ${stale.length} showed an older version after a render's second purge ` +
                `(${early.length} after its first); purges acknowledged for versions ` +
                `${acks.map((a) => a.version).join(", ") || "none"}`,
            );
            assert.equal(reads.length, TOTAL);
            assert.deepEqual(reads.filter((r) => r.status !== 200), []);
            if (publishing.status === "rejected") throw publishing.reason;
            assert.deepEqual(stale.slice(0, 5), [], `${stale.length} stale reads`);
            assert.ok(ratio >= 0.5, `the CDN answered ${(ratio * 100).toFixed(1)} % of reads`);
          },
        ),
      );

      results.push(
        await t.step(
          "[~15 s] SIGINT while a webhook delivery is due: delivered once after a restart, one webhook-id",
          async () => {
            const hook = await call("POST", `/projects/${target.projectId}/webhooks`, {
              url: receiver.url("/hook"),
              events: ["version.published"],
            });
            assert.equal(hook.status, 201, JSON.stringify(hook.body));
            assert.equal((await call("POST", `/projects/${target.projectId}/publish`)).status, 201);
            const [first] = await receiver.waitFor(() => true);
            assert.equal(first.status, 500);
            // Deploy stops the idle process; the retry (5 s after the failure, ±20 %) comes due
            // while none runs, and the next cron tick starts one that delivers it.
            await host.idleNow();
            await sleep(first.at + 6_500 - Date.now());
            assert.equal(host.running().length, 0);
            await host.tick();
            const [, second] = await receiver.waitFor(() => true, 2, 30_000);
            assert.equal(second.status, 200);
            assert.equal(second.id, first.id, "the same webhook-id");
            await sleep(1_500);
            assert.equal(
              receiver.received.length,
              2,
              "delivered once after the failure, not again",
            );
            const deliveries = await call(
              "GET",
              `/projects/${target.projectId}/webhooks/${hook.body.webhook.id}/deliveries`,
            );
            assert.equal(deliveries.status, 200);
            const [delivery] = deliveries.body.deliveries;
            assert.equal(delivery.status, "delivered");
            assert.equal(delivery.attempts.length, 2);
          },
        ),
      );

      results.push(
        await t.step("Deploy's limits held: raw TCP refused, stops graceful, no queue", () => {
          for (const port of REFUSED_PORTS) {
            assert.ok(
              host.lines.includes(`deploy-emulation: connect probe ${port} refused`),
              `Deno.connect to ${port} refused`,
            );
          }
          const stops = host.processes.filter((p) => p.sigintAt !== undefined)
            .map((p) => (p.exitedAt ?? Infinity) - p.sigintAt!);
          console.log(
            `${host.starts} processes started, ${host.sigints} stopped by SIGINT (in ${
              stops.join(", ")
            } ms), ${host.sigkills} killed`,
          );
          assert.ok(host.sigints >= 2, "processes were stopped when idle");
          assert.equal(host.sigkills, 0, "no process needed SIGKILL");
          for (const ms of stops) assert.ok(ms <= 4_500, `stopped ${ms} ms after SIGINT`);
          assert.doesNotMatch(host.lines.join("\n"), /KV operation not supported here/);
          assert.doesNotMatch(host.lines.join("\n"), /"level":"error"/);
        }),
      );
    } finally {
      if (results.includes(false)) dump(host);
      await host.stop();
      await receiver.close();
    }
  });
}
