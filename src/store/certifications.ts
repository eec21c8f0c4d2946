/**
 * An organization's certifications. Every write commits the record with its "certification"
 * jobs (an outbox): one due at once, which lets projects that publish automatically publish
 * the change, and, for an achieved claim with a future expiry, one due at that expiry, which
 * records it as expired and does the same. A job for a claim that changed since does nothing
 * harmful: its handler reads the claim as it is when it runs. The count check rides on the
 * same commit through a per-organization marker, so concurrent adds cannot pass the cap.
 */
import {
  compareCertifications,
  frameworkOf,
  MAX_CERTIFICATIONS,
  statusAt,
  type StoredCertification,
} from "../domain/certifications.ts";
import { conflict, notFound, validationFailed } from "../domain/errors.ts";
import type { JobMessage } from "../domain/jobs.ts";
import { stageJob } from "./jobs.ts";
import {
  certificationKey,
  certificationsPrefix,
  certificationWritesKey,
  documentKey,
} from "./keys.ts";

const MAX_ATTEMPTS = 10;

/**
 * The job that follows a change to a certification, or its expiry: `scopes` are the projects
 * it concerned before and after the change (null: the whole organization).
 */
export interface CertificationMessage extends JobMessage {
  kind: "certification";
  organizationId: string;
  certificationId: string;
  scopes: (string | null)[];
}

const nameOf = (c: StoredCertification) =>
  c.framework === "other" ? c.otherName ?? "Other" : frameworkOf(c.framework).name;

/** The organization's certifications, in the order every surface lists them. */
export async function listCertifications(
  kv: Deno.Kv,
  organizationId: string,
): Promise<StoredCertification[]> {
  const list: StoredCertification[] = [];
  const iter = kv.list<StoredCertification>({ prefix: certificationsPrefix(organizationId) });
  for await (const entry of iter) list.push(entry.value);
  return list.sort((a, b) =>
    compareCertifications(
      { ...a, frameworkName: nameOf(a) },
      { ...b, frameworkName: nameOf(b) },
    )
  );
}

/** One certification, or null. */
export async function getCertification(
  kv: Deno.Kv,
  organizationId: string,
  id: string,
): Promise<StoredCertification | null> {
  return (await kv.get<StoredCertification>(certificationKey(organizationId, id))).value;
}

async function countOf(kv: Deno.Kv, organizationId: string): Promise<number> {
  let count = 0;
  const iter = kv.list({ prefix: certificationsPrefix(organizationId) }, {
    limit: MAX_CERTIFICATIONS,
  });
  for await (const _ of iter) count++;
  return count;
}

/** Adds to `op` the jobs a write of `certification` (null: removed) calls for. */
function stageFollowUps(
  op: Deno.AtomicOperation,
  organizationId: string,
  options: {
    id: string;
    certification: StoredCertification | null;
    scopes: (string | null)[];
    now: Date;
  },
): void {
  const message: CertificationMessage = {
    kind: "certification",
    organizationId,
    certificationId: options.id,
    scopes: [...new Set(options.scopes)],
  };
  stageJob(op, message, { now: options.now });
  const expiry = options.certification?.expiresAt;
  if (
    options.certification && expiry &&
    statusAt(options.certification, options.now) === "achieved" &&
    Date.parse(expiry) > options.now.getTime()
  ) {
    stageJob(op, message, { now: options.now, dueAt: Date.parse(expiry) });
  }
}

/**
 * The linked document's entry, for the commit to check: a document removed between the
 * caller's check and the commit then fails it (removing a linked document is refused), so a
 * stored claim never links a document that is gone. Null when none is linked.
 */
async function linkedDocument(
  kv: Deno.Kv,
  organizationId: string,
  certification: StoredCertification,
): Promise<Deno.KvEntryMaybe<unknown> | null> {
  if (certification.documentId === null) return null;
  const entry = await kv.get(documentKey(organizationId, certification.documentId));
  if (entry.versionstamp === null) {
    throw validationFailed("documentId must name a document of this organization");
  }
  return entry;
}

