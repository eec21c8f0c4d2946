/**
 * What comes out of a reviewed questionnaire: the gap list, the buyer's own file answered,
 * its signed manifest, and the share through the access-link flow (docs/questionnaires.md).
 */
import { createRoute, z } from "@hono/zod-openapi";
import { DocumentResponse } from "../../domain/documents.ts";
import {
  GapsQuery,
  MANIFEST_CONTENT_TYPE,
  QuestionnaireGaps,
  QuestionnaireParams,
} from "../../domain/questionnaires.ts";
import { csvField } from "../../serve/answers_export.ts";
import { requestUrlFor, restrictedWithoutNda } from "../../serve/documents.ts";
import {
  exportFileName,
  exportQuestionnaire,
  manifestOf,
  shareQuestionnaire,
  signManifest,
} from "../../serve/questionnaire_export.ts";
import { gapsOf } from "../../serve/questionnaire_rows.ts";
import { organizationCaller, requireHuman } from "../auth.ts";
import { createRouter } from "../env.ts";
import { errors, HUMAN, json } from "../openapi.ts";

export const questionnaireFileRoutes = createRouter();

const tags = ["Questionnaires"];
const BASE = "/organizations/{organizationId}/questionnaires/{questionnaireId}";
const Binary = z.string().openapi({ format: "binary" });
const FILE_TYPES = {
  xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  csv: "text/csv",
} as const;

questionnaireFileRoutes.openapi(
  createRoute({
    method: "get",
    path: `${BASE}/gaps`,
    operationId: "getQuestionnaireGaps",
    tags,
    summary: "The questions the knowledge base does not answer (members)",
    description:
      "Every row without a suggestion over the threshold, in the file's order: JSON by default, CSV (key, sheet, row, id, question) with format=csv or Accept: text/csv.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: QuestionnaireParams, query: GapsQuery },
    responses: {
      200: {
        description: "The gap list",
        content: {
          "application/json": { schema: QuestionnaireGaps },
          "text/csv": { schema: z.string() },
        },
      },
      ...errors(400, 401, 403, 404),
    },
  }),
  async (c) => {
    const { organizationId, questionnaireId } = c.req.valid("param");
    await organizationCaller(c, organizationId);
    const gaps = await gapsOf(c.var.services.kv, organizationId, questionnaireId);
    const asked = c.req.valid("query").format;
    const csv = asked === "csv" ||
      (asked === undefined && /\btext\/csv\b/.test(c.req.header("accept") ?? ""));
    if (!csv) return c.json({ gaps }, 200);
    const lines = [
      "key,sheet,row,id,question",
      ...gaps.map((g) =>
        [g.key, g.sheet, String(g.row), g.questionId ?? "", g.question].map(csvField).join(",")
      ),
    ];
    return c.body(`${lines.join("\r\n")}\r\n`, 200, {
      "content-type": "text/csv; charset=utf-8",
      "content-disposition": 'attachment; filename="questionnaire-gaps.csv"',
    });
  },
);

questionnaireFileRoutes.openapi(
  createRoute({
    method: "get",
    path: `${BASE}/export`,
    operationId: "exportQuestionnaire",
    tags,
    summary: "The buyer's own file, answered (members)",
    description:
      'The uploaded file with its layout, sheets and styles kept, the answer column filled from accepted and edited rows (Markdown as plain text) and the evidence column with the public, version-pinned sources (the public answer, a cited control\'s …/versions/N/trust.json); "No answer" where there is none. Formulas are never kept live. The same decisions give the same bytes.',
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: QuestionnaireParams },
    responses: {
      200: {
        description: "The answered file, in the uploaded format",
        content: Object.fromEntries(
          Object.values(FILE_TYPES).map((type) => [type, { schema: Binary }]),
        ),
      },
      ...errors(400, 401, 403, 404),
    },
  }),
  async (c) => {
    const { organizationId, questionnaireId } = c.req.valid("param");
    const { organization } = await organizationCaller(c, organizationId);
    const exported = await exportQuestionnaire(c.var.services, {
      organization,
      id: questionnaireId,
    });
    return c.body(exported.bytes as Uint8Array<ArrayBuffer>, 200, {
      "content-type": FILE_TYPES[exported.record.format],
      "content-disposition": `attachment; filename="${exportFileName(exported.record)}"`,
      "cache-control": "no-store",
    });
  },
);

