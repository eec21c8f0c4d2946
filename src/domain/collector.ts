/**
 * Collector principals, evidence records and signal detections (SPEC.md
 * "CollectorPrincipal", "EvidenceRecordSummary", "Signal detection").
 */
import { z } from "@hono/zod-openapi";
import { NextCursor } from "./list_page.ts";
import { EVIDENCE_FORMATS } from "./evidence_formats.ts";
import { DateTime, Name, Uuid } from "./common.ts";
import { ControlState, EvidenceType } from "./control.ts";

export const COLLECTOR_ACTIONS = ["heartbeat", "ingest:evidence", "ingest:signals"] as const;
export const CollectorAction = z.enum(COLLECTOR_ACTIONS);
export type CollectorAction = z.infer<typeof CollectorAction>;

export const CollectorPrincipal = z.object({
  id: Uuid,
  organizationId: Uuid,
  projectId: Uuid,
  name: z.string(),
  type: z.enum(["cli"]),
  status: z.enum(["active", "revoked"]),
  allowedActions: z.array(z.string()).openapi({
    description: "Any of heartbeat, ingest:evidence, ingest:signals",
  }),
  lastSeenAt: DateTime.nullable(),
  createdByUserId: Uuid,
  createdAt: DateTime,
  revokedAt: DateTime.nullable(),
}).openapi("CollectorPrincipal");
export type CollectorPrincipal = z.infer<typeof CollectorPrincipal>;

/** A collector as the service holds it: the principal plus its secret's SHA-256. */
export interface Collector extends CollectorPrincipal {
  secretHash: string;
}

export const CollectorSecret = z.object({
  value: z.string().openapi({ description: "Shown once; only its SHA-256 is stored" }),
  prefix: z.string().openapi({ description: "The first 12 characters, to recognize it later" }),
}).openapi("CollectorSecret");

export const CollectorWithSecretResponse = z.object({
  collector: CollectorPrincipal,
  secret: CollectorSecret,
}).openapi("CollectorWithSecretResponse");

export const CollectorResponse = z.object({ collector: CollectorPrincipal })
  .openapi("CollectorResponse");
export const CollectorListResponse = z.object({
  collectors: z.array(CollectorPrincipal),
  nextCursor: NextCursor,
}).openapi("CollectorListResponse");

export const CreateCollectorRequest = z.strictObject({
  name: Name,
  allowedActions: z.array(CollectorAction).min(1).max(COLLECTOR_ACTIONS.length)
    .refine((a) => new Set(a).size === a.length, "Actions must not repeat")
    .optional(),
}).openapi("CreateCollectorRequest");

export const SourceRef = z.string().min(1).max(1000);

export const HeartbeatRequest = z.strictObject({ sourceRef: SourceRef })
  .openapi("HeartbeatRequest");

export const SourceType = z.enum([
  "aws",
  "collector",
  "custom",
  "github_actions",
  "kubernetes",
  "terraform",
]);

export const EvidenceCollectorSummary = z.object({ id: Uuid, name: z.string() })
  .openapi("EvidenceCollectorSummary");

export const EvidenceReading = z.object({
  format: z.enum(EVIDENCE_FORMATS).nullable().openapi({
    description: "The document format the evaluator recognized, or null when none",
  }),
  understood: z.boolean().openapi({
    description: "False when the evaluator cannot reach a verdict from the payload: its " +
      "control would be unknown (a custom rule may still read it)",
  }),
  summary: z.string().openapi({ example: "Trivy report: 2 critical, 0 high, 0 medium, 0 low" }),
}).openapi("EvidenceReading", {
  description: "How the evaluator read the record when it arrived (see /docs/evaluation)",
});
export type EvidenceReading = z.infer<typeof EvidenceReading>;

export const EvidenceRecordSummary = z.object({
  id: Uuid,
  organizationId: Uuid,
  projectId: Uuid,
  collectorPrincipalId: Uuid,
  collector: EvidenceCollectorSummary,
  evidenceType: EvidenceType,
  sourceType: SourceType,
  sourceRef: z.string(),
  payloadS3Key: z.string(),
  checksum: z.string().openapi({
    example: "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
  }),
  observedAt: DateTime,
  receivedAt: DateTime,
  reading: EvidenceReading,
}).openapi("EvidenceRecordSummary");
export type EvidenceRecordSummary = z.infer<typeof EvidenceRecordSummary>;

export const IngestControlEffect = z.object({
  key: z.string().openapi({ example: "evidence.vulnerability_scan" }),
  name: z.string().openapi({ example: "Vulnerability scan" }),
  previousState: ControlState.nullable().openapi({
    description: "The stored state before this evidence (null: never evaluated)",
  }),
  state: ControlState.openapi({
    description: "The state the evaluator gives the control now, with this evidence stored",
  }),
  reason: z.string().nullable().openapi({ description: "Why the control is in that state" }),
  evidenceRecordId: Uuid.nullable().openapi({
    description: "The record that decides the state: one just sent, or a newer observation",
  }),
}).openapi("IngestControlEffect", {
  description: "A control that reads the evidence type sent. The recompute the ingest " +
    "schedules stores this state (and publishes it when auto-publish is on)",
});
export type IngestControlEffect = z.infer<typeof IngestControlEffect>;