/**
 * The status to store: what was declared, except that an achieved claim already past its
 * expiry is stored as expired.
 */
function settled(certification: StoredCertification, now: Date): StoredCertification {
  return { ...certification, status: statusAt(certification, now) };
}

/** Adds a certification, within the per-organization cap. */
export async function addCertification(
  kv: Deno.Kv,
  organizationId: string,
  options: { certification: StoredCertification; now: Date },
): Promise<StoredCertification> {
  const certification = settled(options.certification, options.now);
  const key = certificationKey(organizationId, certification.id);
  const writes = certificationWritesKey(organizationId);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const marker = await kv.get(writes);
    if (await countOf(kv, organizationId) >= MAX_CERTIFICATIONS) {
      throw conflict(`An organization lists at most ${MAX_CERTIFICATIONS} certifications`);
    }
    const document = await linkedDocument(kv, organizationId, certification);
    const op = kv.atomic().check({ key, versionstamp: null }, marker)
      .set(key, certification).set(writes, certification.id);
    if (document) op.check(document);
    stageFollowUps(op, organizationId, {
      id: certification.id,
      certification,
      scopes: [certification.projectId],
      now: options.now,
    });
    if ((await op.commit()).ok) return certification;
  }
  throw conflict("The certifications kept changing while this one was being added; please retry");
}

/**
 * Changes a certification: `change` gets the stored one and resolves with the next (it may
 * throw to refuse), again for each try, so what it checked is what is committed.
 */
export async function updateCertification(
  kv: Deno.Kv,
  organizationId: string,
  options: {
    id: string;
    change: (current: StoredCertification) => Promise<StoredCertification>;
    now: Date;
  },
): Promise<StoredCertification> {
  const key = certificationKey(organizationId, options.id);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const entry = await kv.get<StoredCertification>(key);
    if (!entry.value) throw notFound("No certification with that id in this organization");
    const next = settled(await options.change(entry.value), options.now);
    const document = await linkedDocument(kv, organizationId, next);
    const op = kv.atomic().check(entry).set(key, next);
    if (document) op.check(document);
    stageFollowUps(op, organizationId, {
      id: next.id,
      certification: next,
      scopes: [entry.value.projectId, next.projectId],
      now: options.now,
    });
    if ((await op.commit()).ok) return next;
  }
  throw conflict("The certification kept changing while it was being saved; please retry");
}

/** Removes a certification; returns what was removed. */
export async function removeCertification(
  kv: Deno.Kv,
  organizationId: string,
  options: { id: string; now: Date },
): Promise<StoredCertification> {
  const key = certificationKey(organizationId, options.id);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const entry = await kv.get<StoredCertification>(key);
    if (!entry.value) throw notFound("No certification with that id in this organization");
    const op = kv.atomic().check(entry).delete(key);
    stageFollowUps(op, organizationId, {
      id: options.id,
      certification: null,
      scopes: [entry.value.projectId],
      now: options.now,
    });
    if ((await op.commit()).ok) return entry.value;
  }
  throw conflict("The certification kept changing while it was being removed; please retry");
}

/**
 * Records an achieved certification whose expiry has passed as expired. Returns whether it
 * changed (false when it is gone, not achieved or not yet expired).
 */
export async function recordExpiry(
  kv: Deno.Kv,
  organizationId: string,
  options: { id: string; now: Date },
): Promise<boolean> {
  const key = certificationKey(organizationId, options.id);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const entry = await kv.get<StoredCertification>(key);
    const current = entry.value;
    if (!current || current.status !== "achieved") return false;
    if (statusAt(current, options.now) !== "expired") return false;
    const next: StoredCertification = { ...current, status: "expired" };
    const op = kv.atomic().check(entry).set(key, next);
    if ((await op.commit()).ok) return true;
  }
  throw conflict("The certification kept changing while its expiry was being recorded");
}
