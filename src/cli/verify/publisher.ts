/**
 * The change of publisher under a slug: the log entry recording that a deleted project's
 * slug was taken by another project, verified, and failed unless the buyer pinned it.
 *
 * @module
 */
import { SLUG } from "./args.ts";
import { equal, fromBase64 } from "./bytes.ts";
import type { LoggedEntry } from "./log.ts";
import { leafHashOf, verifyInclusion } from "./log_proofs.ts";
import { getJson, type Io, isCount } from "./net.ts";
import type { Report } from "./report.ts";
import type { LogContext } from "./versions.ts";

/** The first line of the log entry that records a change of publisher under a slug. */
const PUBLISHER_CHANGE = "trust-profile-publisher-change/v1";

/**
 * The change of publisher the log recorded under the slug, if any: a deleted project's slug
 * that the service's operator released and another project took. The entry must hash to its
 * leaf, be included in the checkpoint, name this slug, and come before every version listed.
 * A verified change fails the run ("a different publisher since entry N") unless it is the one
 * pinned with `--pin publisher=N`; a pinned change the log no longer shows fails too.
 */
export async function checkPublisher(
  io: Io,
  ctx: LogContext,
  read: { logged: LoggedEntry[]; change: unknown },
  report: Report,
) {
  const change = read.change as { leafIndex?: unknown; leafHash?: unknown; entry?: unknown };
  if (change === null || typeof change !== "object") {
    if (change !== null) return report.fail(`publisher: the change of publisher is malformed`);
    if (ctx.publisher !== undefined) {
      return report.fail(
        `publisher: the pinned change of publisher (entry ${ctx.publisher}) is not what the log shows for "${ctx.slug}"`,
      );
    }
    return report.pass(`publisher: the log records no change of publisher under "${ctx.slug}"`);
  }
  const { leafIndex: at, leafHash, entry } = change;
  if (!isCount(at) || typeof leafHash !== "string" || typeof entry !== "string") {
    return report.fail(`publisher: the change of publisher is malformed`);
  }
  const lines = entry.split("\n");
  const [header, slug, previous, projectId, orgSlug, orgId, takenAt] = lines;
  const leaf = await leafHashOf(entry);
  const { latest } = ctx;
  const ID = /^[0-9a-f-]{36}$/;
  let problem = !equal(leaf, fromBase64(leafHash))
    ? "its text does not hash to its leaf hash"
    : lines.length !== 8 || header !== PUBLISHER_CHANGE || lines[7] !== "" ||
        !ID.test(projectId) || !SLUG.test(orgSlug) || !ID.test(orgId) ||
        !/^\d{4}-\d\d-\d\dT[\d:.]+Z$/.test(takenAt)
    ? "it is not a change-of-publisher entry"
    : slug !== ctx.slug
    ? `it names the slug "${slug}"`
    : !(previous === "unknown" || (/^[0-9]{1,15}$/.test(previous) && Number(previous) <= at))
    ? "its previous holder's log size is not before it"
    : read.logged.some((e) => e.leafIndex <= at)
    ? "a version of this publisher is logged before it"
    : at >= latest.size
    ? "it is beyond the checkpoint"
    : null;
  if (!problem) {
    const proof = await getJson<{ proof?: unknown }>(
      io,
      `${ctx.server}/log/entries/${at}/inclusion?treeSize=${latest.size}`,
    );
    const included = Array.isArray(proof.proof) && await verifyInclusion(
      at,
      latest.size,
      (proof.proof as string[]).map(fromBase64),
      leaf,
      latest.root,
    );
    if (!included) problem = "its inclusion proof does not verify";
  }
  if (problem) return report.fail(`publisher: the change of publisher (entry ${at}): ${problem}`);
  const who = `organization "${orgSlug}" (${orgId}), project ${projectId}, since ${takenAt}`;
  const before = previous === "unknown"
    ? ""
    : ` Entries below ${previous} were the previous holder's.`;
  if (ctx.publisher === at) {
    return report.pass(
      `publisher: a different publisher since entry ${at} (${who}), accepted with --pin publisher=${at}`,
    );
  }
  report.fail(
    `publisher: a different publisher since entry ${at}: ${who}.${before} ` +
      `The slug "${ctx.slug}" belonged to a deleted project and was given to another; ` +
      (ctx.publisher === undefined
        ? `if you know and accept this publisher, verify with --pin publisher=${at}`
        : `you pinned the change at entry ${ctx.publisher}`),
  );
}
