/**
 * What the standard exports of a version are served as (src/publish/exports.ts): their
 * media types and response schemas, and the stored artifact of one, shared by the latest
 * routes and the per-version route.
 */
import { z } from "@hono/zod-openapi";
import { notFound } from "../domain/errors.ts";
import type { Artifact, Publication } from "../domain/publication.ts";
import { EXPORT_FILES, type ExportName } from "../publish/exports.ts";
import { JSON_TYPE } from "./headers.ts";

export const OscalAssessmentResults = z.object({
  "assessment-results": z.looseObject({
    uuid: z.string(),
    metadata: z.looseObject({ "oscal-version": z.string() }),
    results: z.array(z.looseObject({ uuid: z.string() })),
  }),
}).openapi("OscalAssessmentResults", {
  description: "NIST OSCAL 1.0.6 Assessment Results (JSON), one result per version",
});

export const DsseEnvelope = z.object({
  payloadType: z.literal("application/vnd.in-toto+json"),
  payload: z.string().openapi({ description: "base64 of the in-toto Statement (JSON)" }),
  signatures: z.array(z.object({ keyid: z.string(), sig: z.string() })),
}).openapi("DsseEnvelope", {
  description:
    "DSSE envelope of an in-toto Statement v1 with a SLSA Verification Summary v1 predicate; Ed25519 over the DSSE PAE, keyid = the publication key's kid in /.well-known/jwks.json",
});

export const SecurityInsights = z.object({
  header: z.looseObject({ "schema-version": z.string(), url: z.string() }),
  project: z.looseObject({ name: z.string() }).optional(),
}).openapi("SecurityInsights", {
  description:
    "OpenSSF Security Insights v2 in its JSON form, with only the fields the service can vouch for",
});

/** Media type and response schema of each export. */
export const EXPORT_CONTENT: Record<ExportName, { type: string; schema: z.ZodType }> = {
  oscal: { type: JSON_TYPE, schema: OscalAssessmentResults },
  oscalJws: { type: "application/jose", schema: z.string() },
  attestation: { type: JSON_TYPE, schema: DsseEnvelope },
  securityInsights: { type: JSON_TYPE, schema: SecurityInsights },
  securityInsightsJws: { type: "application/jose", schema: z.string() },
};

/** The stored export `name` of `publication`, or a 404 when it was published without. */
export function exportArtifact(publication: Publication, name: ExportName): Artifact {
  const artifact = publication.artifacts[name];
  if (!artifact) {
    throw notFound(
      `Version ${publication.version} has no ${
        EXPORT_FILES[name]
      }: it was published before the exports existed`,
    );
  }
  return artifact;
}
