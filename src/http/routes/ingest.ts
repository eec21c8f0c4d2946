/**
 * The collector API: heartbeat, evidence (single and batch) and signals.
 */
import { createRoute, z } from "@hono/zod-openapi";
import {
  BatchIngestEvidenceRequest,
  CollectorResponse,
  EvidenceRecordListResponse,
  EvidenceRecordResponse,
  HeartbeatRequest,
  IngestEvidenceRequest,
  IngestSignalsRequest,
  TrustSignalsResponse,
} from "../../domain/collector.ts";
import { uuidParam } from "../../domain/common.ts";
import { forbidden } from "../../domain/errors.ts";
import { controlEffects } from "../../ingest/effect.ts";
import { ingestEvidence } from "../../ingest/evidence.ts";
import { getCollector, markCollectorSeen, toPrincipal } from "../../store/collectors.ts";
import { recordSignals } from "../../store/signals.ts";
import { assertOwnProject, requireCollector } from "../collector_auth.ts";
import { createRouter } from "../env.ts";
import { COLLECTOR, errors, json, jsonBody } from "../openapi.ts";

export const ingestRoutes = createRouter();

const tags = ["Collector API"];

const IdempotencyHeaders = z.object({
  "idempotency-key": z.string().min(1).max(255).regex(/^[\x21-\x7e]+$/).optional().openapi({
    param: { name: "idempotency-key", in: "header" },
    description: "Replaying a request with the same key returns the stored result (kept 24 hours)",
  }),
});

ingestRoutes.openapi(
  createRoute({
    method: "post",
    path: "/collectors/{collectorId}/heartbeat",
    operationId: "collectorHeartbeat",
    tags,
    summary: "Prove the collector is alive",
    security: COLLECTOR,
    middleware: [requireCollector("heartbeat")] as const,
    request: {
      params: z.object({ collectorId: uuidParam("collectorId") }),
      body: jsonBody(HeartbeatRequest),
    },
    responses: {
      200: json(CollectorResponse, "The collector with its new lastSeenAt"),
      ...errors(400, 401, 403, 413, 415),
    },
  }),
  async (c) => {
    const { collectorId } = c.req.valid("param");
    if (collectorId !== c.var.collector.id) {
      throw forbidden("A collector can only send its own heartbeat");
    }
    const { kv, clock, notifyActivity } = c.var.services;
    await markCollectorSeen(kv, collectorId, clock.now());
    const collector = await getCollector(kv, collectorId);
    await notifyActivity(c.var.collector.projectId);
    return c.json({ collector: toPrincipal(collector!) }, 200);
  },
);

ingestRoutes.openapi(
  createRoute({
    method: "post",
    path: "/ingest/evidence",
    operationId: "ingestEvidence",
    tags,
    summary: "Report one evidence record",
    description:
      "The payload is stored content-addressed (RFC 8785 canonical JSON, SHA-256). The same record sent again, or a replay with the same Idempotency-Key, answers 200 with the stored record. The payload may be a JSON object or array; `record.reading` says which format the evaluator recognized and whether it understood the payload (an unreadable payload is stored, and its control stays unknown). `controls` lists the enabled controls that read this evidence type, with the state each had and the state it has now that the record is stored.",
    security: COLLECTOR,
    middleware: [requireCollector("ingest:evidence")] as const,
    request: { headers: IdempotencyHeaders, body: jsonBody(IngestEvidenceRequest) },
    responses: {
      200: json(EvidenceRecordResponse, "Already stored: the existing record"),
      201: json(EvidenceRecordResponse, "The new record"),
      ...errors(400, 401, 403, 409, 413, 415, 500),
    },
  }),
  async (c) => {
    const { projectId, ...item } = c.req.valid("json");
    assertOwnProject(c, projectId);
    const { kv, blobs, clock, notifyActivity, config } = c.var.services;
    const result = await ingestEvidence(c.var.collector, [item], {
      kv,
      blobs,
      sigstoreTrustedRoot: config.sigstoreTrustedRoot,
      now: clock.now(),
      idempotencyKey: c.req.valid("header")["idempotency-key"],
    });
    if (result.created) await notifyActivity(projectId);
    const record = result.records[0];
    const controls = await controlEffects({ kv, blobs, config }, projectId, {
      types: [record.evidenceType],
      now: clock.now(),
    });
    return result.created ? c.json({ record, controls }, 201) : c.json({ record, controls }, 200);
  },
);

ingestRoutes.openapi(
  createRoute({
    method: "post",
    path: "/ingest/evidence/batch",
    operationId: "ingestEvidenceBatch",
    tags,
    summary: "Report 1 to 100 evidence records, all or nothing",
    description:
      "Each record's `reading` says how the evaluator read its payload, and `controls` what the records do to the controls that read their types, as for one record.",
    security: COLLECTOR,
    middleware: [requireCollector("ingest:evidence")] as const,
    request: { headers: IdempotencyHeaders, body: jsonBody(BatchIngestEvidenceRequest) },
    responses: {
      200: json(EvidenceRecordListResponse, "Everything was already stored"),
      201: json(EvidenceRecordListResponse, "The records, in request order"),
      ...errors(400, 401, 403, 409, 413, 415, 500),
    },
  }),
  async (c) => {
    const { projectId, records: items } = c.req.valid("json");
    assertOwnProject(c, projectId);
    const { kv, blobs, clock, notifyActivity, config } = c.var.services;
    const result = await ingestEvidence(c.var.collector, items, {
      kv,
      blobs,
      sigstoreTrustedRoot: config.sigstoreTrustedRoot,
      now: clock.now(),
      idempotencyKey: c.req.valid("header")["idempotency-key"],
      fieldPrefix: (i) => `records.${i}.`,
    });
    if (result.created) await notifyActivity(projectId);
    const records = result.records;
    const controls = await controlEffects({ kv, blobs, config }, projectId, {
      types: [...new Set(records.map((r) => r.evidenceType))],
      now: clock.now(),
    });
    return result.created ? c.json({ records, controls }, 201) : c.json({ records, controls }, 200);
  },
);

ingestRoutes.openapi(
  createRoute({
    method: "post",
    path: "/ingest/signals",
    operationId: "ingestSignals",
    tags,
    summary: "Report a repository signal detection",
    description: "The newest detection (by detectedAt) is what /trust/{projectSlug}/signals shows.",
    security: COLLECTOR,
    middleware: [requireCollector("ingest:signals")] as const,
    request: { body: jsonBody(IngestSignalsRequest) },
    responses: {
      201: json(TrustSignalsResponse, "The project's latest detection after this one"),
      ...errors(400, 401, 403, 413, 415),
    },
  }),
  async (c) => {
    const { projectId, detection } = c.req.valid("json");
    assertOwnProject(c, projectId);
    const { kv, clock, notifyActivity } = c.var.services;
    const normalized = { ...detection, detectedAt: new Date(detection.detectedAt).toISOString() };
    const signals = await recordSignals(kv, normalized, {
      projectId,
      seenCollector: { id: c.var.collector.id, now: clock.now() },
    });
    await notifyActivity(projectId);
    return c.json({ signals }, 201);
  },
);
