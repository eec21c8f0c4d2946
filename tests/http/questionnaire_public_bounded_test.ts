/**
 * Bounded work for anonymous questionnaire matching (POST /public/trust/{orgSlug}/
 * questionnaire-answers), over real HTTP: an outside review sent 400 questions against 2,000
 * answers of 9 KB and got 13.9 MB in 9.6 s, while two such callers held another tenant's
 * /health at 9.4 s. Here the same load runs while another tenant's /health and trust.json are
 * sampled every 20 ms and its publish is timed: each body stays within the byte budget, the
 * sampled reads stay fast, the rate limits answer 429 with Retry-After after their stated
 * number; a second identical call does no matching, and a changed answer shows at once.
 * Clients are told apart by X-Forwarded-For from a trusted proxy (127.0.0.1).
 */
import assert from "node:assert/strict";
import {
  MAX_PUBLIC_MATCH_TEXT,
  MAX_PUBLIC_MATCHES_BYTES,
  PublicQuestionnaireMatches,
} from "../../src/domain/questionnaires.ts";
import { PUBLIC_MATCHING_RATE, publicMatchingStats } from "../../src/serve/questionnaire_public.ts";
import { addAnswer } from "../../src/store/answers.ts";
import { jsonApi, startTestServer, type TestServer } from "../support/server.ts";
import { percentile, questions, random, words } from "../support/made_up_words.ts";

async function bootstrap(server: TestServer, user: string, name: string) {
  const api = jsonApi(server.baseUrl, await server.tokenFor(user));
  const boot = await api("POST", "/onboarding/bootstrap", {
    workspaceName: name,
    projectName: `${name} app`,
    projectVisibility: "public",
  });
  assert.equal(boot.status, 201, JSON.stringify(boot.json));
  return {
    api,
    organizationId: boot.json.organization.id as string,
    slug: boot.json.organization.slug as string,
    projectId: boot.json.project.id as string,
    projectSlug: boot.json.project.slug as string,
  };
}

/** POSTs questions as `client` (through the trusted proxy). */
function ask(server: TestServer, slug: string, client: string, body: unknown) {
  return fetch(`${server.baseUrl}/public/trust/${slug}/questionnaire-answers`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": client },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(120_000),
  });
}

/** The body's bytes beyond the questions it repeats (what the budget covers). */
function budgetBytes(bytes: number, asked: { text: string }[]): number {
  return bytes -
    asked.reduce((sum, q) => sum + new TextEncoder().encode(JSON.stringify(q.text)).length, 0);
}

/**
 * Generous bounds for reads sampled during the load on a shared 2-core machine: the median, the
 * 99th percentile (trust.json does more work per read, and is given more) and the slowest,
 * set so that they held with the machine's load average at 13 (one run there: /health p99
 * 227 ms, trust.json p99 646 ms and max 1 007 ms). Measured figures and their command:
 * docs/bounded-work.md, "Public questionnaire matching".
 */
const READ_P50_MS = 200;
const READ_P99_MS = { health: 500, trustJson: 1000 };
const READ_BOUND_MS = 2000;

