/**
 * A year of evidence at size (issue 27): 50 records a day for 365 days (25 SBOMs of ~200 KiB and
 * 25 scans of ~50 KiB; a scan's findings flip every 7 days, so the project publishes about 52
 * versions automatically), on the fake clock of tests/lifecycle/_year.ts, once with the default
 * retention (90 days or 100 records a type) and once without. Prints both curves (KV and blob
 * bytes at days 30, 90, 180 and 365), the ratio of day 365 to day 180 for each, and whether the
 * verifier kit verifies every version (oldest and newest included) and every cited digest still
 * resolves. Sizes are deterministic; only the run time varies. BENCH_YEAR_DAYS shortens it.
 */
import { runKit } from "../support/verify_kit.ts";
import {
  runYear,
  unresolvedCitations,
  type YearOptions,
  type YearPoint,
} from "../lifecycle/_year.ts";

const DAYS = Number(Deno.env.get("BENCH_YEAR_DAYS") ?? 365);
const CHECKPOINTS = [30, 90, 180, 365].filter((d) => d <= DAYS);

const OPTIONS: YearOptions = {
  days: DAYS,
  recordsPerDay: 50,
  sbomBytes: 200 * 1024,
  scanBytes: 50 * 1024,
  changeEvery: 7,
  retention: { days: 90, recordsPerType: 100 },
  checkpoints: CHECKPOINTS,
};

const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

function curve(points: readonly YearPoint[]): string {
  const kv = points.map((p) => mib(p.kvBytes)).join("/");
  const blobs = points.map((p) => mib(p.blobBytes)).join("/");
  const first = points.find((p) => p.day === 180) ?? points[0];
  const last = points[points.length - 1];
  const total = (p: YearPoint) => p.kvBytes + p.blobBytes;
  return `KV ${kv} MiB, blobs ${blobs} MiB, ${last.records} records, day ${last.day}/${first.day} ` +
    `${(total(last) / total(first)).toFixed(2)}×`;
}

export async function benchYear(): Promise<{ line: string }> {
  const started = performance.now();
  const kept = await runYear(OPTIONS);
  let verified: string;
  const dir = await Deno.makeTempDir({ prefix: "bench_year_" });
  try {
    const last = kept.points[kept.points.length - 1];
    const run = await runKit(kept.server, dir, [kept.slug]);
    const checked = [1, last.versions].every((n) =>
      run.stdout.includes(`version ${n}: signature, chain and log inclusion`)
    );
    const unresolved = await unresolvedCitations(kept);
    verified = run.code === 0 && checked && /VERIFIED/.test(run.stdout)
      ? `kit VERIFIED all ${last.versions} versions`
      : `kit FAILED (exit ${run.code})`;
    verified += `, ${unresolved.length} unresolved cited digests, ${kept.deadJobs} dead jobs`;
  } finally {
    await kept.server.close();
    await Deno.remove(dir, { recursive: true });
  }
  const grown = await runYear({ ...OPTIONS, retention: null });
  await grown.server.close();
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  return {
    line: `year (50 records/day, days ${CHECKPOINTS.join("/")}): with retention ${
      curve(kept.points)
    }; without ${curve(grown.points)}; ${verified} (${seconds} s)`,
  };
}

if (import.meta.main) console.log((await benchYear()).line);
