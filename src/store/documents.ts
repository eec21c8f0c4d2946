/**
 * An organization's documents (metadata only; the bytes are content-addressed blobs), its
 * click-through NDA versions and its document access settings.
 */
import type { DocumentSettings, NdaVersion } from "../domain/access_requests.ts";
import {
  MAX_DOCUMENTS,
  type TrustDocument,
  type UpdateDocumentRequest,
} from "../domain/documents.ts";
import { conflict, notFound, validationFailed } from "../domain/errors.ts";
import { frameworkOf, type StoredCertification } from "../domain/certifications.ts";
import {
  certificationsPrefix,
  certificationWritesKey,
  documentKey,
  documentSettingsKey,
  documentsPrefix,
  documentStampKey,
  documentWritesKey,
  ndaVersionKey,
  ndaVersionsPrefix,
  upgradeKey,
} from "./keys.ts";
import { compareCodePoints } from "../lib/order.ts";

const MAX_ATTEMPTS = 10;

/** The organization's documents, by title. */
export async function listDocuments(kv: Deno.Kv, organizationId: string): Promise<TrustDocument[]> {
  const list: TrustDocument[] = [];
  for await (const entry of kv.list<TrustDocument>({ prefix: documentsPrefix(organizationId) })) {
    list.push(entry.value);
  }
  return list.sort((a, b) => a.title.localeCompare(b.title, "en") || compareCodePoints(a.id, b.id));
}

/** One document, or null. */
export async function getDocument(
  kv: Deno.Kv,
  organizationId: string,
  id: string,
): Promise<TrustDocument | null> {
  return (await kv.get<TrustDocument>(documentKey(organizationId, id))).value;
}

async function countDocuments(kv: Deno.Kv, organizationId: string): Promise<number> {
  let count = 0;
  const iter = kv.list({ prefix: documentsPrefix(organizationId) }, { limit: MAX_DOCUMENTS });
  for await (const _ of iter) count++;
  return count;
}

/** Throws a 409 when the organization already holds MAX_DOCUMENTS documents. */
export async function checkDocumentRoom(kv: Deno.Kv, organizationId: string): Promise<void> {
  if (await countDocuments(kv, organizationId) >= MAX_DOCUMENTS) {
    throw conflict(
      `An organization holds at most ${MAX_DOCUMENTS} documents; remove one to add another`,
    );
  }
}

/**
 * Stores a new document's metadata, within the per-organization cap. The count is checked
 * against the organization's write marker, read before counting and moved in the same
 * atomic commit as the insert, so concurrent uploads cannot both slip under the cap.
 */
export async function addDocument(
  kv: Deno.Kv,
  organizationId: string,
  document: TrustDocument,
): Promise<TrustDocument> {
  const key = documentKey(organizationId, document.id);
  const writes = documentWritesKey(organizationId);
  for (let attempt = 0; attempt < 2 * MAX_ATTEMPTS; attempt++) {
    const marker = await kv.get(writes);
    await checkDocumentRoom(kv, organizationId);
    const op = kv.atomic().check({ key, versionstamp: null }, marker)
      .set(key, document).set(writes, document.id);
    const res = await op.commit();
    if (res.ok) return document;
    if ((await kv.get(key)).versionstamp) throw conflict("A document with that id already exists");
  }
  throw conflict("The documents kept changing while this one was being added; please retry");
}

/** Changes a document's fields; returns it as stored. */
export async function updateDocument(
  kv: Deno.Kv,
  organizationId: string,
  options: { id: string; change: UpdateDocumentRequest; now: Date },
): Promise<TrustDocument> {
  const key = documentKey(organizationId, options.id);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const entry = await kv.get<TrustDocument>(key);
    if (!entry.value) throw notFound("No document with that id in this organization");
    if (entry.value.unlisted && options.change.visibility === "public") {
      throw validationFailed(
        "This document is unlisted (shared only through access links): it stays restricted",
      );
    }
    const next: TrustDocument = {
      ...entry.value,
      ...options.change,
      updatedAt: options.now.toISOString(),
    };
    const op = kv.atomic().check(entry).set(key, next);
    if ((await op.commit()).ok) return next;
  }
  throw conflict("The document kept changing while it was being saved; please retry");
}

/** How a certification is named in a refusal: its framework, and its id. */
function certificationName(c: StoredCertification): string {
  const name = c.framework === "other" ? c.otherName ?? "Other" : frameworkOf(c.framework).name;
  return `"${name}" (${c.id})`;
}

/**
 * Removes a document's metadata; returns what was removed. Its links stop serving it. A
 * document a certification links as its report is refused (409, naming the certifications),
 * so no claim is left pointing at nothing. The commit checks every certification and the
 * certifications' write marker as read, so one linked or added meanwhile makes it try again
 * (and refuse); a certification's own write checks its document the same way.
 */
