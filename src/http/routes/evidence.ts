/**
 * Operator reads of evidence: pages of records and the stored payloads.
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { BlobStore } from "../../blobs/mod.ts";
import {
  EvidencePageResponse,
  type EvidenceRecordSummary,
  Payload,
} from "../../domain/collector.ts";
import { uuidParam } from "../../domain/common.ts";
import { EvidenceType } from "../../domain/control.ts";
import { notFound } from "../../domain/errors.ts";
import { readEvidence } from "../../evaluate/reading.ts";
import { encodeBase64 } from "../../lib/encoding.ts";
import { ifNoneMatchHits } from "../../serve/artifacts.ts";
import { getEvidence, listEvidenceByProject } from "../../store/evidence.ts";
import { requireHuman, requireProjectAccess } from "../auth.ts";
import { createRouter } from "../env.ts";
import { documentedJson, errors, HUMAN, json } from "../openapi.ts";

export const evidenceRoutes = createRouter();

const tags = ["Evidence"];

evidenceRoutes.openapi(
  createRoute({
    method: "get",
    path: "/projects/{id}/evidence",
    operationId: "listEvidence",
    tags,
    summary: "Evidence records of a project, newest observed first",
    description:
      "Ordered by observedAt, newest first (the order the evaluator reads), with or without the evidenceType filter. A record backfilled with an old observedAt takes its place in that order, not at the top.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: {
      params: z.object({ id: uuidParam("id") }),
      query: z.object({
        evidenceType: EvidenceType.optional(),
        limit: z.coerce.number().int().min(1).max(100).default(50),
        cursor: z.string().max(512).optional().openapi({
          description: "nextCursor of the previous page",
        }),
      }),
    },
    responses: {
      200: json(EvidencePageResponse, "A page of records and the cursor of the next one"),
      ...errors(400, 401, 403),
    },
  }),
  async (c) => {
    const project = await requireProjectAccess(c, c.req.valid("param").id);
    const query = c.req.valid("query");
    const { kv, blobs } = c.var.services;
    const page = await listEvidenceByProject(kv, project.id, query);
    const records = await Promise.all(page.values.map((record) => withReading(record, blobs)));
    return c.json({ records, nextCursor: page.cursor }, 200);
  },
);

/**
 * A record stored before readings existed gets one from its stored payload, read as ingest
 * reads new records; new records carry theirs, so this costs nothing once they age out.
 */
async function withReading(
  record: EvidenceRecordSummary,
  blobs: BlobStore,
): Promise<EvidenceRecordSummary> {
  if (record.reading) return record;
  const bytes = await blobs.get(record.payloadS3Key);
  let payload: unknown;
  try {
    payload = bytes ? JSON.parse(new TextDecoder().decode(bytes)) : undefined;
  } catch {
    payload = undefined;
  }
  const reading = payload === undefined
    ? { format: null, understood: false, summary: "The stored payload could not be read" }
    : readEvidence(record.evidenceType, payload);
  return { ...record, reading };
}

evidenceRoutes.openapi(
  createRoute({
    method: "get",
    path: "/projects/{id}/evidence/{recordId}/payload",
    operationId: "getEvidencePayload",
    tags,
    summary: "The stored payload of a record (RFC 8785 canonical JSON)",
    description:
      "The bytes whose SHA-256 is the record's checksum; `ETag` carries the checksum and `Repr-Digest`/`Digest` the SHA-256.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: z.object({ id: uuidParam("id"), recordId: uuidParam("recordId") }) },
    responses: {
      200: {
        content: {
          "application/json": {
            schema: Payload,
          },
        },
        description: "The payload",
      },
      304: { description: "Not modified (If-None-Match)" },
      ...errors(400, 401, 403, 404),
    },
  }),
  async (c) => {
    const { id, recordId } = c.req.valid("param");
    const project = await requireProjectAccess(c, id);
    const { kv, blobs } = c.var.services;
    const record = await getEvidence(kv, recordId);
    if (!record || record.projectId !== project.id) throw notFound("No such evidence record");
    const bytes = await blobs.get(record.payloadS3Key);
    if (!bytes) throw notFound("The payload of this record is missing from the blob store");
    const hex = record.checksum.slice("sha256:".length);
    const b64 = encodeBase64(Uint8Array.from(hex.match(/../g)!, (h) => parseInt(h, 16)));
    const headers = {
      etag: `"${record.checksum}"`,
      "repr-digest": `sha-256=:${b64}:`,
      digest: `sha-256=${b64}`,
      "cache-control": "private, max-age=31536000, immutable",
    };
    if (ifNoneMatchHits(c.req.header("if-none-match"), headers.etag)) {
      return c.body(null, 304, headers);
    }
    // The stored bytes are served as they are (not re-serialized), so the digest holds.
    const response = c.body(bytes as Uint8Array<ArrayBuffer>, 200, {
      "content-type": "application/json",
      ...headers,
    });
    return documentedJson(Payload, response);
  },
);
