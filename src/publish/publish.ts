/**
 * The publish flow (DESIGN.md §9): a job, a recompute at the publication
 * instant, trust.json (SPEC.md's PublishedTrustProfile) with HTML, Markdown,
 * feed and badges rendered from the same data, a signature, blobs written
 * first, then one atomic commit of the version, the latest pointer and the
 * job. Any failure leaves a failed job and no visible partial version;
 * concurrent publishes get consecutive versions.
 */
import type { SigningKey } from "../auth/keys.ts";
import type { BlobStore } from "../blobs/mod.ts";
import type { Config } from "../config.ts";
import type { ControlState } from "../domain/control.ts";
import { AppError } from "../domain/errors.ts";
import type {
  PublishedProfile,
  PublishedTrustControl,
  PublishedVersion,
  PublishJob,
} from "../domain/publish.ts";
import type { Artifact, Publication } from "../domain/publication.ts";
import type { Project } from "../domain/workspace.ts";
import type { Clock } from "../lib/clock.ts";
import { sha256HexSync } from "../lib/hash.ts";
import type { Logger } from "../lib/log.ts";
import { recomputeProject } from "../live/recompute.ts";
import {
  commitPublication,
  getLatestPublicationEntry,
  getPublication,
  listPublications,
  saveJob,
} from "../store/publications.ts";
import {
  badgeJson,
  buildTrustProfile,
  renderAtomFeed,
  renderBadgeSvg,
  renderTrustPageHtml,
  renderTrustPageMarkdown,
  serializeTrustJson,
  trustPageCsp,
  vendorCsp,
} from "./render/mod.ts";
import { withLease } from "../store/leases.ts";
import { getLatestSignals } from "../store/signals.ts";
import { publishedControls } from "./controls.ts";
import { getOrganization } from "../store/organizations.ts";
import { getVendor } from "../store/org_profiles.ts";
import { renderExports, verifyLinksOf } from "./exports.ts";
import { signTrustJson } from "./sign.ts";
import { publicUrls, trustCenterUrl } from "./urls.ts";
import { publicationEvents } from "./events.ts";

/**
 * Publishes of one project run one at a time under a lease; the pointer
 * check in the commit still guards against a lease that expired mid-way.
 * The lease is short and renewed while the publish runs, so one left by a
 * crashed instance frees itself within seconds.
 */
export const PUBLISH_LEASE = (projectId: string) => ({
  name: "publish",
  id: projectId,
  ttlMs: 5_000,
  waitMs: 120_000,
});
const MAX_ATTEMPTS = 3;
/** Entries kept in the Atom feed. */
const FEED_ENTRIES = 50;

export interface PublishDeps {
  kv: Deno.Kv;
  blobs: BlobStore;
  clock: Clock;
  log: Logger;
  config: Config;
  signingKey: SigningKey;
}

const encoder = new TextEncoder();

/** The controls whose state differs from `previous`, each with the reason of its new state. */
function changesBetween(
  previous: Record<string, ControlState> | null,
  controls: PublishedTrustControl[],
  reasons: ReadonlyMap<string, string>,
): PublishedVersion["changes"] {
  return controls
    .filter((c) => previous?.[c.key] !== c.state)
    .map((c) => ({
      key: c.key,
      name: c.name,
      from: previous?.[c.key] ?? null,
      to: c.state,
      reason: reasons.get(c.key) ?? null,
    }));
}

/** The operator-facing metadata of a publication (SPEC.md PublishedProfile). */
export function toPublishedProfile(publication: Publication): PublishedProfile {
  return {
    id: publication.id,
    projectId: publication.projectId,
    version: publication.version,
    artifactS3Key: publication.artifacts.trustJson.key,
    publishedAt: publication.publishedAt,
  };
}

interface RenderInput {
  project: Project;
  controls: PublishedTrustControl[];
  /** The evaluation reason of each control, by key. */
  reasons: ReadonlyMap<string, string>;
  version: number;
  publishedAt: string;
  previous: Publication | null;
}

/** The feed's versions: this one, the newest before it, and always the first. */
async function feedHistory(
  kv: Deno.Kv,
  projectId: string,
  entry: PublishedVersion,
): Promise<PublishedVersion[]> {
  const history = [entry, ...(await listPublications(kv, projectId, FEED_ENTRIES))];
  if (entry.version > 1 && history[history.length - 1].version !== 1) {
    const first = await getPublication(kv, projectId, 1);
    if (first) history.push(first);
  }
  return history;
}

/** The links a version's pages show (the unversioned addresses of the latest version). */
function pageLinks(urls: ReturnType<typeof publicUrls>, trustCenter: string | undefined) {
  return {
    trustJson: urls.trustJson,
    signature: urls.jws,
    feed: urls.feed,
    evaluationRules: urls.evaluationRules,
    versions: urls.versions,
    badge: urls.badgeSvg,
    trustCenter,
    verify: verifyLinksOf(urls),
  };
}

