/**
 * Deleting a project, an organization or an account: the contract. A project or an
 * organization is deleted after a grace period during which its owners may undo it; its public
 * routes answer 410 Gone from the moment it is scheduled. An account is deleted at once.
 * The flow is src/lifecycle/deletion.ts; the keys it removes, src/store/tenant_keys.ts.
 */
import { z } from "@hono/zod-openapi";
import { DateTime, Uuid } from "./common.ts";

/** How long a scheduled deletion waits, so that an owner can undo it. */
export const DELETION_GRACE_MS = 7 * 24 * 60 * 60 * 1000;

/** The job that deletes a project or an organization once its grace has passed. */
export const DELETION_JOB = "tenant.delete";

/** Keys removed per atomic commit, and per run of the job (then it runs again). */
export const DELETION_BATCH = 50;
export const DELETION_KEYS_PER_RUN = 10_000;

export type DeletionKind = "project" | "organization";

/** A scheduled deletion as stored (its job has the same id). */
export interface DeletionRecord {
  id: string;
  kind: DeletionKind;
  targetId: string;
  organizationId: string;
  requestedBy: string;
  requestedAt: string;
  dueAt: string;
}

/** The message of the deletion job. */
export interface DeletionMessage {
  kind: typeof DELETION_JOB;
  deletionId: string;
  target: DeletionKind;
  targetId: string;
  organizationId: string;
  [field: string]: unknown;
}

export const ScheduleDeletionRequest = z.strictObject({
  confirm: z.string().min(1).max(200).openapi({
    description: "The slug of what is deleted, typed again to confirm",
    example: "acme",
  }),
}).openapi("ScheduleDeletionRequest");

const DeletionFields = z.object({
  kind: z.enum(["project", "organization"]),
  targetId: Uuid,
  requestedAt: DateTime,
  dueAt: DateTime.openapi({
    description: "When the data is removed; until then the deletion can be undone",
  }),
});

export const Deletion = DeletionFields.openapi("Deletion");

export const DeletionResponse = z.object({ deletion: Deletion }).openapi("DeletionResponse");

export const DeletionStatusResponse = z.object({
  deletion: DeletionFields.nullable().openapi({ description: "null: no deletion is scheduled" }),
}).openapi("DeletionStatusResponse");

export const DeleteAccountRequest = z.strictObject({
  confirm: z.string().min(1).max(254).openapi({
    description: "The account's email address, typed again to confirm",
  }),
}).openapi("DeleteAccountRequest");

export const AccountDeletedResponse = z.object({
  deleted: z.literal(true),
  message: z.string(),
}).openapi("AccountDeletedResponse");

/** When a scheduled deletion removes the data, as a notice says it: `2026-12-09 08:41 UTC`. */
export function deletionDueText(dueAt: string): string {
  const at = new Date(dueAt);
  if (Number.isNaN(at.getTime())) return dueAt;
  const iso = at.toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/**
 * The short notice a deleted or to-be-deleted tenant's public surfaces answer with (410 Gone,
 * every format, MCP tools too). With `dueAt` (its deletion is scheduled and can still be
 * undone) it says so, when the data goes and that the profile may return; without, that it
 * was deleted.
 */
export function goneNotice(what: DeletionKind, dueAt?: string | null): string {
  const profile = what === "project" ? "trust profile" : "trust center";
  if (dueAt) {
    return `This ${what}'s ${profile} is scheduled for deletion by its owner on ` +
      `${deletionDueText(dueAt)} and is withdrawn until then. ` +
      "The owner can still undo the deletion, so it may return at this address";
  }
  return `This ${what}'s ${profile} was deleted by its owner. ` +
    "Its entries in the publication log remain as hashes only, so that the log stays " +
    "consistent and every other profile stays verifiable";
}

/** Public view of a stored deletion. */
export function toDeletion(record: DeletionRecord): z.infer<typeof Deletion> {
  return {
    kind: record.kind,
    targetId: record.targetId,
    requestedAt: record.requestedAt,
    dueAt: record.dueAt,
  };
}