questionnaireFileRoutes.openapi(
  createRoute({
    method: "get",
    path: `${BASE}/manifest`,
    operationId: "getQuestionnaireManifest",
    tags,
    summary: "The signed manifest of the answered file (members)",
    description:
      "A compact JWS (EdDSA, the publication key of /.well-known/jwks.json, cty application/vnd.trust-profile.questionnaire-manifest+json) whose payload names the organization, the questionnaire, the SHA-256 of the file GET …/export returns now, and every answered row: its sheet and row, the SHA-256 of its question and of the answer written, its citations and the published versions they rest on (project, version, that version's trust.json digest and URL). Check it offline with the verifier kit: verify.ts questionnaire (docs/verifier_kit.md).",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: QuestionnaireParams },
    responses: {
      200: {
        description: "The manifest",
        content: { [MANIFEST_CONTENT_TYPE]: { schema: z.string() } },
      },
      ...errors(400, 401, 403, 404),
    },
  }),
  async (c) => {
    const { organizationId, questionnaireId } = c.req.valid("param");
    const { organization } = await organizationCaller(c, organizationId);
    const { services } = c.var;
    const exported = await exportQuestionnaire(services, { organization, id: questionnaireId });
    const manifest = await manifestOf(organization, exported, services.clock.now());
    const jws = await signManifest(services.keys.publications, manifest);
    return c.body(jws, 200, {
      "content-type": MANIFEST_CONTENT_TYPE,
      "content-disposition": `attachment; filename="${
        exportFileName(exported.record).replace(/\.\w+$/, "")
      }.manifest.jws"`,
      "cache-control": "no-store",
    });
  },
);

questionnaireFileRoutes.openapi(
  createRoute({
    method: "post",
    path: `${BASE}/share`,
    operationId: "shareQuestionnaire",
    tags,
    summary: "Share the answered file and its manifest through access links (owners)",
    description:
      "Stores the answered file and its signed manifest as two restricted, unlisted documents of the organization: their titles name the questionnaire (often the buyer), so no public page, list, feed or MCP tool names them. Send the buyer requestAccessUrl: there they ask for both, accepting the NDA; once an owner approves, the access link serves them and logs every download. Sharing again adds new documents. An organization holding the most documents is 409.",
    security: HUMAN,
    middleware: [requireHuman] as const,
    request: { params: QuestionnaireParams },
    responses: {
      201: json(
        DocumentResponse.extend({
          manifest: DocumentResponse.shape.document,
          requestAccessUrl: z.url().openapi({
            description:
              "The request form with both documents chosen: the only place they are offered, so send it to the buyer",
          }),
        }).openapi("SharedQuestionnaire"),
        "The shared documents: the answered file, and the manifest",
      ),
      ...errors(400, 401, 403, 404, 409),
    },
  }),
  async (c) => {
    const { organizationId, questionnaireId } = c.req.valid("param");
    const { organization, actor } = await organizationCaller(c, organizationId, "owner");
    const { services } = c.var;
    const shared = await shareQuestionnaire({ ...services, key: services.keys.publications }, {
      organization,
      id: questionnaireId,
      actor,
      now: services.clock.now(),
    });
    const warning = await restrictedWithoutNda(services.kv, organizationId, shared.document);
    const requestAccessUrl = requestUrlFor(services.config, organization.slug, [
      shared.document.id,
      shared.manifest.id,
    ]);
    return c.json({ ...shared, requestAccessUrl, ...(warning ? { warning } : {}) }, 201);
  },
);
