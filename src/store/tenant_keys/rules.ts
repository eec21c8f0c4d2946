/**
 * The key register's terms: whose data a collection holds (`KeyOwner`), what each
 * collection declares (`CollectionRule`), and the public effects several areas share.
 *
 * @module
 */
import type { PublicEffect, PublicTarget } from "../public_writes.ts";

/**
 * Whose data a collection holds: `project` and `organization` keys belong to one tenant,
 * `user` keys to one person, `visitor` keys to an email address outside any account
 * (subscribers, access-request visitors), `service` keys to no one (keys, the log's tree,
 * content-addressed blobs, upgrade markers, indexes of the job store).
 */
export type KeyOwner = "project" | "organization" | "user" | "visitor" | "service";

export interface CollectionRule {
  owner: KeyOwner;
  /**
   * Which public pages a write to it alters (src/store/public_writes.ts adds their touch to the
   * commit): every collection says, "none" included.
   */
  public: PublicEffect;
  /** How a tenant's or person's keys of this collection are found, or why it is service-wide. */
  note: string;
}

/** A record's pages: its project's (the record holds the project's id). */
export const RECORD_PROJECT_PAGES: PublicEffect = {
  targets: (_key, value) => {
    const projectId = (value as { projectId?: unknown } | null)?.projectId;
    return typeof projectId === "string" ? [{ projectId }] : [];
  },
};

/**
 * A scheduled deletion's pages (they answer 410 from scheduling until an undo): the project's
 * and its organization's for a project, the organization's for an organization.
 */
export const DELETION_PAGES: PublicEffect = {
  targets: (_key, value) => {
    const record = value as { kind?: unknown; targetId?: unknown; organizationId?: unknown };
    if (typeof record?.organizationId !== "string") return [];
    const organization: PublicTarget = { organizationId: record.organizationId };
    return record.kind === "project" && typeof record.targetId === "string"
      ? [organization, { organizationId: record.organizationId, projectId: record.targetId }]
      : [organization];
  },
};
