/**
 * The organization export's JSON documents come from the few keys the first walk keeps per
 * document (`DOCUMENT_SPOOL_KEYS`) or, past that, from a walk of their own
 * (src/lifecycle/org_export.ts, docs/bounded-work.md "Organization export memory"): both ways
 * give the same archive, byte for byte, with and without the log; and the archive made by the
 * walks imports.
 */
import assert from "node:assert/strict";
import { unzipSync } from "fflate";
import { createKvBlobStore } from "../../src/blobs/kv.ts";
import { exportOrganization } from "../../src/lifecycle/org_export.ts";
import { importOrganization } from "../../src/lifecycle/org_import.ts";
import { bootstrapAcme, jsonApi, startTestServer } from "../support/server.ts";

async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

Deno.test("[lifecycle] export: documents kept from the walk or walked again give the same archive", async () => {
  const kv = await Deno.openKv(":memory:");
  const server = await startTestServer({ kv, worker: false });
  let running = true;
  const dir = await Deno.makeTempDir({ prefix: "org_export_walk_" });
  try {
    const owner = await server.tokenFor("owner");
    const api = jsonApi(server.baseUrl, owner);
    const projectId = await bootstrapAcme(api);
    const organizationId = (await api("GET", `/projects/${projectId}`)).json.project.organizationId;
    for (let i = 0; i < 3; i++) {
      const created = await api("POST", `/organizations/${organizationId}/answers`, {
        question: `Do you encrypt data at rest (${i})?`,
        answer: "Yes, with AES-256.",
        category: "security",
        visibility: "public",
      });
      assert.equal(created.status, 201, JSON.stringify(created.json));
    }
    assert.equal((await api("POST", `/projects/${projectId}/publish`)).status, 201);
    await server.close();
    running = false;

    const blobs = createKvBlobStore(kv);
    // fixed-instant: the archives' own timestamp, the same in each so they compare byte for byte
    const now = new Date(Date.parse("2026-01-01T00:00:00Z"));
    for (const log of [false, true]) {
      const run = (documentSpoolKeys?: number) =>
        bytesOf(exportOrganization({
          kv,
          blobs,
          organizationId,
          log,
          keys: false,
          now,
          documentSpoolKeys,
        }));
      const kept = await run();
      const walked = await run(0);
      const partly = await run(1);
      const files = unzipSync(kept);
      const lines = (name: string) =>
        new TextDecoder().decode(files[name]).split("\n").filter(Boolean).length;
      // Every document the walks write has something to compare.
      assert.ok(lines("organization.jsonl") >= 1, "the organization");
      assert.ok(lines("members.jsonl") >= 2, "a membership and its user");
      assert.ok(lines("projects.jsonl") >= 1);
      assert.ok(lines("answers.jsonl") >= 3);
      assert.ok(lines("publications.jsonl") >= 1);
      assert.deepEqual(walked, kept, `log ${log}: walked again`);
      assert.deepEqual(partly, kept, `log ${log}: one key kept per document`);

      if (!log) {
        // The archive written from the walks imports into an empty KV.
        const path = `${dir}/walked.zip`;
        await Deno.writeFile(path, walked);
        const target = await Deno.openKv(":memory:");
        try {
          const result = await importOrganization({
            path,
            kv: target,
            blobs: createKvBlobStore(target),
            scratchDir: dir,
          });
          assert.equal(result.kvEntries, result.manifest.kvEntries);
          assert.ok(result.blobs > 0);
          const organization = await target.get(["organizations", organizationId]);
          assert.ok(organization.value, "the organization is imported");
        } finally {
          target.close();
        }
      }
    }
  } finally {
    if (running) await server.close();
    kv.close();
    await Deno.remove(dir, { recursive: true });
  }
});
