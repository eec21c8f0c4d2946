/**
 * The one commit path for public data (src/store/public_writes.ts): every collection of the key
 * register says which public pages its writes alter, and every commit the service sends that
 * mutates such a collection carries the touch that makes the stored pages render again. Proven
 * three ways: the register is complete and consistent; an audit under the service's KV sees no
 * public commit without its touch over a whole tenant's life (and does see one from a writer
 * that goes around the path); and the signals route, whose writer once forgot, answers the new
 * detection at once and after the render.
 */
import assert from "node:assert/strict";
import { KEY_COLLECTIONS } from "../../src/store/tenant_keys.ts";
import { trackPublicWrites } from "../../src/store/public_writes.ts";
import { recordSignals } from "../../src/store/signals.ts";
import { generationKey } from "../../src/store/edge_pages.ts";
import { PROJECT_GROUPS } from "../../src/domain/stored_urls.ts";
import { fakeClock } from "../../src/lib/clock.ts";
import { auditCommits } from "../support/commit_audit.ts";
import { createTestApp } from "../support/app.ts";
import { collector, publishVersion, workspace } from "../support/fixtures.ts";
import { world } from "../support/public_world.ts";

Deno.test("[store] every collection of the register says what its writes change of the public pages", () => {
  const declared = Object.entries(KEY_COLLECTIONS);
  assert.ok(declared.length > 100);
  for (const [name, rule] of declared) {
    const effect = rule.public as unknown;
    assert.ok(effect !== undefined, `${name} declares no public effect`);
    if (effect === "none") continue;
    assert.equal(typeof effect, "object", `${name}: ${String(effect)}`);
    // A key part named as the tenant's id is the one the key's layout puts there.
    const at = effect as { project?: number; organization?: number };
    const parts = rule.note.replace(/^\[/, "").split(/[\],]/).map((part) => part.trim());
    if (at.project !== undefined) {
      assert.match(parts[at.project - 1], /^(projectId|id)$/, `${name}: ${rule.note}`);
      assert.equal(rule.owner, "project", name);
    }
    if (at.organization !== undefined) {
      assert.match(parts[at.organization - 1], /^(orgId|id)$/, `${name}: ${rule.note}`);
      assert.equal(rule.owner, "organization", name);
    }
  }
  // Public data a buyer reads, each declared.
  for (
    const name of [
      "projects",
      "controls",
      "publications",
      "signals_latest",
      "updates",
      "domains",
      "answers",
      "documents",
      "certifications",
      "subprocessors",
      "organization_profiles",
      "deletions",
    ]
  ) {
    assert.notEqual(KEY_COLLECTIONS[name].public, "none", name);
  }
});

Deno.test("[store] a writer that goes around the commit path is caught; through it, the touch is there", async () => {
  const raw = await Deno.openKv(":memory:");
  try {
    const clock = fakeClock(new Date("2026-11-01T12:00:00Z"));
    const projectId = crypto.randomUUID();
    const organizationId = crypto.randomUUID();
    await raw.set(["projects", projectId], { id: projectId, organizationId });
    const detection = {
      detectedAt: clock.now().toISOString(),
      commitSha: "0123abc",
      ciCd: { detected: false },
      monitoring: { detected: false },
      authProvider: { detected: false },
      cloudProvider: { detected: false },
      securityContact: { detected: false },
    };
    // The writer as it was: the service's KV without the commit path.
    const around = auditCommits(raw);
    await recordSignals(around.kv, detection as never, { projectId });
    assert.deepEqual(around.missing, [`["signals_latest","${projectId}"]`]);
    // The same writer through the path: its commit carries the project's touch.
    const through = auditCommits(raw);
    // The signals page's group is the one that reads the detection.
    const signals = PROJECT_GROUPS.find((g) => g.reads.includes("signals_latest"))!.id;
    const before = await raw.get(generationKey(organizationId, projectId, signals));
    await recordSignals(trackPublicWrites(through.kv, clock), detection as never, { projectId });
    assert.deepEqual(through.missing, []);
    assert.equal(through.touched, 1);
    const after = await raw.get(generationKey(organizationId, projectId, signals));
    assert.notEqual(after.versionstamp, before.versionstamp);
  } finally {
    raw.close();
  }
});

Deno.test("[store] no commit of a published tenant's life mutates public data without its touch", async () => {
  let audit: ReturnType<typeof auditCommits> | undefined;
  await using ctx = await createTestApp({
    wrapKv: (kv) => (audit = auditCommits(kv)).kv,
  });
  const { token, params } = await world(ctx);
  // And the changes a tenant makes afterwards: settings, answers, a scheduled deletion undone.
  const projectId = params.projectId;
  const orgId = params.organizationId;
  const calls: Array<[string, string, unknown]> = [
    ["PATCH", `/projects/${projectId}`, { name: "Acme Cloud Renamed" }],
    ["POST", `/organizations/${orgId}/answers`, {
      question: "Do you encrypt data at rest?",
      answer: "Yes, AES-256.",
      category: "Data protection",
      visibility: "public",
    }],
    ["POST", `/projects/${projectId}/deletion`, { confirm: params.projectSlug }],
    ["DELETE", `/projects/${projectId}/deletion`, undefined],
  ];
  for (const [method, path, json] of calls) {
    const res = await ctx.call(method, path, { token, json });
    assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${await res.clone().text()}`);
    await res.body?.cancel();
  }
  assert.deepEqual(audit!.missing, []);
  assert.ok(audit!.touched >= 10, `${audit!.touched} public commits, each with its touch`);
});

Deno.test("[store] the signals route answers a new detection at once, and after the render", async () => {
  await using ctx = await createTestApp();
  const ws = await workspace(ctx, "alice", { projectSlug: "acme", visibility: "public" });
  const { secret } = await collector(ctx, ws);
  await publishVersion(ctx, ws);
  await ctx.services.edge.render(ws.organization.id);
  const read = async () => {
    const res = await ctx.call("GET", "/trust/acme/signals", {
      headers: { accept: "application/json" },
    });
    assert.equal(res.status, 200);
    return (await res.json()).signals?.commitSha ?? null;
  };
  assert.equal(await read(), null);
  const sent = await ctx.call("POST", "/ingest/signals", {
    token: secret,
    json: {
      projectId: ws.project.id,
      detection: {
        detectedAt: ctx.clock.now().toISOString(),
        commitSha: "3f2a9c1d0e4b5a6978877665544332211aabbccd",
        ciCd: { detected: true, tools: ["GitHub Actions"] },
        monitoring: { detected: false },
        authProvider: { detected: false },
        cloudProvider: { detected: false },
        securityContact: { detected: true, email: "security@acme.example" },
      },
    },
  });
  assert.ok(sent.status < 300, await sent.text());
  assert.equal(await read(), "3f2a9c1d0e4b5a6978877665544332211aabbccd", "at once (live)");
  await ctx.services.edge.render(ws.organization.id);
  assert.equal(await read(), "3f2a9c1d0e4b5a6978877665544332211aabbccd", "after the render");
});
