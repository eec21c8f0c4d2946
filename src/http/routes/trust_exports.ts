/**
 * The standard exports of the latest published version (src/publish/exports.ts): OSCAL
 * Assessment Results and Security Insights with their JWS, and the DSSE-signed SLSA
 * Verification Summary. Served as stored, with their digest as a strong ETag; each version's
 * copies are immutable under /versions/{version}/ (trust_history.ts). A version published
 * before the exports existed has none: 404.
 */
import { createRoute } from "@hono/zod-openapi";
import { SlugParams } from "../../domain/publish.ts";
import { EXPORT_FILES, type ExportName } from "../../publish/exports.ts";
import { EXPORT_CONTENT, exportArtifact } from "../../serve/exports.ts";
import { JSON_TYPE } from "../../serve/headers.ts";
import { createRouter } from "../env.ts";
import { errors } from "../openapi.ts";
import { serveLatestArtifact } from "../public_responses.ts";

export const trustExportRoutes = createRouter();

const tags = ["Public trust"];

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
      return await serveLatestArtifact(c, c.req.valid("param").projectSlug, {
        pick: (publication) => exportArtifact(publication, name),
        type: content.type,
      });
    },
  );
}