export async function removeDocument(
  kv: Deno.Kv,
  organizationId: string,
  id: string,
): Promise<TrustDocument> {
  const key = documentKey(organizationId, id);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const entry = await kv.get<TrustDocument>(key);
    if (!entry.value) throw notFound("No document with that id in this organization");
    const marker = await kv.get(certificationWritesKey(organizationId));
    const certifications: Deno.KvEntry<StoredCertification>[] = [];
    const iter = kv.list<StoredCertification>({ prefix: certificationsPrefix(organizationId) });
    for await (const certification of iter) certifications.push(certification);
    const citing = certifications.filter((c) => c.value.documentId === id);
    if (citing.length > 0) {
      throw conflict(
        `Document "${entry.value.title}" is the report of the certification${
          citing.length === 1 ? "" : "s"
        } ${
          citing.map((c) => certificationName(c.value)).join(", ")
        }: link another document there or clear its documentId, then remove it`,
      );
    }
    const op = kv.atomic().check(entry, marker, ...certifications).delete(key);
    if ((await op.commit()).ok) return entry.value;
  }
  throw conflict("The document changed while it was being removed; please retry");
}

/** Every NDA version, newest first. */
export async function listNdaVersions(kv: Deno.Kv, organizationId: string): Promise<NdaVersion[]> {
  const list: NdaVersion[] = [];
  const iter = kv.list<NdaVersion>({ prefix: ndaVersionsPrefix(organizationId) }, {
    reverse: true,
  });
  for await (const entry of iter) list.push(entry.value);
  return list;
}

/** The current NDA (the newest version), or null when none was set. */
export async function currentNda(kv: Deno.Kv, organizationId: string): Promise<NdaVersion | null> {
  const iter = kv.list<NdaVersion>({ prefix: ndaVersionsPrefix(organizationId) }, {
    reverse: true,
    limit: 1,
  });
  for await (const entry of iter) return entry.value;
  return null;
}

/**
 * Adds a new NDA version after the newest; text equal to the current version's adds
 * nothing. Older versions are kept, because accepted requests name the version they accepted.
 * The first one opens access requests, which the public answers link, so the commit stages
 * the organization's render.
 */
export async function addNdaVersion(
  kv: Deno.Kv,
  organizationId: string,
  draft: Omit<NdaVersion, "version">,
): Promise<NdaVersion> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const current = await currentNda(kv, organizationId);
    if (current && current.sha256 === draft.sha256) return current;
    const version: NdaVersion = { ...draft, version: (current?.version ?? 0) + 1 };
    const key = ndaVersionKey(organizationId, version.version);
    const op = kv.atomic().check({ key, versionstamp: null }).set(key, version);
    if ((await op.commit()).ok) return version;
  }
  throw conflict("The NDA kept changing while it was being saved; please retry");
}

/** The organization's document settings (no auto-approved domains until set). */
export async function getDocumentSettings(
  kv: Deno.Kv,
  organizationId: string,
): Promise<DocumentSettings> {
  const entry = await kv.get<DocumentSettings>(documentSettingsKey(organizationId));
  return entry.value ?? { autoApproveDomains: [] };
}

/** Replaces the organization's document settings. */
export async function setDocumentSettings(
  kv: Deno.Kv,
  organizationId: string,
  settings: DocumentSettings,
): Promise<DocumentSettings> {
  await kv.set(documentSettingsKey(organizationId), settings);
  return settings;
}

/**
 * The stamped copy of a PDF for one recipient: the digest of the stamped bytes (a blob of
 * kind "document"), or null when the PDF could not be stamped; with when it was made.
 */
export interface DocumentStamp {
  stampedSha256: string | null;
  at: string;
}

/** Whose stamp: the organization, the original's digest and the recipient's email hash. */
export interface StampOwner {
  organizationId: string;
  documentSha256: string;
  recipientHash: string;
}

const stampKey = (owner: StampOwner) =>
  documentStampKey(owner.organizationId, owner.documentSha256, owner.recipientHash);

/** The stamp made earlier for `owner`, or null. */
export async function getDocumentStamp(
  kv: Deno.Kv,
  owner: StampOwner,
): Promise<DocumentStamp | null> {
  return (await kv.get<DocumentStamp>(stampKey(owner))).value;
}

/** Records the stamp for `owner`; the bytes are stored first. */
export async function setDocumentStamp(
  kv: Deno.Kv,
  owner: StampOwner,
  stamp: DocumentStamp,
): Promise<void> {
  await kv.set(stampKey(owner), stamp);
}

const UNSCOPED_STAMPS_UPGRADE = "document_stamps_by_organization";

/**
 * Removes, once per database, the stamps kept before they were keyed by organization
 * (`["document_stamps", sha256, recipient]`): an organization could not tell its own from
 * another's holding the same bytes. They are copies: the next download stamps again.
 */
export async function dropUnscopedStamps(kv: Deno.Kv, now: Date): Promise<number> {
  if ((await kv.get(upgradeKey(UNSCOPED_STAMPS_UPGRADE))).versionstamp !== null) return 0;
  let removed = 0;
  let op = kv.atomic();
  let pending = 0;
  for await (const entry of kv.list({ prefix: ["document_stamps"] }, { batchSize: 500 })) {
    if (entry.key.length !== 3) continue;
    op.delete(entry.key);
    removed++;
    if (++pending === 500) {
      await op.commit();
      op = kv.atomic();
      pending = 0;
    }
  }
  op.set(upgradeKey(UNSCOPED_STAMPS_UPGRADE), { at: now.toISOString(), removed });
  await op.commit();
  return removed;
}
