/**
 * The publication log's public API, mounted at /log: its description and
 * verifier key, the latest signed checkpoint (C2SP tlog-checkpoint), entries,
 * a public project's entries, inclusion proofs (by leaf index, or by a public project's version)
 * and consistency proofs between two tree sizes, all with RFC 6962 hashing. The description is
 * negotiated like the version history: JSON by default, an HTML page for browsers, Markdown
 * for agents; /log.json, /log.html and /log.md choose.
 */
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import {
  LogConsistencyProof,
  LogEntryResponse,
  LogInclusionProof,
  LogInfo,
  LogProjectEntries,
  LogProjectEntriesQuery,
} from "../../domain/log.ts";
import { SlugParams } from "../../domain/publish.ts";
import {
  consistencyProof,
  inclusionProof,
  latestCheckpoint,
  LOG_CACHE,
  logEntry,
  logInfo,
  projectLogEntries,
  publicationInclusionProof,
} from "../../serve/log.ts";
import { renderLogHtml, renderLogMarkdown } from "../../publish/render/log.ts";
import { MARKDOWN_TYPE, trustPageHeaders } from "../../serve/headers.ts";
import { type AppEnv, createRouter } from "../env.ts";
import { negotiatedFormat, type PublicFormat } from "../negotiation.ts";
import { documentedJson, errors, json } from "../openapi.ts";

export const logRoutes = createRouter();
/** /log.json, /log.html and /log.md, mounted at the root. */
export const logPageRoutes = createRouter();

const tags = ["Publication log"];

const count = (name: string, min: number, where: "path" | "query", example: number) =>
  z.coerce.number().int().min(min).max(Number.MAX_SAFE_INTEGER).openapi({
    // Path parameters say `required` themselves: zod-openapi leaves it out for some of them.
    param: where === "path" ? { name, in: where, required: true } : { name, in: where },
    example,
  });

const TreeSizeQuery = z.object({
  treeSize: count("treeSize", 1, "query", 12).optional().openapi({
    description: "The tree size to prove against (default: the log's current size)",
  }),
});

const LogContent = {
  "application/json": { schema: LogInfo },
  "text/html": { schema: z.string() },
  "text/markdown": { schema: z.string() },
};

/** The log's description in `format`. */
async function describeLog(c: Context<AppEnv>, format: PublicFormat): Promise<Response> {
  const { services } = c.var;
  const info = await logInfo(services);
  const headers = { "cache-control": LOG_CACHE, vary: "Accept" };
  if (format === "json") return c.json(info, 200, headers);
  const base = services.config.baseUrl;
  const input = {
    info,
    links: {
      json: `${base}/log.json`,
      markdown: `${base}/log.md`,
      checkpoint: info.checkpoint,
      verifyKit: `${base}/verify.ts`,
      entries: `${base}/log/entries/`,
      consistency: `${base}/log/consistency`,
    },
  };
  if (format === "md") {
    return c.body(renderLogMarkdown(input), 200, { ...headers, "content-type": MARKDOWN_TYPE });
  }
  return c.body(renderLogHtml(input), 200, { ...headers, ...trustPageHeaders() });
}

logRoutes.openapi(
  createRoute({
    method: "get",
    path: "/",
    operationId: "getLogInfo",
    tags,
    summary: "The publication log: origin, checkpoint verifier key, size and entry format",
    description:
      "JSON by default, an HTML page for Accept: text/html, Markdown for Accept: text/markdown; /log.json, /log.html and /log.md choose explicitly.",
    responses: { 200: { content: LogContent, description: "The log's description" } },
  }),
  async (c) => documentedJson(LogInfo, await describeLog(c, negotiatedFormat(c))),
);

for (
  const [suffix, type, operationId] of [
    ["json", "application/json", "getLogInfoJson"],
    ["html", "text/html", "getLogPage"],
    ["md", "text/markdown", "getLogMarkdown"],
  ] as const
) {
  logPageRoutes.openapi(
    createRoute({
      method: "get",
      path: `/log.${suffix}`,
      operationId,
      tags,
      summary: `The publication log's description as ${
        suffix === "json" ? "JSON" : suffix === "html" ? "an HTML page" : "Markdown"
      }`,
      responses: {
        200: {
          content: { [type]: { schema: suffix === "json" ? LogInfo : z.string() } },
          description: "The log's description",
        },
      },
    }),
    async (c) => await describeLog(c, suffix),
  );
}

