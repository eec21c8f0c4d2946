/**
 * The access summaries are counters kept beside the reads they count (one commit writes both,
 * src/store/buyers.ts): while the reads are kept, the summary rows equal a fresh count of them,
 * also when reads of one row arrive at once.
 */
import assert from "node:assert/strict";
import {
  type AccessEvent,
  listAccessEvents,
  listSummaryRows,
  recordAccessEvent,
} from "../../src/store/buyers.ts";

const ORG = "org-1";
const KEEP_MS = 400 * 86_400_000;

Deno.test("[store] access summary rows equal a fresh count of the reads they summarize", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const base = Date.now() - 90 * 86_400_000;
    const events: AccessEvent[] = [];
    for (let i = 0; i < 60; i++) {
      events.push({
        id: `e${String(i).padStart(3, "0")}`,
        at: new Date(base + (i % 3) * 31 * 86_400_000 + i * 1000).toISOString(),
        kind: i % 4 === 0 ? "download" : "view",
        domain: i % 5 === 0 ? "" : ["buyer.example", "other.example"][i % 2],
        person: `p${i % 3}@buyer.example`,
        documentId: `d${i % 2}`,
        title: `Document ${i % 2}`,
        via: i % 5 === 0 ? "link" : "session",
      });
    }
    // Reads of the same rows at once: each commit checks the row it read.
    await Promise.all(events.map((event) => recordAccessEvent(kv, ORG, event, KEEP_MS)));

    const fresh = new Map<string, { views: number; downloads: number }>();
    for (const event of await listAccessEvents(kv, ORG, 1_000)) {
      const key = [event.at.slice(0, 7), event.domain, event.person, event.documentId].join("|");
      const counts = fresh.get(key) ?? { views: 0, downloads: 0 };
      if (event.kind === "view") counts.views++;
      else counts.downloads++;
      fresh.set(key, counts);
    }
    const rows = await listSummaryRows(kv, ORG, "0000-00", 1_000);
    const stored = new Map(rows.map((r) => [
      [r.month, r.domain, r.person, r.documentId].join("|"),
      { views: r.views, downloads: r.downloads },
    ]));
    assert.equal((await listAccessEvents(kv, ORG, 1_000)).length, events.length);
    assert.deepEqual(stored, fresh);
  } finally {
    kv.close();
  }
});
