/**
 * The standard exports of the latest published version (src/publish/exports.ts): OSCAL
 * Assessment Results and Security Insights with their JWS, and the DSSE-signed SLSA
 * Verification Summary. Served as stored, with their digest as a strong ETag; each version's
 * copies are immutable under /versions/{version}/ (trust_history.ts). A version published
 * before the exports existed has none: 404.
 */
import { createRoute, z } from "@hono/zod-openapi";
import { notFound } from "../../domain/errors.ts";
import type { Artifact, Publication } from "../../domain/publication.ts";
import { SlugParams } from "../../domain/publish.ts";
import { EXPORT_FILES, type ExportName } from "../../publish/exports.ts";
import { JSON_TYPE, PUBLIC_CACHE } from "../../serve/headers.ts";
import { publicPublication } from "../../serve/public_read.ts";
import { createRouter } from "../env.ts";
import { errors } from "../openapi.ts";
import { serveArtifact } from "../public_responses.ts";

export const trustExportRoutes = createRouter();

const tags = ["Public trust"];

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

const ROUTES: Record<ExportName, { operationId: string; summary: string }> = {
  oscal: {
    operationId: "getTrustOscal",
    summary: "The latest version as OSCAL Assessment Results (JSON)",
  },
  oscalJws: {
    operationId: "getTrustOscalSignature",
    summary: "Compact JWS (EdDSA, publication key) over the latest OSCAL Assessment Results",
  },
  attestation: {
    operationId: "getTrustAttestation",
    summary: "The latest version's SLSA Verification Summary, an in-toto Statement in DSSE",
  },
  securityInsights: {
    operationId: "getTrustSecurityInsights",
    summary: "OpenSSF Security Insights (v2, JSON form) of the project",
  },
  securityInsightsJws: {
    operationId: "getTrustSecurityInsightsSignature",
    summary: "Compact JWS (EdDSA, publication key) over the latest Security Insights document",
  },
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

for (const name of Object.keys(ROUTES) as ExportName[]) {
  const content = EXPORT_CONTENT[name];
  const contentKey = content.type === JSON_TYPE ? "application/json" : content.type;
  trustExportRoutes.openapi(
    createRoute({
      method: "get",
      path: `/{projectSlug}/${EXPORT_FILES[name]}`,
      operationId: ROUTES[name].operationId,
      tags,
      summary: ROUTES[name].summary,
      request: { params: SlugParams },
      responses: {
        200: {
          content: { [contentKey]: { schema: content.schema } },
          description: "The stored document, as published",
        },
        304: { description: "Not modified (If-None-Match)" },
        ...errors(404),
      },
    }),
    async (c) => {
      const { publication } = await publicPublication(
        c.var.services,
        c.req.valid("param").projectSlug,
      );
      return await serveArtifact(c, exportArtifact(publication, name), {
        headers: { "content-type": content.type, "cache-control": PUBLIC_CACHE },
      });
    },
  );
}
