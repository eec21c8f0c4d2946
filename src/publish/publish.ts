/**
 * The publish flow (DESIGN.md §9): a job, a recompute at the publication
 * instant, trust.json (SPEC.md's PublishedTrustProfile) with HTML, Markdown,
 * feed and badges rendered from the same data, a signature, blobs written
 * first, then one atomic commit of the version, the latest pointer and the
 * job. Any failure leaves a failed job and no visible partial version;
 * concurrent publishes get consecutive versions. What a version is made of is rendered in
 * version_documents.ts; the trust events it raises (events.ts) commit with it.
 */
import type { SigningKey } from "../auth/keys.ts";
import type { BlobStore } from "../blobs/mod.ts";
import type { Config } from "../config.ts";
import { AppError, conflict } from "../domain/errors.ts";
import type { PublishedProfile, PublishJob } from "../domain/publish.ts";
import { type Artifact, type Publication, sameStates } from "../domain/publication.ts";
import type { Project } from "../domain/workspace.ts";
import type { Clock } from "../lib/clock.ts";
import { type Coding, CODINGS, compress } from "../lib/content_coding.ts";
import type { Logger } from "../lib/log.ts";
import { recomputeProject } from "../live/recompute.ts";
import {
  commitPublication,
  getLatestPublicationEntry,
  getPublication,
  saveJob,
} from "../store/publications.ts";
import { trustPageCsp, vendorCsp } from "./render/mod.ts";
import { withLease } from "../store/leases.ts";
import { publishedControls } from "./controls.ts";
import { publicationEvents } from "./events.ts";
import { renderVersion } from "./version_documents.ts";
import { sha256Hex } from "../lib/hash.ts";
import { pendingDeletionOf } from "../store/deletions.ts";
import { declaredDigest, resolveCertifications } from "./certifications.ts";

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

