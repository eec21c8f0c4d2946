/**
 * A year of evidence in fast motion (scaled down: 60 days of 10 small records, retention 10 days
 * or 5 records a type), with and without retention. Sizes are deterministic, so flatness is
 * asserted on them, not on time. tests/bench/year.ts runs the same at size and prints the curves.
 */
import assert from "node:assert/strict";
import { runKit } from "../support/verify_kit.ts";
import { runYear, unresolvedCitations, type YearOptions, type YearPoint } from "./_year.ts";

const SCALED: YearOptions = {
  days: 60,
  recordsPerDay: 10,
  sbomBytes: 3000,
  scanBytes: 1000,
  // Enough versions (20) that a collector step marks more artifacts than one atomic could hold.
  changeEvery: 3,
  retention: { days: 10, recordsPerType: 5 },
  checkpoints: [20, 30, 45, 60],
};

Deno.test("[lifecycle] a year of evidence: flat with retention, every version still verifies", async (t) => {
  const year = await runYear(SCALED);
  const dir = await Deno.makeTempDir({ prefix: "year_kit_" });
  try {
    const at = (day: number) => year.points.find((p) => p.day === day)!;
    await t.step("the evidence's KV and blob bytes stay flat after the window", () => {
      // Flat but for the records each new version cites (two a version), which are kept.
      const base = at(30);
      const perRecord = base.evidenceKvBytes / base.records;
      for (const day of [45, 60]) {
        const p = at(day);
        const cited = 2 * (p.versions - base.versions);
        const points = JSON.stringify(year.points);
        assert.ok(p.evidenceKvBytes <= base.evidenceKvBytes * 1.1 + cited * perRecord, points);
        assert.ok(
          p.evidenceBlobBytes <= base.evidenceBlobBytes * 1.1 + cited * SCALED.sbomBytes,
          points,
        );
      }
    });
    await t.step("the rest grows with the published versions only (kept forever)", () => {
      const rest = (p: YearPoint) =>
        p.kvBytes + p.blobBytes - p.evidenceKvBytes - p.evidenceBlobBytes;
      const [d30, d60] = [at(30), at(60)];
      const perVersion = (rest(d30) - rest(at(20))) / (d30.versions - at(20).versions);
      const grown = rest(d60) - rest(d30);
      assert.ok(
        grown <= (d60.versions - d30.versions) * perVersion * 1.5,
        JSON.stringify(year.points),
      );
    });
    await t.step("no pruning or collector job failed for good", () => {
      assert.equal(year.deadJobs, 0);
    });
    await t.step("records stay bounded: the window, the newest per type, the cited", () => {
      const last = at(60);
      assert.ok(last.versions >= 18, `${last.versions} versions`);
      // 10 days of 10 records, and at most the two records each version cites.
      assert.ok(last.records <= 10 * 10 + 2 * last.versions, JSON.stringify(last));
      assert.ok(last.records < 60 * 10 / 3, JSON.stringify(last));
    });
    await t.step("every version's evidence digest still resolves to a stored payload", async () => {
      assert.deepEqual(await unresolvedCitations(year), []);
    });
    await t.step("the verifier kit verifies every version, offline", async () => {
      const run = await runKit(year.server, dir, [year.slug]);
      assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
      const versions = at(60).versions;
      for (const n of [1, versions]) {
        assert.match(
          run.stdout,
          new RegExp(`ok {4}version ${n}: signature, chain and log inclusion`),
        );
      }
      assert.match(run.stdout, /VERIFIED: "yearco"/);
    });
  } finally {
    await year.server.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("[lifecycle] a year of evidence without retention grows linearly", async () => {
  const year = await runYear({ ...SCALED, retention: null, checkpoints: [30, 60] });
  try {
    const [d30, d60] = year.points;
    assert.equal(d60.records, 600);
    assert.ok(d60.evidenceKvBytes >= d30.evidenceKvBytes * 1.9, JSON.stringify(year.points));
    assert.ok(d60.evidenceBlobBytes >= d30.evidenceBlobBytes * 1.9, JSON.stringify(year.points));
  } finally {
    await year.server.close();
  }
});
