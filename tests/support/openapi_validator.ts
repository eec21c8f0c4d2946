/**
 * Validates response bodies, and requests, against the schemas /openapi.json documents,
 * with Ajv's JSON Schema 2020-12 dialect (OpenAPI 3.1's).
 */
import { addFormats, Ajv2020 } from "../deps.ts";

type Schema = Record<string, unknown>;
interface Operation {
  operationId: string;
  security?: unknown[];
  requestBody?: { required?: boolean; content: Record<string, { schema?: Schema }> };
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

/**
 * An Ajv for the document's components, and `compile`, which compiles each of the document's
 * schema objects once: Ajv caches a compilation by its schema object, and `rewriteRefs` makes a
 * new one at every call, so compiling per answer kept a new validator (about 10 KB of heap) for
 * every request a long fuzz run sent.
 */
function documentAjv(doc: OpenApiDocument) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (a: unknown) => void)(ajv);
  ajv.addSchema({ $id: "components.json", $defs: rewriteRefs(doc.components.schemas) });
  const compiled = new WeakMap<object, ReturnType<typeof ajv.compile>>();
  const compile = (schema: object) => {
    let validate = compiled.get(schema);
    if (!validate) compiled.set(schema, validate = ajv.compile(rewriteRefs(schema) as Schema));
    return validate;
  };
  return { compile };
}

/** A checker of (operation, status, content type, body) against the document. */
export function createResponseValidator(doc: OpenApiDocument) {
  const { compile } = documentAjv(doc);
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
    const validate = compile(schema);
    if (validate(body)) return [];
    return (validate.errors ?? []).map((e: { instancePath: string; message?: string }) =>
      `${e.instancePath || "/"} ${e.message}`
    );
  };
}

/**
 * A checker of a request's body against its operation's `requestBody`, as a validating proxy
 * (Prism) reads it: a body sent to an operation that declares none, no body where one is
 * required, a media type the operation does not list, or content its schema refuses. An
 * empty body counts as none. JSON is parsed, forms become objects of their string fields.
 */
export function createRequestValidator(doc: OpenApiDocument) {
  const { compile } = documentAjv(doc);
  return async (op: DocumentedOperation, request: Request): Promise<string[]> => {
    const declared = op.operation.requestBody;
    const text = await request.clone().text();
    const type = request.headers.get("content-type");
    if (!declared) {
      return text.length > 0 ? ["the operation declares no request body, yet one is sent"] : [];
    }
    if (text.length === 0) return declared.required ? ["the request body is required"] : [];
    const media = (type ?? "").split(";")[0].trim().toLowerCase();
    const entry = declared.content[media];
    if (!entry) return [`content type "${type}" is not documented for the request`];
    let value: unknown = text;
    if (/^application\/([\w.-]+\+)?json$/.test(media)) value = JSON.parse(text);
    if (media === "application/x-www-form-urlencoded") {
      value = Object.fromEntries(new URLSearchParams(text));
    }
    if (media === "multipart/form-data") {
      const form = await request.clone().formData();
      value = Object.fromEntries([...form].filter(([, v]) => typeof v === "string"));
    }
    if (!entry.schema) return [];
    const validate = compile(entry.schema);
    if (validate(value)) return [];
    return (validate.errors ?? []).map((e: { instancePath: string; message?: string }) =>
      `request ${e.instancePath || "/"} ${e.message}`
    );
  };
}
