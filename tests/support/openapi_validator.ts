/**
 * Validates response bodies against the schemas /openapi.json documents,
 * with Ajv's JSON Schema 2020-12 dialect (OpenAPI 3.1's).
 */
import { addFormats, Ajv2020 } from "../deps.ts";

type Schema = Record<string, unknown>;
interface Operation {
  operationId: string;
  security?: unknown[];
  responses: Record<string, { content?: Record<string, { schema?: Schema }> }>;
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

export interface DocumentedOperation {
  method: string;
  path: string;
  operation: Operation;
}

/** Every operation of the document, by operationId. */
export function operations(doc: OpenApiDocument): Map<string, DocumentedOperation> {
  const out = new Map<string, DocumentedOperation>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      out.set(operation.operationId, { method: method.toUpperCase(), path, operation });
    }
  }
  return out;
}

/** Rewrites `#/components/schemas/X` references so Ajv resolves them in one schema id. */
function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        k === "$ref" && typeof v === "string"
          ? v.replace("#/components/schemas/", "components.json#/$defs/")
          : rewriteRefs(v),
      ]),
    );
  }
  return value;
}

/** A checker of (operation, status, content type, body) against the document. */
export function createResponseValidator(doc: OpenApiDocument) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (a: unknown) => void)(ajv);
  ajv.addSchema({ $id: "components.json", $defs: rewriteRefs(doc.components.schemas) });
  return (
    op: DocumentedOperation,
    status: number,
    contentType: string,
    body: unknown,
  ): string[] => {
    const response = op.operation.responses[String(status)];
    if (!response) return [`status ${status} is not documented for ${op.operation.operationId}`];
    if (!response.content) return [];
    const media = Object.keys(response.content).find((m) => contentType.startsWith(m));
    if (!media) {
      return [`content type "${contentType}" is not documented for ${status}`];
    }
    const schema = response.content[media].schema;
    if (!schema || !media.includes("json")) return [];
    const validate = ajv.compile(rewriteRefs(schema) as Schema);
    if (validate(body)) return [];
    return (validate.errors ?? []).map((e: { instancePath: string; message?: string }) =>
      `${e.instancePath || "/"} ${e.message}`
    );
  };
}