Deno.test({
  name:
    "[http] public matching: two anonymous 400-question callers against 2,000 answers of 9 KB stay within budget and do not hold another tenant",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using server = await startTestServer({
      worker: false,
      env: { TRUSTED_PROXIES: "127.0.0.1/32" },
    });
    const victim = await bootstrap(server, "victim", "Victim");
    const published = await victim.api("POST", `/projects/${victim.projectId}/publish`);
    assert.equal(published.status, 201, JSON.stringify(published.json));
    const big = await bootstrap(server, "big", "Bigcorp");
    const actor = { userId: crypto.randomUUID(), email: "owner@example.test" };
    const next = random(7);
    for (let i = 0; i < 2000; i++) {
      await addAnswer(server.kv, big.organizationId, {
        request: {
          question: `${words(next, 12)}?`,
          answer: words(next, 1100).slice(0, 9000),
          category: `Category ${i % 9}`,
          visibility: i % 10 === 0 ? "restricted" : "public",
          questionnaireRefs: [{ questionnaire: "sig", id: `A.${i}` }],
          citations: [],
        },
        actor,
        now: new Date(),
      });
    }

    // Sample the other tenant's /health and trust.json every 20 ms while the callers run.
    const health: number[] = [];
    const trustJson: number[] = [];
    let running = true;
    const timed = async (path: string, into: number[]) => {
      const started = performance.now();
      const res = await fetch(`${server.baseUrl}${path}`);
      await res.arrayBuffer();
      assert.equal(res.status, 200, path);
      into.push(performance.now() - started);
    };
    const sampler = (async () => {
      for (let i = 0; running && i < 10_000; i++) {
        await Promise.all([
          timed("/health", health),
          timed(`/trust/${victim.projectSlug}/trust.json`, trustJson),
        ]);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();

    const callers = ["203.0.113.1", "203.0.113.2"];
    const sent: { client: string; asked: { text: string }[] }[] = [];
    const heavy = callers.map(async (client, c) => {
      const out: { status: number; bytes: number; asked: { text: string }[]; body: string }[] = [];
      for (let round = 0; round < 2; round++) {
        const asked = questions(1000 + c * 10 + round, 400);
        sent.push({ client, asked });
        const res = await ask(server, big.slug, client, { questions: asked });
        const body = await res.text();
        out.push({ status: res.status, bytes: new TextEncoder().encode(body).length, asked, body });
      }
      return out;
    });
    // One publish by the other tenant, timed in the middle of the load.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const publishStarted = performance.now();
    const republish = await victim.api("POST", `/projects/${victim.projectId}/publish`);
    const publishMs = performance.now() - publishStarted;
    assert.ok([200, 201, 409].includes(republish.status), JSON.stringify(republish.json));
    const answers = (await Promise.all(heavy)).flat();
    running = false;
    await sampler;

    let served = 0;
    for (const answer of answers) {
      if (answer.status === 503) continue; // the instance's queue was full: bounded, and said so
      assert.equal(answer.status, 200, answer.body.slice(0, 300));
      served++;
      const body = PublicQuestionnaireMatches.parse(JSON.parse(answer.body));
      assert.equal(body.results.length, 400);
      assert.ok(
        budgetBytes(answer.bytes, answer.asked) <= MAX_PUBLIC_MATCHES_BYTES,
        `a body of ${answer.bytes} bytes`,
      );
      for (const result of body.results) {
        for (const s of [result.best, ...result.suggestions]) {
          if (s) assert.ok(s.text.length <= MAX_PUBLIC_MATCH_TEXT, "texts are cut");
        }
      }
    }
    assert.ok(served >= 2, `${served} of ${answers.length} calls were answered`);
    // The search ran on the matching worker: its garbage is collected there, not here.
    assert.equal(publicMatchingStats().thread, "worker");
    const figures = {
      calls: answers.map((a) => `${a.status}:${a.bytes}`),
      healthSamples: health.length,
      healthP50: Math.round(percentile(health, 0.5)),
      healthP99: Math.round(percentile(health, 0.99)),
      healthMax: Math.round(Math.max(...health)),
      trustJsonP50: Math.round(percentile(trustJson, 0.5)),
      trustJsonP99: Math.round(percentile(trustJson, 0.99)),
      trustJsonMax: Math.round(Math.max(...trustJson)),
      publishMs: Math.round(publishMs),
    };
    console.log(`public matching under load: ${JSON.stringify(figures)}`);
    assert.ok(health.length >= 10, "the sampler ran during the load");
    assert.ok(figures.healthP50 < READ_P50_MS, `/health p50 ${figures.healthP50} ms`);
    assert.ok(figures.trustJsonP50 < READ_P50_MS, `trust.json p50 ${figures.trustJsonP50} ms`);
    assert.ok(figures.healthP99 < READ_P99_MS.health, `/health p99 ${figures.healthP99} ms`);
    assert.ok(
      figures.trustJsonP99 < READ_P99_MS.trustJson,
      `trust.json p99 ${figures.trustJsonP99} ms`,
    );
    assert.ok(figures.healthMax < READ_BOUND_MS, `/health max ${figures.healthMax} ms`);
    assert.ok(figures.trustJsonMax < READ_BOUND_MS, `trust.json max ${figures.trustJsonMax} ms`);
    assert.ok(publishMs < 2 * READ_BOUND_MS, `publish took ${figures.publishMs} ms`);
  },
});

Deno.test({
  name:
    "[http] public matching: an identical call is answered without matching, a changed answer shows at once, long texts are cut at a word",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using server = await startTestServer({
      worker: false,
      env: { TRUSTED_PROXIES: "127.0.0.1/32" },
    });
    const org = await bootstrap(server, "cache", "Cacheco");
    const path = `/organizations/${org.organizationId}/answers`;
    const long = `Backups are encrypted. ${
      "Every nightly snapshot is copied offsite. ".repeat(200)
    }`;
    const created = await org.api("POST", path, {
      question: "Are backups encrypted at rest?",
      answer: long,
      category: "Backups",
      visibility: "public",
      citations: [],
      questionnaireRefs: [{ questionnaire: "caiq-v4", id: "BCR-08.1" }],
    });
    assert.equal(created.status, 201, JSON.stringify(created.json));
    const short = await org.api("POST", path, {
      question: "Do you keep an incident response plan?",
      answer: "Yes, tested twice a year.",
      category: "Incidents",
      visibility: "public",
      citations: [],
      questionnaireRefs: [],
    });
    assert.equal(short.status, 201);
    const asked = {
      questions: [{ text: "Are backups encrypted at rest?", id: "BCR-08.1" }, {
        text: "Is there an incident response plan?",
      }],
    };
    let lastBytes = 0;
    const call = async (body = asked, client = "192.0.2.1") => {
      const res = await ask(server, org.slug, client, body);
      const text = await res.text();
      assert.equal(res.status, 200, text);
      assert.equal(res.headers.get("content-type"), "application/json");
      assert.equal(res.headers.get("cache-control"), "no-store");
      // Written as a stream, a few results at a time: still JSON.stringify's text exactly.
      assert.equal(text, JSON.stringify(JSON.parse(text)));
      lastBytes = new TextEncoder().encode(text).length;
      return PublicQuestionnaireMatches.parse(JSON.parse(text));
    };

    const before = publicMatchingStats();
    const first = await call();
    const afterFirst = publicMatchingStats();
    assert.equal(afterFirst.matchings, before.matchings + 1);
    assert.equal(afterFirst.indexes, before.indexes + 1);
    // The body kept is counted from its results' sizes, to the byte, without writing it again.
    assert.equal(afterFirst.keptBodyBytes - before.keptBodyBytes, lastBytes);

    const best = first.results[0].best!;
    assert.equal(best.source.kind === "answer" && best.source.answerId, created.json.answer.id);
    assert.ok(best.text.length <= MAX_PUBLIC_MATCH_TEXT, `${best.text.length}`);
    assert.ok(best.text.length > MAX_PUBLIC_MATCH_TEXT - 60, "cut near the limit");
    assert.match(best.text, /offsite\.…$/, "cut after a whole word");
    assert.equal(best.truncated, true);
    assert.equal(best.fullTextUrl, `${first.url}#answer-${created.json.answer.id}`);
    assert.equal(first.truncated, true);
    const plan = first.results[1].best!;
    assert.equal(plan.text, "Yes, tested twice a year.");
    assert.equal(plan.truncated, undefined);
    assert.equal(plan.fullTextUrl, undefined);

    // The same questions from another client: the same body, and no matching done.
    const again = await call(asked, "192.0.2.2");
    assert.deepEqual(again, first);
    assert.equal(publicMatchingStats().matchings, afterFirst.matchings, "answered from the copy");

    // Other questions: matched, against the index already built.
    await call({ questions: [{ text: "Do you encrypt backups?" }] });
    assert.equal(publicMatchingStats().matchings, afterFirst.matchings + 1);
    assert.equal(publicMatchingStats().indexes, afterFirst.indexes, "the index is reused");

    // A changed answer shows at once.
    const changed = await org.api("PATCH", `${path}/${short.json.answer.id}`, {
      answer: "Yes, tested every quarter.",
    });
    assert.equal(changed.status, 200, JSON.stringify(changed.json));
    const fresh = await call(asked, "192.0.2.3");
    assert.equal(fresh.results[1].best!.text, "Yes, tested every quarter.");
    assert.equal(
      publicMatchingStats().indexes,
      afterFirst.indexes + 1,
      "a new version, a new index",
    );

    // The rate limits, on fast calls (answered from the copy), so that their 60 s windows
    // stay open while they are counted whatever the machine's load: a fresh client gets its
    // stated number, then 429 with Retry-After.
    const one = { questions: [{ text: "Do you encrypt backups?" }] };
    for (let i = 0; i < PUBLIC_MATCHING_RATE.perClient; i++) {
      const res = await ask(server, org.slug, "192.0.2.50", one);
      assert.equal(res.status, 200, (await res.text()).slice(0, 300));
    }
    const limited = await ask(server, org.slug, "192.0.2.50", one);
    assert.equal(limited.status, 429);
    const seconds = Number(limited.headers.get("retry-after"));
    assert.ok(seconds >= 1 && seconds <= PUBLIC_MATCHING_RATE.windowMs / 1000, `${seconds}`);
    const envelope = await limited.json();
    assert.equal(envelope.error.code, "rate_limited");
    assert.match(envelope.error.message, /per client/);

    // The per-organization limit: counted over every client (four calls above, ten here).
    let counted = 4 + PUBLIC_MATCHING_RATE.perClient;
    let refused: Response | null = null;
    for (let i = 0; i < PUBLIC_MATCHING_RATE.perOrganization + 5 && !refused; i++) {
      const res = await ask(server, org.slug, `198.51.100.${i + 1}`, one);
      if (res.status === 429) refused = res;
      else {
        assert.equal(res.status, 200);
        await res.body?.cancel();
        counted++;
      }
    }
    assert.ok(refused, "the organization's limit answered 429");
    assert.equal(counted, PUBLIC_MATCHING_RATE.perOrganization);
    assert.ok(Number(refused.headers.get("retry-after")) >= 1);
    assert.match((await refused.json()).error.message, /per organization/);
  },
});