const controlEffects = z.array(IngestControlEffect).openapi({
  description: "The enabled controls that read the evidence types sent, in catalog order, " +
    "with their state before and after (an extension of the specification's wrapper)",
});

export const EvidenceRecordResponse = z.object({
  record: EvidenceRecordSummary,
  controls: controlEffects,
}).openapi("EvidenceRecordResponse");
export const EvidenceRecordListResponse = z.object({
  records: z.array(EvidenceRecordSummary),
  controls: controlEffects,
}).openapi("EvidenceRecordListResponse");
export const EvidencePageResponse = z.object({
  records: z.array(EvidenceRecordSummary),
  nextCursor: z.string().nullable(),
}).openapi("EvidencePageResponse");

/** Entries in a top-level array payload: conftest writes one per file it tested. */
export const MAX_PAYLOAD_ARRAY_ITEMS = 100_000;

/** Evidence documents: any JSON object, or a JSON array (conftest's `--output json`). */
export const Payload = z.union([
  z.record(z.string(), z.unknown()),
  z.array(z.unknown()).max(MAX_PAYLOAD_ARRAY_ITEMS),
], {
  error: (issue) =>
    Array.isArray(issue.input)
      ? `An array payload holds at most ${MAX_PAYLOAD_ARRAY_ITEMS} entries`
      : "Expected a JSON object or array",
}).openapi({
  description: "The evidence document (any JSON object or array), stored content-addressed",
});

const EvidenceItem = {
  evidenceType: EvidenceType,
  sourceType: SourceType,
  sourceRef: SourceRef,
  observedAt: DateTime,
  payload: Payload,
};

export const IngestEvidenceRequest = z.strictObject({ projectId: Uuid, ...EvidenceItem })
  .openapi("IngestEvidenceRequest");
export type IngestEvidenceRequest = z.infer<typeof IngestEvidenceRequest>;

export const MAX_BATCH_RECORDS = 100;
export const BatchIngestEvidenceItem = z.strictObject(EvidenceItem)
  .openapi("BatchIngestEvidenceItem");
export type EvidenceItem = z.infer<typeof BatchIngestEvidenceItem>;
export const BatchIngestEvidenceRequest = z.strictObject({
  projectId: Uuid,
  records: z.array(BatchIngestEvidenceItem).min(1).max(MAX_BATCH_RECORDS),
}).openapi("BatchIngestEvidenceRequest");

const Tools = z.array(z.string().max(200)).max(100);

export const TrustSignalGroup = z.strictObject({
  detected: z.boolean(),
  tools: Tools.optional(),
  providers: Tools.optional(),
}).openapi("TrustSignalGroup");

export const TrustSignalDetection = z.strictObject({
  detectedAt: DateTime,
  commitSha: z.string().min(1).max(200),
  ciCd: TrustSignalGroup,
  monitoring: TrustSignalGroup,
  authProvider: TrustSignalGroup,
  cloudProvider: TrustSignalGroup,
  securityContact: z.strictObject({
    detected: z.boolean(),
    email: z.email().max(254).nullable(),
  }),
}).openapi("TrustSignalDetection");
export type TrustSignalDetection = z.infer<typeof TrustSignalDetection>;

export const TrustSignalsResponse = z.object({ signals: TrustSignalDetection.nullable() })
  .openapi("TrustSignalsResponse");

export const IngestSignalsRequest = z.strictObject({
  projectId: Uuid,
  detection: TrustSignalDetection,
}).openapi("IngestSignalsRequest");

const GuideInline = z.union([
  z.object({ type: z.literal("text"), text: z.string(), strong: z.boolean().optional() }),
  z.object({ type: z.literal("code"), text: z.string() }),
  z.object({ type: z.literal("link"), text: z.string(), href: z.string() }),
]);

/** The setup guide for pages that build elements from data (src/lib/markdown_blocks.ts). */
export const SetupGuideResponse = z.object({
  markdown: z.string().openapi({ description: "The guide, as GET /projects/{id}/setup.md" }),
  blocks: z.array(z.union([
    z.object({
      type: z.literal("heading"),
      level: z.int().min(1).max(6),
      content: z.array(GuideInline),
    }),
    z.object({ type: z.literal("paragraph"), content: z.array(GuideInline) }),
    z.object({
      type: z.literal("list"),
      ordered: z.boolean(),
      items: z.array(z.array(GuideInline)),
    }),
    z.object({ type: z.literal("code"), language: z.string().nullable(), text: z.string() }),
  ])).openapi({ description: "The same guide as blocks of plain text, in order" }),
}).openapi("SetupGuideResponse");
