/**
 * Differential proof over every MCP tool and every job that changes state: decay with the
 * recompute and auto-publish it triggers, certification expiry, retention's pruning, the
 * deletion job of a project and of an organization, and the import of an organization's
 * export. Each runs on the differential world and is checked as an HTTP operation is
 * (tests/differential/_run.ts). Also: every mutating operation of /openapi.json has an entry.
 */
import assert from "node:assert/strict";
import { TRUST_TOOLS } from "../../src/mcp/tools.ts";
import { importOrganization, ImportRefusedError } from "../../src/lifecycle/org_import.ts";
import { DELETION_GRACE_MS } from "../../src/domain/deletion.ts";
import { startDifferentialWorld } from "../support/differential_world.ts";
import { startTestServer } from "../support/server.ts";
import { operationMethods } from "./_group.ts";
import { GROUPS, OPERATIONS } from "./_operations.ts";
import { assertOutcomes, checkOperation, heal, type Outcome, report } from "./_run.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Arguments of each tool over the world's target. */
function toolArguments(name: string, target: { orgSlug: string; projectSlug: string }) {
  const bySlug = { projectSlug: target.projectSlug };
  const byOrg = { orgSlug: target.orgSlug };
  const table: Record<string, Record<string, unknown>> = {
    get_trust_profile: bySlug,
    get_trust_controls: bySlug,
    get_trust_signals: bySlug,
    get_trust_json: bySlug,
    get_trust_history: bySlug,
    search_trust_profiles: { query: "globex" },
    get_subprocessors: byOrg,
    list_documents: byOrg,
    get_trust_updates: bySlug,
    list_organization_projects: byOrg,
    get_certifications: byOrg,
    get_trust_frameworks: bySlug,
    search_answers: { ...byOrg, q: "encrypt" },
    answer_questionnaire: { ...byOrg, questions: [{ text: "Do you encrypt data at rest?" }] },
  };
  const args = table[name];
  assert.ok(args, `MCP tool ${name} has no arguments in the differential table`);
  return args;
}

Deno.test("[differential] every mutating operation of /openapi.json has a request and a group", async () => {
  await using w = await startDifferentialWorld();
  const methods = await operationMethods(w.server.baseUrl);
  const grouped = Object.values(GROUPS).flat();
  const missing = [...methods.keys()].filter((id) => !(id in OPERATIONS));
  assert.deepEqual(missing, [], "operations without an entry in tests/differential/_operations.ts");
  assert.deepEqual([...methods.keys()].filter((id) => !grouped.includes(id)), []);
  assert.deepEqual(Object.keys(OPERATIONS).filter((id) => !methods.has(id)), []);
  assert.equal(new Set(grouped).size, grouped.length);
});

Deno.test("[differential] MCP tools and state-changing jobs leave stored pages as a fresh computation", async () => {
  await using w = await startDifferentialWorld();
  const t = w.target;
  await heal(w);
  const outcomes: Outcome[] = [];
  const run = async (name: string, act: () => Promise<void>) =>
    outcomes.push(await checkOperation(w, name, act));

  for (const tool of TRUST_TOOLS) {
    await run(`mcp:${tool.name}`, async () => {
      const res = await fetch(`${w.server.baseUrl}/mcp`, {
        method: "POST",
        headers: {
          accept: "application/json, text/event-stream",
          "content-type": "application/json",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: tool.name, arguments: toolArguments(tool.name, t) },
        }),
      });
      const body = await res.json();
      assert.equal(body.result?.isError, undefined, `${tool.name}: ${JSON.stringify(body)}`);
    });
  }

  // Decay: the dependency inventory (observed 2 h before) turns stale after a day; the due
  // recompute re-evaluates, and auto-publish publishes what changed.
  await run("job:recompute-decay-auto-publish", async () => {
    w.clock.advance(DAY);
    await w.renewTokens();
    await w.server.services.jobs.drain(30_000);
  });
  // The certification expiring two days after the start turns expired.
  await run("job:certification-expiry", async () => {
    w.clock.advance(DAY + HOUR);
    await w.renewTokens();
    await w.server.services.jobs.drain(30_000);
  });
  // Retention: keep one record per type; the daily pruning job removes the rest.
  await w.ok("PUT", `/projects/${t.projectId}/retention`, {
    token: w.tokens.owner,
    json: { days: null, recordsPerType: 1 },
  });
  await w.settle();
  await run("job:retention-prune", async () => {
    w.clock.advance(DAY + HOUR);
    await w.renewTokens();
    await w.server.services.jobs.drain(30_000);
  });
  // Deletion of the second project once its grace has passed.
  await w.ok("POST", `/projects/${t.secondId}/deletion`, {
    token: w.tokens.owner,
    json: { confirm: t.secondSlug },
  });
  await w.settle();
  await run("job:project-deletion", async () => {
    w.clock.advance(DELETION_GRACE_MS + HOUR);
    await w.renewTokens();
    await w.server.services.jobs.drain(30_000);
  });
  // The organization's export, then its deletion, then the import of the export.
  const archive = await Deno.makeTempFile({ suffix: ".tar" });
  try {
    const res = await fetch(`${w.server.baseUrl}/organizations/${t.orgId}/export`, {
      headers: { authorization: `Bearer ${w.tokens.owner}` },
    });
    assert.equal(res.status, 200, await res.clone().text());
    await Deno.writeFile(archive, res.body!);
    await w.ok("POST", `/organizations/${t.orgId}/deletion`, {
      token: w.tokens.owner,
      json: { confirm: t.orgSlug },
    });
    await w.settle();
    await run("job:organization-deletion", async () => {
      w.clock.advance(DELETION_GRACE_MS + HOUR);
      await w.renewTokens();
      await w.server.services.jobs.drain(30_000);
    });
    // An import goes into a new instance: checked there, as the operation of that instance.
    await using fresh = await startTestServer({ worker: false, clock: w.clock });
    const drain = async () => {
      for (let round = 0; round < 20; round++) {
        if ((await fresh.services.jobs.drain(30_000)) === 0) return;
      }
    };
    // The harness's index check reads the owner's lists with a token of the new instance (the
    // old instance's signing key is not there); the imported user is the same subject.
    const tokens = { ...w.tokens, owner: await fresh.tokenFor("olivia") };
    const there = { ...w, server: fresh, others: [], settle: drain, tokens };
    try {
      outcomes.push(
        await checkOperation(there, "job:import", async () => {
          await importOrganization({
            kv: fresh.services.kv,
            blobs: fresh.services.blobs,
            path: archive,
          });
        }),
      );
    } catch (error) {
      if (!(error instanceof ImportRefusedError)) throw error;
      outcomes.push({
        name: "job:import",
        differences: [{ phase: "settled", url: "(import)", what: `refused: ${error.message}` }],
      });
    }
  } finally {
    await Deno.remove(archive);
  }
  report("MCP tools and jobs");
  assertOutcomes(outcomes);
});