async function render(deps: PublishDeps, input: RenderInput) {
  const { project, controls, reasons, version, publishedAt, previous } = input;
  const urls = publicUrls(deps.config, project.slug);
  const [organization, vendor] = await Promise.all([
    getOrganization(deps.kv, project.organizationId),
    getVendor(deps.kv, project.organizationId, { baseUrl: deps.config.baseUrl }),
  ]);
  const profile = buildTrustProfile({
    project: { slug: project.slug, name: project.name, hostedSubdomain: project.hostedSubdomain },
    version,
    publishedAt,
    controls,
    vendor,
  });
  const trustJson = serializeTrustJson(profile);
  const digest = `sha256:${sha256HexSync(trustJson)}`;
  const previousDigest = previous?.digest ?? null;
  const jws = await signTrustJson(deps.signingKey, trustJson, { version, previousDigest });
  const entry: PublishedVersion = {
    version,
    publishedAt,
    digest,
    previousDigest,
    overallState: profile.summary.overallState,
    changes: changesBetween(previous?.states ?? null, profile.controls, reasons),
  };
  const history = await feedHistory(deps.kv, project.id, entry);
  const links = pageLinks(
    urls,
    organization ? trustCenterUrl(deps.config, organization.slug) : undefined,
  );
  // The page shows the signals known at publication, dated: it never changes afterwards.
  const signals = await getLatestSignals(deps.kv, project.id);
  const documents = {
    trustJson,
    jws: encoder.encode(jws),
    html: encoder.encode(renderTrustPageHtml(profile, { ...links, versions: urls.versionsHtml }, {
      changes: { previousVersion: previous?.version ?? null, items: entry.changes },
      signals,
    })),
    markdown: encoder.encode(renderTrustPageMarkdown(profile, {
      ...links,
      versions: urls.versionsMarkdown,
    }, { changes: { previousVersion: previous?.version ?? null, items: entry.changes }, signals })),
    feed: encoder.encode(renderAtomFeed({
      project: { slug: project.slug, name: project.name },
      feedUrl: urls.feed,
      pageUrl: urls.page,
      versions: history,
      versionUrl: urls.versionTrustJson,
      maxEntries: FEED_ENTRIES,
    })),
    badgeSvg: encoder.encode(renderBadgeSvg(profile.summary.overallState)),
    badgeJson: encoder.encode(JSON.stringify(badgeJson(profile.summary.overallState))),
    ...await renderExports(deps.signingKey, {
      profile,
      trustJsonDigest: digest,
      signals,
      config: deps.config,
    }),
  };
  return { profile, entry, documents };
}

/**
 * Publishes the next version of `project`. Returns the completed job and
 * the publication; throws an `internal` AppError (after marking the job
 * failed) when anything fails.
 */
export async function publishProject(
  deps: PublishDeps,
  project: Project,
): Promise<{ job: PublishJob; publication: Publication }> {
  const { kv, clock } = deps;
  let job: PublishJob = {
    id: crypto.randomUUID(),
    projectId: project.id,
    status: "requested",
    reason: null,
    requestedAt: clock.now().toISOString(),
    startedAt: null,
    completedAt: null,
  };
  await saveJob(kv, job);
  try {
    return await withLease(kv, PUBLISH_LEASE(project.id), async () => {
      job = { ...job, status: "running", startedAt: clock.now().toISOString() };
      await saveJob(kv, job);
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const done = await attemptPublication(deps, { project, job });
        if (done) return done;
      }
      throw new Error("The latest version kept changing while publishing");
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    deps.log.error("Publish failed", { projectId: project.id, jobId: job.id, reason });
    await saveJob(kv, {
      ...job,
      status: "failed",
      reason,
      completedAt: clock.now().toISOString(),
    }).catch(() => {});
    throw new AppError(
      "internal",
      `Publish job ${job.id} failed; nothing was published`,
      {},
      error,
    );
  }
}

/** Writes the rendered documents as content-addressed artifacts, all before any commit. */
async function storeArtifacts<N extends string>(
  blobs: BlobStore,
  documents: Record<N, Uint8Array>,
): Promise<Record<N, Artifact>> {
  const names = Object.keys(documents) as N[];
  const keys = await blobs.putMany("artifact", names.map((n) => documents[n]));
  return Object.fromEntries(names.map((n, i) => [n, {
    key: keys[i],
    digest: `sha256:${keys[i].slice(keys[i].indexOf("/") + 1)}`,
  }])) as Record<N, Artifact>;
}

/**
 * One try at the next version: recompute at this instant, render, store the artifacts and
 * commit against the latest-version pointer read here. Null when another version landed
 * first (the caller tries again with fresh data).
 */
async function attemptPublication(
  deps: PublishDeps,
  context: { project: Project; job: PublishJob },
): Promise<{ job: PublishJob; publication: Publication } | null> {
  const { kv, blobs, clock } = deps;
  const { project, job } = context;
  const at = clock.now();
  const { evaluations } = await recomputeProject(
    { kv, blobs, config: deps.config },
    project.id,
    at,
  );
  const controls = await publishedControls(kv, project.id, evaluations);
  const latest = await getLatestPublicationEntry(kv, project.id);
  const previous = latest.value ? await getPublication(kv, project.id, latest.value) : null;
  const { profile, entry, documents } = await render(deps, {
    project,
    controls,
    reasons: new Map(evaluations.map((e) => [e.control.key, e.reason])),
    version: (latest.value ?? 0) + 1,
    publishedAt: at.toISOString(),
    previous,
  });
  const publication: Publication = {
    ...entry,
    id: crypto.randomUUID(),
    projectId: project.id,
    summary: profile.summary,
    htmlCsp: trustPageCsp(vendorCsp(profile.vendor)),
    states: Object.fromEntries(profile.controls.map((c) => [c.key, c.state])),
    artifacts: await storeArtifacts(blobs, documents),
  };
  const completed: PublishJob = {
    ...job,
    status: "completed",
    completedAt: clock.now().toISOString(),
  };
  const committed = await commitPublication(kv, latest, publication, completed, {
    slug: project.slug,
    events: publicationEvents(deps.config, project, publication),
  });
  return committed ? { job: completed, publication } : null;
}