logRoutes.openapi(
  createRoute({
    method: "get",
    path: "/checkpoint",
    operationId: "getLogCheckpoint",
    tags,
    summary: "The latest checkpoint, a C2SP signed note (tlog-checkpoint)",
    description:
      "Origin line, tree size and base64 root hash, a blank line, then an Ed25519 note signature line verifiable with the verifierKey of GET /log.",
    responses: {
      200: {
        content: { "text/plain": { schema: z.string() } },
        description: "The signed checkpoint",
      },
    },
  }),
  async (c) => {
    const note = await latestCheckpoint(c.var.services);
    return c.text(note, 200, {
      "content-type": "text/plain; charset=utf-8",
      "cache-control": LOG_CACHE,
    });
  },
);

logRoutes.openapi(
  createRoute({
    method: "get",
    path: "/entries/{index}",
    operationId: "getLogEntry",
    tags,
    summary: "One log entry: its leaf hash and canonical text",
    request: { params: z.object({ index: count("index", 0, "path", 0) }) },
    responses: { 200: json(LogEntryResponse, "The entry"), ...errors(404) },
  }),
  async (c) => {
    const body = await logEntry(c.var.services, c.req.valid("param").index);
    return c.json(body, 200, { "cache-control": LOG_CACHE });
  },
);

logRoutes.openapi(
  createRoute({
    method: "get",
    path: "/entries/{index}/inclusion",
    operationId: "getLogInclusionProofByIndex",
    tags,
    summary: "Inclusion proof of one entry, with the signed checkpoint it proves against",
    request: {
      params: z.object({ index: count("index", 0, "path", 0) }),
      query: TreeSizeQuery,
    },
    responses: { 200: json(LogInclusionProof, "The proof"), ...errors(404) },
  }),
  async (c) => {
    const { index } = c.req.valid("param");
    const body = await inclusionProof(c.var.services, index, c.req.valid("query").treeSize);
    return c.json(body, 200, { "cache-control": LOG_CACHE });
  },
);

logRoutes.openapi(
  createRoute({
    method: "get",
    path: "/publications/{projectSlug}",
    operationId: "listLogEntriesOfProject",
    tags,
    summary: "A public project's entries in the log, oldest first",
    description:
      "Every logged version of the project with its leaf index, leaf hash and entry text, in the tree of `treeSize` entries (default: the current size), so a verifier can check that the versions it was shown are exactly the project's entries. 404 for private and unknown projects.",
    request: { params: SlugParams, query: LogProjectEntriesQuery },
    responses: { 200: json(LogProjectEntries, "One page of entries"), ...errors(400, 404) },
  }),
  async (c) => {
    const { projectSlug } = c.req.valid("param");
    const body = await projectLogEntries(c.var.services, {
      slug: projectSlug,
      ...c.req.valid("query"),
    });
    return c.json(body, 200, { "cache-control": LOG_CACHE });
  },
);

logRoutes.openapi(
  createRoute({
    method: "get",
    path: "/publications/{projectSlug}/{version}/inclusion",
    operationId: "getLogInclusionProofByVersion",
    tags,
    summary: "Inclusion proof of a public project's published version",
    request: {
      params: SlugParams.extend({ version: count("version", 1, "path", 3) }),
      query: TreeSizeQuery,
    },
    responses: { 200: json(LogInclusionProof, "The proof"), ...errors(404) },
  }),
  async (c) => {
    const { projectSlug, version } = c.req.valid("param");
    const body = await publicationInclusionProof(c.var.services, {
      slug: projectSlug,
      version,
      treeSize: c.req.valid("query").treeSize,
    });
    return c.json(body, 200, { "cache-control": LOG_CACHE });
  },
);

logRoutes.openapi(
  createRoute({
    method: "get",
    path: "/consistency",
    operationId: "getLogConsistencyProof",
    tags,
    summary: "Consistency proof: the tree of `from` entries is a prefix of the tree of `to`",
    request: {
      query: z.object({
        from: count("from", 1, "query", 5),
        to: count("to", 1, "query", 12).optional().openapi({
          description: "The larger tree size (default: the log's current size)",
        }),
      }),
    },
    responses: { 200: json(LogConsistencyProof, "The proof"), ...errors(404) },
  }),
  async (c) => {
    const { from, to } = c.req.valid("query");
    const body = await consistencyProof(c.var.services, from, to);
    return c.json(body, 200, { "cache-control": LOG_CACHE });
  },
);
