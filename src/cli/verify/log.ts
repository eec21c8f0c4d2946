/**
 * The publication log as the service serves it: its latest checkpoint (and, with a pinned
 * checkpoint, the proof that the log only grew), and the project's entries, which must be
 * exactly the versions verified.
 *
 * @module
 */
import type { Options } from "./args.ts";
import { equal, fromBase64 } from "./bytes.ts";
import {
  type Checkpoint,
  leafHashOf,
  verifyCheckpoint,
  verifyConsistency,
  verifyInclusion,
} from "./log_proofs.ts";
import { FetchError, get, getJson, type Io, isCount } from "./net.ts";
import { checkPublisher } from "./publisher.ts";
import type { Report } from "./report.ts";
import type { LogContext, Verified } from "./versions.ts";

/**
 * The log's latest checkpoint, verified with the pinned log key (else the one /log names),
 * and with a pinned checkpoint the proof that the log only grew since. Null when the latest
 * checkpoint does not verify: nothing else can be checked.
 */
export async function readCheckpoint(
  io: Io,
  options: Options,
  report: Report,
): Promise<{ latest: Checkpoint; vkey: string } | null> {
  const { server, pins } = options;
  const vkey = pins.log ??
    (await getJson<{ verifierKey?: string }>(io, `${server}/log`)).verifierKey ?? "";
  const byKey = pins.log ? "the pinned log key" : "the log key the service publishes";
  let latest: Checkpoint;
  try {
    latest = await verifyCheckpoint(await (await get(io, `${server}/log/checkpoint`)).text(), vkey);
    report.pass(`log checkpoint: ${latest.origin}, ${latest.size} entries, signed by ${byKey}`);
  } catch (error) {
    if (error instanceof FetchError) throw error;
    report.fail(`log checkpoint: ${(error as Error).message} (checked with ${byKey})`);
    return null;
  }
  if (!options.checkpoint) return { latest, vkey };
  try {
    const pinned = await verifyCheckpoint(await io.readTextFile(options.checkpoint), vkey);
    if (pinned.origin !== latest.origin) throw new Error("the pinned checkpoint is of another log");
    if (pinned.size > latest.size) {
      throw new Error(`the log shrank from ${pinned.size} to ${latest.size} entries`);
    }
    const proof = await getJson<{ proof: string[] }>(
      io,
      `${server}/log/consistency?from=${pinned.size}&to=${latest.size}`,
    );
    const ok = pinned.size === 0 || await verifyConsistency(
      pinned.size,
      latest.size,
      proof.proof.map(fromBase64),
      pinned.root,
      latest.root,
    );
    if (!ok) throw new Error("the consistency proof does not verify: the log was rewritten");
    report.pass(
      `log only grew since the pinned checkpoint (${pinned.size} → ${latest.size} entries)`,
    );
  } catch (error) {
    if (error instanceof FetchError) throw error;
    report.fail(`pinned checkpoint: ${(error as Error).message}`);
  }
  return { latest, vkey };
}

/** A project's entry as the log lists it. */
export interface LoggedEntry {
  version: number;
  leafIndex: number;
  leafHash: string;
  entry: string;
}

/**
 * Every page of the project's entries in the log up to the checkpoint, in version and leaf
 * order; a string says why the list is unusable.
 */
async function readProjectEntries(
  io: Io,
  ctx: LogContext,
): Promise<{ logged: LoggedEntry[]; change: unknown } | string> {
  const logged: LoggedEntry[] = [];
  let change: unknown = null;
  const size = ctx.latest.size;
  for (let cursor: string | null = null; size > 0;) {
    const url: string = `${ctx.server}/log/publications/${ctx.slug}?treeSize=${size}${
      cursor ? `&cursor=${cursor}` : ""
    }`;
    const body = await getJson<
      { entries?: unknown; nextCursor?: unknown; publisherChange?: unknown }
    >(io, url);
    if (cursor === null) change = body.publisherChange ?? null;
    const items = Array.isArray(body.entries) ? body.entries as LoggedEntry[] : null;
    const malformed = (e: LoggedEntry) =>
      !isCount(e?.version) || !isCount(e.leafIndex) || typeof e.leafHash !== "string" ||
      typeof e.entry !== "string";
    if (!items || items.some(malformed)) return `${url} is not a list of log entries`;
    for (const item of items) {
      const last = logged.at(-1);
      if (
        item.leafIndex >= size ||
        (last && (item.version <= last.version || item.leafIndex <= last.leafIndex))
      ) {
        return `entry ${item.leafIndex} (version ${item.version}) is out of order or beyond the checkpoint`;
      }
      logged.push(item);
    }
    const next = body.nextCursor ?? null;
    if (next === null) break;
    if (items.length === 0 || next !== String(logged.at(-1)!.version)) {
      return `the page after version ${cursor ?? 0} gives the cursor "${next}"`;
    }
    cursor = next;
  }
  return { logged, change };
}

/**
 * The versions verified must be exactly the project's entries in the log up to the
 * checkpoint: the same count, leaf indexes and leaf hashes. An entry that is not listed is
 * a hidden version; its inclusion is checked so the message says whether the log holds it.
 */
export async function checkLogEntries(
  io: Io,
  ctx: LogContext,
  listed: ReadonlySet<number>,
  verified: ReadonlyMap<number, Verified>,
  report: Report,
): Promise<LoggedEntry[] | null> {
  const read = await readProjectEntries(io, ctx);
  if (typeof read === "string") {
    report.fail(`log: the project's entries: ${read}`);
    return null;
  }
  const { logged } = read;
  await checkPublisher(io, ctx, read, report);
  const before = report.failures;
  const inLog = new Set<number>();
  for (const item of logged) {
    inLog.add(item.version);
    const leaf = await leafHashOf(item.entry);
    const mine = verified.get(item.version);
    if (!equal(leaf, fromBase64(item.leafHash))) {
      report.fail(`log: entry ${item.leafIndex}'s text does not hash to its leaf hash`);
    } else if (!listed.has(item.version)) {
      const { latest } = ctx;
      const proof = await getJson<{ proof?: unknown }>(
        io,
        `${ctx.server}/log/entries/${item.leafIndex}/inclusion?treeSize=${latest.size}`,
      );
      const included = Array.isArray(proof.proof) && await verifyInclusion(
        item.leafIndex,
        latest.size,
        (proof.proof as string[]).map(fromBase64),
        leaf,
        latest.root,
      );
      report.fail(
        `log: version ${item.version} is in the log (entry ${item.leafIndex}, ${
          included ? "inclusion verified" : "its inclusion proof does not verify"
        }) but not listed`,
      );
    } else if (mine && (mine.leafIndex !== item.leafIndex || !equal(mine.leafHash, leaf))) {
      report.fail(
        `log: version ${item.version}'s entry in the project's list is not the one proven`,
      );
    }
  }
  for (const [n, mine] of verified) {
    if (!inLog.has(n)) {
      report.fail(`log: the project's entries omit version ${n} (entry ${mine.leafIndex})`);
    }
  }
  if (report.failures > before) return logged;
  if (logged.length === verified.size && verified.size === listed.size) {
    report.pass(
      `log: the project's ${logged.length} entries up to the checkpoint are exactly the ` +
        `${verified.size} versions verified`,
    );
  } else if (report.failures === 0) {
    report.fail(`log: ${logged.length} entries for ${verified.size} verified version(s)`);
  }
  return logged;
}
