/**
 * Runs operations through the differential harness: each is performed, then the affected
 * organizations' stored pages are compared with live renders right after the commit and once
 * the jobs settled, the other organizations' stored pages must be untouched, and the indexes
 * must match a full scan. `KNOWN_STALE` lists the operations known to leave a difference,
 * each with its reason: the suite passes with them and fails when one of them stops failing
 * (the entry must go) or when any other operation leaves a difference.
 */
import assert from "node:assert/strict";
import { touchOrganization } from "../../src/store/edge_pages.ts";
import type { DifferentialWorld } from "../support/differential_world.ts";
import {
  afterCommit,
  afterSettle,
  counts,
  dataSnapshot,
  type Difference,
  edgeSnapshot,
  indexes,
  untouched,
  useClock,
} from "./_harness.ts";

/**
 * Operations whose writers do not yet keep the stored pages true, with why. Each must still
 * fail (a test says so when it stops); the commit path that replaces the hand touches empties
 * this list.
 */
export const KNOWN_STALE: Readonly<Record<string, string>> = {};

/** The differences an operation left, by phase. */
export interface Outcome {
  name: string;
  differences: Difference[];
}

async function orgIds(kv: Deno.Kv): Promise<string[]> {
  const ids: string[] = [];
  for await (const entry of kv.list({ prefix: ["organizations"] })) {
    ids.push(entry.key[1] as string);
  }
  return ids;
}

/**
 * Renders every organization again (a test-side touch of each, then the jobs): after an
 * operation left a difference, the next one starts from stored pages equal to live ones, so
 * each difference is reported once, by the operation that made it.
 */
export async function heal(w: DifferentialWorld): Promise<void> {
  const kv = w.server.services.kv;
  for (const id of await orgIds(kv)) {
    await touchOrganization(kv.atomic(), id, w.clock.now()).commit();
  }
  await w.settle();
}

/** Performs `act` and runs every check over the world. */
export async function checkOperation(
  w: DifferentialWorld,
  name: string,
  act: () => Promise<void>,
): Promise<Outcome> {
  useClock(w.clock.now);
  const started = performance.now();
  const lap = (what: string) => timings.push(`${what} ${Math.round(performance.now() - started)}`);
  const timings: string[] = [];
  const kv = w.server.services.kv;
  const others = new Set(w.others.map((o) => o.orgId));
  const before = await edgeSnapshot(kv, others);
  await act();
  counts.operations++;
  const affected = new Set((await orgIds(kv)).filter((id) => !others.has(id)));
  lap("act");
  const commit = await afterCommit(w.server, affected);
  lap("commit");
  const data = await dataSnapshot(kv);
  await w.settle();
  const same = data === await dataSnapshot(kv);
  lap("settle");
  const settled = await afterSettle(w.server, affected, same ? commit.live : null);
  lap("settled");
  const after = await edgeSnapshot(kv, others);
  const index = await indexes(
    w.server,
    affected,
    (orgId) => orgId === w.target.orgId ? w.tokens.owner : null,
  );
  lap("index");
  if (Deno.env.get("DIFFERENTIAL_TIMINGS")) console.log(name, timings.join(" "));
  const differences = [...commit.differences, ...settled, ...untouched(before, after), ...index];
  if (differences.length > 0) await heal(w);
  return { name, differences };
}

/** A readable list of an outcome's differences (at most `limit`). */
export function describe(outcome: Outcome, limit = 12): string {
  const lines = outcome.differences.slice(0, limit).map((d) =>
    `  ${outcome.name} [${d.phase}] ${d.url}: ${d.what}`
  );
  if (outcome.differences.length > limit) {
    lines.push(`  … and ${outcome.differences.length - limit} more`);
  }
  return lines.join("\n");
}

/** Asserts the outcomes against KNOWN_STALE: listed ones still differ, others do not. */
export function assertOutcomes(outcomes: Outcome[]): void {
  const unexpected = outcomes.filter((o) => o.differences.length > 0 && !(o.name in KNOWN_STALE));
  const fixed = outcomes.filter((o) => o.differences.length === 0 && o.name in KNOWN_STALE);
  for (const o of outcomes) {
    if (o.differences.length > 0 && o.name in KNOWN_STALE) {
      console.log(`known stale (KNOWN_STALE):\n${describe(o, 6)}`);
    }
  }
  assert.equal(
    unexpected.length,
    0,
    `operations leaving stored pages or indexes unlike a fresh computation:\n${
      unexpected.map((o) => describe(o)).join("\n")
    }`,
  );
  assert.equal(
    fixed.length,
    0,
    `in KNOWN_STALE but no longer differing, remove them from the list: ${
      fixed.map((o) => o.name).join(", ")
    }`,
  );
}

/** The suite's count, printed at the end of each file. */
export function report(what: string): void {
  console.log(
    `differential ${what}: ${counts.operations} operations, ${counts.urls} URL representations, ${counts.comparisons} comparisons (URL × coding, and index queries)`,
  );
}
