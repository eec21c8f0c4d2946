import assert from "node:assert/strict";
import type { TrustEvent } from "../../src/domain/events.ts";
import { loadConfig } from "../../src/config.ts";
import type { Publication } from "../../src/domain/publication.ts";
import type { Project } from "../../src/domain/workspace.ts";
import { createJobWorker } from "../../src/live/worker.ts";
import { fakeClock } from "../../src/lib/clock.ts";
import { memoryLogger } from "../../src/lib/log.ts";
import { MAX_LISTED_CONTROLS, publicationEvents } from "../../src/publish/events.ts";
import { createEventBus } from "../../src/push/events.ts";
import { createTestApp } from "../support/app.ts";
import { publishVersion, workspace } from "../support/fixtures.ts";

const project = {
  id: "6f1b1c9e-2f7a-4a36-9d3e-1f2a3b4c5d6e",
  organizationId: "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
  slug: "acme-cloud",
  name: "Acme Cloud",
} as Project;

function publicationWith(changes: Publication["changes"]): Publication {
  return {
    version: 7,
    publishedAt: "2026-11-01T12:00:00.000Z",
    digest: `sha256:${"a".repeat(64)}`,
    overallState: "fail",
    changes,
  } as Publication;
}

const change = (key: string, from: string | null, to: string) =>
  ({ key, name: key, from, to, reason: `${key} is ${to}` }) as Publication["changes"][number];

Deno.test("[push] a version raises version.published, then regressions and recoveries by published state", () => {
  const config = loadConfig({ BASE_URL: "https://trust.example.com" });
  const events = publicationEvents(
    config,
    project,
    publicationWith([
      change("sbom", "pass", "fail"),
      change("scan", "pass", "stale"),
      change("deploy", "pass", "degraded"),
      change("policy", "fail", "pass"),
      change("new", null, "pass"),
      change("unknown", "pass", "unknown"),
      change("worse", "stale", "fail"),
    ]),
  );
  assert.deepEqual(events.map((e) => e.type), [
    "version.published",
    "control.regressed",
    "control.recovered",
  ]);
  for (const event of events) {
    assert.equal(event.projectId, project.id);
    assert.equal(event.organizationId, project.organizationId);
    assert.equal(event.timestamp, "2026-11-01T12:00:00.000Z");
    assert.equal(event.data.pageUrl, "https://trust.example.com/trust/acme-cloud");
  }
  assert.equal(new Set(events.map((e) => e.id)).size, 3);
  const regressed = events[1].data as { count: number; controls: { key: string }[] };
  assert.deepEqual(regressed.controls.map((c) => c.key), ["sbom", "scan", "deploy"]);
  assert.equal(regressed.count, 3);
  assert.deepEqual((events[2].data.controls as { key: string }[]).map((c) => c.key), ["policy"]);
});

Deno.test("[push] an event lists at most MAX_LISTED_CONTROLS controls and the full count", () => {
  const many = Array.from({ length: 180 }, (_, i) => change(`c${i}`, "pass", "fail"));
  const [, regressed] = publicationEvents(loadConfig({}), project, publicationWith(many));
  assert.equal((regressed.data.controls as unknown[]).length, MAX_LISTED_CONTROLS);
  assert.equal(regressed.data.count, 180);
  assert.ok(JSON.stringify(regressed).length < 64 * 1024);
});

Deno.test("[push] the bus hands an event to every channel and asks for it again when one fails", async () => {
  const log = memoryLogger();
  await using kv = await Deno.openKv(":memory:");
  const jobs = createJobWorker({ kv, log, clock: fakeClock() });
  const bus = createEventBus({ log, jobs });
  const seen: string[] = [];
  let failures = 1;
  bus.subscribe("a", (event) => {
    seen.push(`a:${event.type}`);
    return Promise.resolve();
  });
  bus.subscribe("b", (event) => {
    seen.push(`b:${event.type}`);
    if (failures-- > 0) return Promise.reject(new Error("receiver down"));
    return Promise.resolve();
  });
  const event = { id: crypto.randomUUID(), type: "update.posted" } as TrustEvent;
  await assert.rejects(jobs.dispatch({ kind: "event", event }), /Push channels failed: b/);
  await jobs.dispatch({ kind: "event", event });
  assert.deepEqual(seen, [
    "a:update.posted",
    "b:update.posted",
    "a:update.posted",
    "b:update.posted",
  ]);
  assert.match(log.lines.join("\n"), /"channel":"b"/);
  // A kind without a handler fails (the job is retried, then dead-lettered for operators);
  // something that is not a job message is ignored.
  await assert.rejects(jobs.dispatch({ kind: "something-else" }), /No handler for jobs/);
  await jobs.dispatch("not a message");
  assert.throws(() => bus.subscribe("a", () => Promise.resolve()), /exists/);
});

Deno.test("[push] publishing and changing subprocessors write their events with the change", async () => {
  await using ctx = await createTestApp({ worker: true });
  const seen: TrustEvent[] = [];
  const done = Promise.withResolvers<void>();
  ctx.services.events.subscribe("test", (event) => {
    seen.push(event);
    if (seen.length === 3) done.resolve();
    return Promise.resolve();
  });
  const ws = await workspace(ctx, "owner", { visibility: "public" });
  await publishVersion(ctx, ws);
  const added = await ctx.call("POST", `/organizations/${ws.organization.id}/subprocessors`, {
    token: ws.token,
    json: {
      name: "Postmark",
      purpose: "Email",
      location: "US",
      website: "https://postmarkapp.com",
    },
  });
  assert.equal(added.status, 201);
  const refused = await ctx.call("POST", `/organizations/${ws.organization.id}/subprocessors`, {
    token: ws.token,
    json: { name: "", purpose: "Email", location: "US", website: "http://insecure" },
  });
  assert.equal(refused.status, 400);
  const removed = await ctx.call(
    "DELETE",
    `/organizations/${ws.organization.id}/subprocessors/${(await added.json()).subprocessor.id}`,
    { token: ws.token },
  );
  assert.equal(removed.status, 200);
  const timer = setTimeout(() => done.reject(new Error(`only ${seen.length} events`)), 10_000);
  await done.promise.finally(() => clearTimeout(timer));
  const types = seen.map((e) => `${e.type}:${e.data.action ?? e.data.version}`).sort();
  assert.deepEqual(types, [
    "subprocessor.changed:added",
    "subprocessor.changed:removed",
    "version.published:1",
  ]);
  const sub = seen.find((e) => e.type === "subprocessor.changed")!;
  assert.equal(sub.organizationId, ws.organization.id);
  assert.equal(sub.projectId, null);
  assert.equal("actor" in sub.data, false);
});