export interface PublishDeps {
  kv: Deno.Kv;
  blobs: BlobStore;
  clock: Clock;
  log: Logger;
  config: Config;
  signingKey: SigningKey;
  /** The key that signs the log's checkpoints: its verifier key is pinned on the trust page. */
  logKey: SigningKey;
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

/**
 * Publishes the next version of `project`. Returns the completed job and
 * the publication; throws an `internal` AppError (after marking the job
 * failed) when anything fails.
 */
export async function publishProject(
  deps: PublishDeps,
  project: Project,
): Promise<{ job: PublishJob; publication: Publication }> {
  return (await publish(deps, project, { onlyIfChanged: false }))!;
}

/**
 * Publishes the next version of `project` only if some control's state, or what the vendor
 * declares (its certifications, an expiry included), differs from the latest version's
 * (decided under the publish lease, at the publication instant), so however many recomputes,
 * workers or instances ask, one change makes one version. Null when nothing changed or
 * nothing was published before (a first version is the operator's call).
 */
export function publishIfChanged(
  deps: PublishDeps,
  project: Project,
): Promise<{ job: PublishJob; publication: Publication } | null> {
  return publish(deps, project, { onlyIfChanged: true });
}

/**
 * The 409 a publish of a withdrawn project answers: its (or its organization's) deletion is
 * scheduled, so nothing new may appear under its name, in the log least of all.
 */
export function scheduledForDeletion(kind: "project" | "organization") {
  return conflict(
    kind === "project"
      ? "This project's deletion is scheduled: it cannot be published until the deletion is undone"
      : "This project's organization is scheduled for deletion: its projects cannot be published until the deletion is undone",
  );
}

/** The deletion that withdraws `project` now (its own or its organization's), or null. */
async function withdrawnBy(
  kv: Deno.Kv,
  project: Project,
): Promise<"project" | "organization" | null> {
  const deletion = await pendingDeletionOf(kv, {
    projectId: project.id,
    organizationId: project.organizationId,
  });
  return deletion ? deletion.kind : null;
}

async function publish(
  deps: PublishDeps,
  project: Project,
  options: { onlyIfChanged: boolean },
): Promise<{ job: PublishJob; publication: Publication } | null> {
  const { kv, clock } = deps;
  // A withdrawn project is not published: the operator is refused, automatic publishes skip it
  // (checked again under the lease, just before the version's commit).
  const withdrawn = await withdrawnBy(kv, project);
  if (withdrawn) {
    if (options.onlyIfChanged) return null;
    throw scheduledForDeletion(withdrawn);
  }
  let job: PublishJob = {
    id: crypto.randomUUID(),
    projectId: project.id,
    status: "requested",
    reason: null,
    requestedAt: clock.now().toISOString(),
    startedAt: null,
    completedAt: null,
  };
  // An automatic publish that finds nothing changed leaves no job behind.
  if (!options.onlyIfChanged) await saveJob(kv, job);
  try {
    return await withLease(kv, PUBLISH_LEASE(project.id), async () => {
      job = { ...job, status: "running", startedAt: clock.now().toISOString() };
      if (!options.onlyIfChanged) await saveJob(kv, job);
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const done = await attemptPublication(deps, { project, job, ...options });
        if (done === "unchanged") return null;
        if (done === "project" || done === "organization") {
          if (options.onlyIfChanged) return null;
          throw scheduledForDeletion(done);
        }
        if (done) return done;
      }
      throw new Error("The latest version kept changing while publishing");
    });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (error instanceof AppError && error.code === "conflict") {
      await saveJob(kv, {
        ...job,
        status: "failed",
        reason,
        completedAt: clock.now().toISOString(),
      })
        .catch(() => {});
      throw error;
    }
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

/**
 * Writes the rendered documents as content-addressed artifacts, all before any commit, each
 * with its gzip and brotli encodings (compressed once, at the highest settings) where they
 * are smaller than the document: readers that accept them get those bytes as stored. Those
 * named `bare` are stored without: their bytes are never served as stored. Unchanged bytes
 * cost nothing: a blob's key is its digest, so a version that renders a document as an
 * earlier one did refers to the same blob.
 */
async function storeArtifacts<N extends string>(
  blobs: BlobStore,
  documents: Record<N, Uint8Array>,
  options: { bare?: readonly string[] } = {},
): Promise<Record<N, Artifact>> {
  const names = Object.keys(documents) as N[];
  const encoded = await Promise.all(names.map(async (name) => {
    const bytes = documents[name];
    const found: [Coding, Uint8Array][] = [];
    if (options.bare?.includes(name)) return found;
    for (const coding of CODINGS) {
      const compressed = await compress(bytes, coding, "stored");
      if (compressed.byteLength < bytes.byteLength) found.push([coding, compressed]);
    }
    return found;
  }));
  const all = [...names.map((n) => documents[n]), ...encoded.flat().map(([, bytes]) => bytes)];
  const keys = await blobs.putMany("artifact", all);
  let next = names.length;
  return Object.fromEntries(names.map((n, i) => {
    const artifact: Artifact = {
      key: keys[i],
      digest: `sha256:${keys[i].slice(keys[i].indexOf("/") + 1)}`,
    };
    if (encoded[i].length > 0) {
      artifact.encodings = Object.fromEntries(encoded[i].map(([coding]) => [coding, keys[next++]]));
    }
    return [n, artifact];
  })) as Record<N, Artifact>;
}

/** The documents stored whole: all but the feed. */
function withoutFeed<D extends { feed: Uint8Array }>(documents: D): Omit<D, "feed"> {
  const { feed: _feed, ...rest } = documents;
  return rest;
}

/**
 * Stores an artifact in parts, each content-addressed (the feed: a version adds its head and
 * its own entry; the other entries are the blobs earlier versions stored). It is served with
 * the updates merged in and compressed per response, so no encoding is stored.
 */
async function storeParts(
  blobs: BlobStore,
  parts: readonly Uint8Array[],
  whole: Uint8Array,
): Promise<Artifact> {
  const keys = await blobs.putMany("artifact", parts);
  return { key: keys[0], digest: `sha256:${await sha256Hex(whole)}`, parts: keys };
}

/**
 * One try at the next version: recompute at this instant, render, store the artifacts and
 * commit against the latest-version pointer read here. Null when another version landed
 * first (the caller tries again with fresh data); "unchanged" when only a change was to be
 * published and no state changed; "project" or "organization" when that deletion was
 * scheduled meanwhile (nothing is committed).
 */
async function attemptPublication(
  deps: PublishDeps,
  context: { project: Project; job: PublishJob; onlyIfChanged: boolean },
): Promise<
  { job: PublishJob; publication: Publication } | "unchanged" | "project" | "organization" | null
> {
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
  const declared = (await resolveCertifications(kv, project.organizationId, {
    scope: { projectId: project.id },
    now: at,
  })).map((c) => c.declared);
  const digest = declaredDigest(declared);
  if (
    context.onlyIfChanged &&
    (!previous ||
      (sameStates(previous.states, controls) && previous.declaredDigest === digest))
  ) {
    return "unchanged";
  }
  const { profile, entry, documents, feedParts } = await renderVersion(deps, {
    project,
    controls,
    reasons: new Map(evaluations.map((e) => [e.control.key, e.reason])),
    version: (latest.value ?? 0) + 1,
    publishedAt: at.toISOString(),
    previous,
    declared,
  });
  const publication: Publication = {
    ...entry,
    ...(digest ? { declaredDigest: digest } : {}),
    id: crypto.randomUUID(),
    projectId: project.id,
    summary: profile.summary,
    htmlCsp: trustPageCsp(vendorCsp(profile.vendor)),
    states: Object.fromEntries(profile.controls.map((c) => [c.key, c.state])),
    artifacts: {
      ...await storeArtifacts(blobs, withoutFeed(documents)),
      feed: await storeParts(blobs, feedParts, documents.feed),
    },
  };
  // Scheduled while this version was made: it is not committed (the log would name the project).
  const withdrawn = await withdrawnBy(kv, project);
  if (withdrawn) return withdrawn;
  const completed: PublishJob = {
    ...job,
    status: "completed",
    completedAt: clock.now().toISOString(),
  };
  // The commit checks the deletion keys too: one scheduled since the read above stops it.
  const committed = await commitPublication(kv, latest, publication, completed, {
    slug: project.slug,
    organizationId: project.organizationId,
    events: publicationEvents(deps.config, project, publication),
    citations: controls.flatMap((c) => c.evidence?.digest ? [c.evidence.digest] : []),
  });
  if (committed === "project" || committed === "organization") return committed;
  return committed ? { job: completed, publication } : null;
}
