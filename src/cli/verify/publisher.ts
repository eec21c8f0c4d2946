/**
 * The change of publisher under a slug: the log entry recording that a deleted project's
 * slug was taken by another project, verified, and failed unless the buyer pinned it. The same
 * for a custom domain the buyer reads the profile at (a deleted project's verified domain,
 * verified by another project after the operator released it).
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
/** The first line of the one that records a custom domain's change of holder. */
const DOMAIN_CHANGE = "trust-profile-domain-publisher-change/v1";
/** The first line of the one that records an organization slug's change of holder. */
const ORGANIZATION_CHANGE = "trust-profile-organization-publisher-change/v1";

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
  await checkChange(io, ctx, read, report, {
    header: PUBLISHER_CHANGE,
    name: ctx.slug,
    pinned: ctx.publisher,
    flag: "publisher",
    what: "",
    given: `The slug "${ctx.slug}" belonged to a deleted project and was given to another`,
  });
}

/**
 * The same for the custom domain the buyer reads the profile at: the service shows, beside the
 * domain's profile (`/trust/domains/{domain}`), the entry that recorded this project verifying
 * a domain a deleted project had left, released by the operator. Failed unless pinned with
 * `--pin domain=N`; a pinned change the service no longer shows fails too.
 */
export async function checkDomainHolder(
  io: Io,
  ctx: LogContext,
  read: { logged: LoggedEntry[]; change: unknown; domain: string; projectId: unknown },
  report: Report,
) {
  await checkChange(io, ctx, read, report, {
    header: DOMAIN_CHANGE,
    name: read.domain,
    pinned: ctx.domainPin,
    flag: "domain",
    what: ` of the custom domain "${read.domain}"`,
    given:
      `The custom domain "${read.domain}" belonged to a deleted project and was given to another`,
    projectId: typeof read.projectId === "string" ? read.projectId : undefined,
  });
}

/**
 * The same for a trust center's organization slug: the service shows, in the trust center's
 * JSON (`/public/trust/{orgSlug}`), the entry that recorded this organization taking a slug a
 * deleted organization had left, released by the operator. Failed unless pinned with
 * `--pin organization=N`; a pinned change the service no longer shows fails too.
 */
export async function checkOrganizationHolder(
  io: Io,
  ctx: Pick<LogContext, "server" | "latest">,
  read: { change: unknown; organization: string },
  report: Report,
  pinned: number | undefined,
) {
  await checkChange(io, ctx, { logged: [], change: read.change }, report, {
    header: ORGANIZATION_CHANGE,
    name: read.organization,
    pinned,
    flag: "organization",
    what: ` of the organization slug "${read.organization}"`,
    given:
      `The organization slug "${read.organization}" belonged to a deleted organization and was given to another`,
  });
}

/** What `checkChange` checks the entry against, and how it words the result. */
interface Subject {
  header: string;
  /** The name the entry must record: the slug, the custom domain or the organization slug. */
  name: string;
  pinned: number | undefined;
  flag: "publisher" | "domain" | "organization";
  /** Inserted after "a different publisher" (which name changed), or "". */
  what: string;
  /** The sentence saying what happened. */
  given: string;
  /** The project the entry must name (a domain's: the project that serves it), if known. */
  projectId?: string;
}

async function checkChange(
  io: Io,
  ctx: Pick<LogContext, "server" | "latest">,
  read: { logged: LoggedEntry[]; change: unknown },
  report: Report,
  subject: Subject,
) {
  const { flag, pinned, name, what } = subject;
  const label = flag;
  const change = read.change as { leafIndex?: unknown; leafHash?: unknown; entry?: unknown };
  if (change === null || typeof change !== "object") {
    if (change !== null) return report.fail(`${label}: the change of publisher is malformed`);
    if (pinned !== undefined) {
      return report.fail(
        `${label}: the pinned change of publisher (entry ${pinned}) is not what the log shows for "${name}"`,
      );
    }
    return report.pass(
      flag === "publisher"
        ? `publisher: the log records no change of publisher under "${name}"`
        : flag === "domain"
        ? `domain: the service shows no change of holder of the custom domain "${name}"`
        : `organization: the service shows no change of holder of the organization slug "${name}"`,
    );
  }
  const { leafIndex: at, leafHash, entry } = change;
  if (!isCount(at) || typeof leafHash !== "string" || typeof entry !== "string") {
    return report.fail(`${label}: the change of publisher is malformed`);
  }
  const lines = entry.split("\n");
  const [header, entryName, previous, projectId, orgSlug, orgId, takenAt] = lines;
  const leaf = await leafHashOf(entry);
  const { latest } = ctx;
  const ID = /^[0-9a-f-]{36}$/;
  let problem = !equal(leaf, fromBase64(leafHash))
    ? "its text does not hash to its leaf hash"
    : lines.length !== 8 || header !== subject.header || lines[7] !== "" ||
        !(flag === "organization" ? projectId === "-" : ID.test(projectId)) ||
        !SLUG.test(orgSlug) || !ID.test(orgId) ||
        !/^\d{4}-\d\d-\d\dT[\d:.]+Z$/.test(takenAt)
    ? "it is not a change-of-publisher entry"
    : entryName !== name
    ? `it names ${
      flag === "publisher" ? "the slug" : flag === "domain" ? "the domain" : "the organization slug"
    } "${entryName}"`
    : subject.projectId !== undefined && projectId !== subject.projectId
    ? `it names another project (${projectId})`
    : !(previous === "unknown" || (/^[0-9]{1,15}$/.test(previous) && Number(previous) <= at))
    ? "its previous holder's log size is not before it"
    : flag === "publisher" && read.logged.some((e) => e.leafIndex <= at)
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
  if (problem) {
    return report.fail(`${label}: the change of publisher${what} (entry ${at}): ${problem}`);
  }
  const who = `organization "${orgSlug}" (${orgId})${
    flag === "organization" ? "" : `, project ${projectId}`
  }, since ${takenAt}`;
  const before = previous === "unknown"
    ? ""
    : ` Entries below ${previous} were the previous holder's.`;
  if (pinned === at) {
    return report.pass(
      `${label}: a different publisher${what} since entry ${at} (${who}), accepted with --pin ${flag}=${at}`,
    );
  }
  report.fail(
    `${label}: a different publisher${what} since entry ${at}: ${who}.${before} ` +
      `${subject.given}; ` +
      (pinned === undefined
        ? `if you know and accept this publisher, verify with --pin ${flag}=${at}`
        : `you pinned the change at entry ${pinned}`),
  );
}
