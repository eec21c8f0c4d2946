/**
 * Evidence retention and storage usage (docs/lifecycle.md): the setting a project or an
 * organization keeps (null: inherit), the policy in effect, what a pruning run did, and the
 * usage report of an organization's projects.
 */
import { z } from "@hono/zod-openapi";
import { DateTime, Uuid } from "./common.ts";

export const MAX_RETENTION_DAYS = 36_500;
export const MAX_RETENTION_RECORDS = 100_000;

/** A scope's own setting; a null field is inherited (project → organization → service). */
export const RetentionSetting = z.strictObject({
  days: z.int().min(1).max(MAX_RETENTION_DAYS).nullable().openapi({
    description: "Keep evidence observed within this many days (null: inherit)",
  }),
  recordsPerType: z.int().min(1).max(MAX_RETENTION_RECORDS).nullable().openapi({
    description: "Keep the newest this many records of each evidence type (null: inherit)",
  }),
}).openapi("RetentionSetting");
export type RetentionSetting = z.infer<typeof RetentionSetting>;

/** Where a value in effect comes from. */
export const RetentionSource = z.enum(["project", "organization", "service"]);
export type RetentionSource = z.infer<typeof RetentionSource>;

/** The policy in effect, and where each value comes from. */
export const RetentionPolicy = z.object({
  days: z.int().min(1),
  recordsPerType: z.int().min(1),
  daysFrom: RetentionSource,
  recordsPerTypeFrom: RetentionSource,
}).openapi("RetentionPolicy", {
  description: "Always kept: the latest record of each type (the 10 newest VEX documents) and " +
    "every record a published version cites. Otherwise a record is kept while it is within " +
    "`days` or among the newest `recordsPerType` of its type, whichever keeps more",
});
export type RetentionPolicy = z.infer<typeof RetentionPolicy>;

export const RetentionResponse = z.object({
  retention: z.object({ setting: RetentionSetting, effective: RetentionPolicy }),
}).openapi("RetentionResponse");

/** What a pruning run removed, or would remove (a dry run). */
export const PruneSummary = z.object({
  records: z.int().min(0).openapi({ description: "Evidence records removed" }),
  payloadBytes: z.int().min(0).openapi({
    description: "Bytes of their payloads no kept record of the project shares (the blob " +
      "collector frees them unless another project or version still names them)",
  }),
}).openapi("PruneSummary");
export type PruneSummary = z.infer<typeof PruneSummary>;

export const PruneResponse = z.object({
  pruned: PruneSummary,
  complete: z.boolean().openapi({
    description: "false when the run stopped at its budget; the job goes on with the rest",
  }),
}).openapi("PruneResponse");

/** One project's storage, as the usage report shows it. */
export const ProjectUsage = z.object({
  projectId: Uuid,
  slug: z.string(),
  name: z.string(),
  evidenceRecords: z.int().min(0),
  blobBytes: z.int().min(0).openapi({
    description: "Bytes of the distinct blobs its evidence and published versions name " +
      "(a blob shared with another project counts in both)",
  }),
  kvBytes: z.int().min(0).openapi({
    description: "Estimated: the serialized size (keys and JSON values) of its evidence " +
      "records, their index entries and its published versions; blobs kept in the KV " +
      "(BLOB_STORE=kv) are counted under blobBytes, not here",
  }),
  retention: RetentionPolicy,
  nextPrune: PruneSummary.openapi({
    description: "What pruning would remove if it ran now",
  }),
  deletionDueAt: DateTime.nullable().openapi({
    description: "When the project's scheduled deletion is due, or null when none is scheduled",
  }),
}).openapi("ProjectUsage");
export type ProjectUsage = z.infer<typeof ProjectUsage>;

export const UsageResponse = z.object({
  measuredAt: DateTime,
  projects: z.array(ProjectUsage),
}).openapi("UsageResponse");
export type UsageResponse = z.infer<typeof UsageResponse>;
