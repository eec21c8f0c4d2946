/**
 * A trust profile's whole check, in order: (for a custom domain, the project that verified it)
 * keys, checkpoint, listing, versions, latest, log entries and publisher (and the domain's
 * change of holder); then the keys to pin.
 *
 * @module
 */
import { type Options, SLUG } from "./args.ts";
import { readKeys } from "./jws.ts";
import { checkLogEntries, readCheckpoint } from "./log.ts";
import { getJson, type Io } from "./net.ts";
import { checkDomainHolder } from "./publisher.ts";
import { Report } from "./report.ts";
import { checkLatest, checkVersions, type LogContext, readListing } from "./versions.ts";

/** After a clean run: the pins used, or the keys trusted on first use and how to pin them. */
function reportPins(
  options: Options,
  trusted: { signers: string[]; vkey: string },
  report: Report,
) {
  const { pins, server, slug } = options;
  const publisher = (pins.publisher === undefined ? "" : ` --pin publisher=${pins.publisher}`) +
    (pins.domain === undefined ? "" : ` --pin domain=${pins.domain}`);
  if (pins.jwks || pins.log) {
    report.pass(
      `pinned: ${pins.jwks ? `key(s) ${pins.jwks.join(", ")}` : "no JWKS key"}; ${
        pins.log ? `log key ${pins.log}` : "the log key the service publishes"
      }${
        pins.publisher !== undefined ? `; the change of publisher at entry ${pins.publisher}` : ""
      }${
        pins.domain !== undefined ? `; the domain's change of holder at entry ${pins.domain}` : ""
      }`,
    );
    return;
  }
  const kit = options.kit ?? `${server}/verify.ts`;
  report.note(`trusted on first use: the publication key(s) ${trusted.signers.join(", ")}`);
  report.out(`      and the log key ${trusted.vkey}`);
  report.out(`      Pin them, to verify from now on without trusting this server's keys:`);
  report.out(
    `      deno run --allow-net ${kit} ${
      options.domain === undefined
        ? `${server}/trust/${slug}`
        : `https://${options.domain}/ --server ${server}`
    } ` +
      `--pin jwks=${trusted.signers.join(",")} --pin log=${trusted.vkey}${publisher}`,
  );
  if (/^https?:/.test(kit)) {
    report.out(
      `      (from a copy of this kit you keep, so the server cannot change the kit either)`,
    );
  }
}

/**
 * Runs every check and prints one line each; returns the number of failures. Throws a
 * FetchError when a document the checks need cannot be read at all.
 */
export async function verify(options: Options, io: Io): Promise<number> {
  const { server } = options;
  const report = new Report(io.out);
  // A custom domain: the project that verified it, and the domain's change of holder, as the
  // service shows them; the project's profile is then verified as any other.
  let domain: { name: string; change: unknown; projectId: unknown } | null = null;
  let slug = options.slug;
  if (options.domain !== undefined) {
    const url = `${server}/trust/domains/${options.domain}`;
    const body = await getJson<
      { profile?: { project?: { slug?: unknown; id?: unknown } }; publisherChange?: unknown }
    >(io, url);
    const project = body.profile?.project;
    if (typeof project?.slug !== "string" || !SLUG.test(project.slug)) {
      report.fail(`domain: ${url} names no project`);
      return report.failures;
    }
    slug = project.slug;
    domain = {
      name: options.domain,
      change: body.publisherChange ?? null,
      projectId: project.id,
    };
    report.pass(`domain: the service serves "${options.domain}" from the project "${slug}"`);
  }
  const ring = await readKeys(io, server, options.pins, report);
  const log = await readCheckpoint(io, options, report);
  if (!log) return report.failures;
  const page = `${server}/trust/${slug}`;
  const ordered = await readListing(io, page, log.latest.size, report);
  if (!ordered) return report.failures;
  const ctx: LogContext = {
    server,
    slug,
    page,
    latest: log.latest,
    ring,
    publisher: options.pins.publisher,
    domainPin: options.pins.domain,
  };
  const { verified, signers } = await checkVersions(io, ctx, ordered, report);
  await checkLatest(io, page, ordered.at(-1)!, report);
  const listed = new Set(ordered.map((l) => l.version));
  const logged = await checkLogEntries(io, ctx, listed, verified, report);
  if (domain) {
    await checkDomainHolder(
      io,
      ctx,
      { logged: logged ?? [], ...domain, domain: domain.name },
      report,
    );
  }
  if (report.failures === 0) {
    reportPins({ ...options, slug }, { signers, vkey: log.vkey }, report);
  }
  if (options.saveCheckpoint && report.failures === 0) {
    await io.writeTextFile(options.saveCheckpoint, log.latest.note);
    io.out(`saved the checkpoint (${log.latest.size} entries) to ${options.saveCheckpoint}`);
  }
  return report.failures;
}
