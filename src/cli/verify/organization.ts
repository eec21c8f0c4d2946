/**
 * A trust center's check: the log's checkpoint, the organization slug's change of holder the
 * service shows (verified against the log, failed unless pinned), and the projects the trust
 * center lists, each with the command that verifies its profile (signatures, chain and log
 * entries are per project: this kit verifies one project a run).
 *
 * @module
 */
import { type Options, SLUG } from "./args.ts";
import { readCheckpoint } from "./log.ts";
import { getJson, type Io } from "./net.ts";
import { checkOrganizationHolder } from "./publisher.ts";
import { Report } from "./report.ts";

/** The trust center's JSON as far as this check reads it. */
interface Center {
  organization?: { slug?: unknown };
  projects?: unknown;
  publisherChange?: unknown;
}

/**
 * Runs the trust center's checks and prints one line each; returns the number of failures.
 * Throws a FetchError when the trust center or the log cannot be read at all.
 */
export async function verifyOrganization(options: Options, io: Io): Promise<number> {
  const { server, pins } = options;
  const organization = options.organization!;
  const report = new Report(io.out);
  const url = `${server}/public/trust/${organization}`;
  const center = await getJson<Center>(io, url);
  const projects = Array.isArray(center.projects) ? center.projects : null;
  if (center.organization?.slug !== organization || projects === null) {
    report.fail(`organization: ${url} is not the trust center of "${organization}"`);
    return report.failures;
  }
  const log = await readCheckpoint(io, options, report);
  if (!log) return report.failures;
  await checkOrganizationHolder(
    io,
    { server, latest: log.latest },
    { change: center.publisherChange ?? null, organization },
    report,
    pins.organization,
  );
  const slugs = projects.map((p) => (p as { slug?: unknown })?.slug);
  if (!slugs.every((slug): slug is string => typeof slug === "string" && SLUG.test(slug))) {
    report.fail(`organization: ${url} lists a project without a valid slug`);
    return report.failures;
  }
  if (report.failures > 0) return report.failures;
  const kit = options.kit ?? `${server}/verify.ts`;
  report.note(
    `the trust center lists ${slugs.length} project(s); verify each one's profile with:`,
  );
  for (const slug of slugs) report.out(`      deno run --allow-net ${kit} ${server}/trust/${slug}`);
  const pinned = pins.log ? "" : ` --pin log=${log.vkey}`;
  const change = pins.organization === undefined ? "" : ` --pin organization=${pins.organization}`;
  if (pinned !== "") {
    report.note(`trusted on first use: the log key ${log.vkey}; pin it to check this again:`);
    report.out(`      deno run --allow-net ${kit} ${url}${pinned}${change}`);
  }
  if (options.saveCheckpoint) {
    await io.writeTextFile(options.saveCheckpoint, log.latest.note);
    io.out(`saved the checkpoint (${log.latest.size} entries) to ${options.saveCheckpoint}`);
  }
  return report.failures;
}
