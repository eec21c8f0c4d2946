/**
 * The generated parts of the documentation, and `deno task docs`, which rewrites them:
 * README.md's configuration table, from the environment's schema (`Env` in src/config.ts, each
 * variable carrying its words), and docs/endpoints.md's reference, from /openapi.json (itself
 * generated from the routes). Each part sits between two markers; the text around them is
 * written by hand. tests/docs_test.ts fails when a file differs from a fresh generation.
 */
import { z } from "zod";
import { createApp, createServices } from "../src/app.ts";
import { createKvBlobStore } from "../src/blobs/kv.ts";
import { Env, loadConfig } from "../src/config.ts";
import { systemClock } from "../src/lib/clock.ts";
import { memoryLogger } from "../src/lib/log.ts";
import { denoFmt } from "./fmt.ts";

const ROOT = new URL("../", import.meta.url);

/** The opening and closing markers of a generated part. */
export function markers(part: string): [string, string] {
  return [
    `<!-- generated: ${part} (deno task docs); edit the source, not this -->`,
    `<!-- end of generated: ${part} -->`,
  ];
}

/** `text` with the part between its markers replaced by `generated`. */
export function replacePart(text: string, part: string, generated: string): string {
  const [open, close] = markers(part);
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  if (start < 0 || end < start) throw new Error(`the markers of "${part}" are missing`);
  return `${text.slice(0, start + open.length)}\n${generated}${text.slice(end)}`;
}

/** The part of `text` between the markers of `part`, as `replacePart` writes it. */
export function partOf(text: string, part: string): string {
  const [open, close] = markers(part);
  const start = text.indexOf(open);
  const end = text.indexOf(close);
  if (start < 0 || end < start) throw new Error(`the markers of "${part}" are missing`);
  return text.slice(start + open.length + 1, end);
}

/** A table cell: pipes escaped, so a description cannot split its row. */
const cell = (text: string) => text.replaceAll("|", "\\|");

/** The default a variable's schema gives, as it would be written in the environment. */
function schemaDefault(schema: z.ZodType): string | undefined {
  const def = (schema as unknown as { _zod: { def: { type: string; defaultValue?: unknown } } })
    ._zod.def;
  return def.type === "default" ? `\`${String(def.defaultValue)}\`` : undefined;
}

/** README's configuration table: one row per variable of the schema, in its order. */
export function configurationTable(): string {
  const rows = Object.entries(Env.shape).map(([name, schema]) => {
    const meta = z.globalRegistry.get(schema as z.ZodType) as
      | { description?: string; defaultText?: string }
      | undefined;
    if (!meta?.description) throw new Error(`${name} has no description in src/config.ts`);
    const fallback = schemaDefault(schema as z.ZodType) ?? meta.defaultText ?? "—";
    return `| \`${name}\` | ${cell(fallback)} | ${cell(meta.description)} |`;
  });
  return ["| Variable | Default | What it sets |", "| --- | --- | --- |", ...rows, ""].join("\n");
}

interface Operation {
  tags?: string[];
  summary?: string;
  description?: string;
  security?: Array<Record<string, unknown>>;
  parameters?: Array<{ name: string; in: string }>;
}

export interface ApiDocument {
  tags?: Array<{ name: string; description?: string }>;
  paths: Record<string, Record<string, Operation>>;
}

const METHODS = ["get", "put", "post", "patch", "delete", "head", "options"];

/** Who may call an operation, from its security requirement. */
function caller(operation: Operation): string {
  const schemes = (operation.security ?? []).flatMap((s) => Object.keys(s));
  if (schemes.length === 0) return "public";
  // An empty requirement among others: anyone may call, credentials add to the answer.
  if (operation.security!.some((s) => Object.keys(s).length === 0)) return "public";
  if (schemes.includes("collectorBearer")) return "collector";
  return "signed in";
}

/** One operation: its method, path and query, who calls it, its summary and its description. */
function operationEntry(method: string, path: string, operation: Operation): string {
  const query = (operation.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name);
  const target = query.length ? `${path}?${query.map((q) => `${q}=`).join("&")}` : path;
  const summary = operation.summary ?? "";
  const lines = [`- \`${method.toUpperCase()} ${target}\` (${caller(operation)}): ${summary}`];
  const description = operation.description?.trim();
  if (description && description !== summary) {
    lines.push(...description.split("\n").map((line) => line ? `  ${line}` : ""));
  }
  return lines.join("\n");
}

/** docs/endpoints.md's reference: every operation of the document, by tag in declared order. */
export function endpointsReference(doc: ApiDocument): string {
  const declared = (doc.tags ?? []).map((t) => t.name);
  const byTag = new Map<string, string[]>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const tag = operation.tags?.[0] ?? "Untagged";
      byTag.set(tag, [...byTag.get(tag) ?? [], operationEntry(method, path, operation)]);
    }
  }
  const order = [...declared, ...[...byTag.keys()].filter((t) => !declared.includes(t))];
  const sections = order.filter((tag) => byTag.has(tag)).map((tag) => {
    const about = doc.tags?.find((t) => t.name === tag)?.description;
    const entries = byTag.get(tag)!;
    return [`## ${tag}`, "", ...(about ? [about, ""] : []), ...entries, ""].join("\n");
  });
  const count = [...byTag.values()].reduce((n, entries) => n + entries.length, 0);
  return [`${count} operations under ${byTag.size} tags.`, "", ...sections].join("\n");
}

/** /openapi.json as the service answers it, from an in-process app on an in-memory KV. */
export async function apiDocument(): Promise<ApiDocument> {
  const kv = await Deno.openKv(":memory:");
  const config = loadConfig({ BASE_URL: "http://localhost:8000", KV_PATH: ":memory:" });
  const deps = {
    config,
    kv,
    blobs: createKvBlobStore(kv),
    clock: systemClock,
    log: memoryLogger(),
  };
  const services = await createServices(deps);
  try {
    const app = await createApp(deps, { services });
    const response = await app.request(`${config.baseUrl}/openapi.json`);
    if (!response.ok) throw new Error(`/openapi.json answered ${response.status}`);
    return await response.json();
  } finally {
    await services.jobs.stop(() => kv.close());
  }
}

/** Markdown as `deno fmt` writes it (tables aligned), so the quality test's check agrees. */
function formatted(markdown: string): Promise<string> {
  return denoFmt(markdown, "md");
}

/** The generated files, path → the text they should hold now. */
export async function generatedFiles(): Promise<Record<string, string>> {
  const read = (path: string) => Deno.readTextFile(new URL(path, ROOT));
  const readme = await read("README.md");
  const endpoints = await read("docs/endpoints.md");
  const reference = endpointsReference(await apiDocument());
  return {
    "README.md": await formatted(replacePart(readme, "configuration", configurationTable())),
    "docs/endpoints.md": await formatted(replacePart(endpoints, "endpoints", reference)),
  };
}

if (import.meta.main) {
  for (const [path, text] of Object.entries(await generatedFiles())) {
    const url = new URL(path, ROOT);
    if ((await Deno.readTextFile(url)) === text) continue;
    await Deno.writeTextFile(url, text);
    console.log(`wrote ${path}`);
  }
}
