/**
 * `deno task kit`: joins the verifier kit's source (src/cli/verify/: the entry main.ts and one
 * module a concern, importing each other by relative URL) into src/cli/verify.ts, the one file
 * with no imports that GET /verify.ts serves, so a buyer can keep a single copy and run it
 * offline. The modules' code is copied as it is, in an order where each comes after the
 * modules it uses; their imports are dropped, and `export` is kept only on what the entry
 * exports. tests/http/verifier_kit_modules_test.ts fails when the file differs from a fresh join.
 */

import { denoFmt } from "./fmt.ts";

const ROOT = new URL("../", import.meta.url);
const DIR = new URL("src/cli/verify/", ROOT);
/** The joined kit, served at /verify.ts. */
export const JOINED = new URL("src/cli/verify.ts", ROOT);

/** The modules in the order they are joined (each after those it uses), then the entry. */
const ORDER = [
  "bytes.ts",
  "log_proofs.ts",
  "args.ts",
  "net.ts",
  "report.ts",
  "jws.ts",
  "versions.ts",
  "publisher.ts",
  "log.ts",
  "profile.ts",
  "organization.ts",
  "questionnaire.ts",
];
const ENTRY = "main.ts";

const IMPORT = /^import\b[^;]*;\n/gm;
const RE_EXPORT = /^export\s*\{([^}]*)\}\s*from\s*"[^"]+";\n/gm;
const DECLARATION = /^export (async function\*? |function |const |interface |type |class )(\w+)/gm;

/** A module's text split into its leading doc comment (without the markers) and the rest. */
function splitDoc(name: string, text: string): { doc: string[]; body: string } {
  const end = text.indexOf("*/\n");
  if (!text.startsWith("/**") || end < 0) throw new Error(`${name} opens with no doc comment`);
  const doc = text.slice(3, end).split("\n").map((line) => line.replace(/^ \*( |$)/, "").trimEnd())
    .filter((line, i, all) => !(line === "" && (i === 0 || i === all.length - 1)));
  return { doc, body: text.slice(end + 3) };
}

/** `deno fmt` of TypeScript text, with the project's settings. */
function formatted(text: string): Promise<string> {
  return denoFmt(text, "ts");
}

/** The joined kit, as src/cli/verify.ts must read. */
export async function joinedKit(): Promise<string> {
  const present: string[] = [];
  for await (const entry of Deno.readDir(DIR)) if (entry.isFile) present.push(entry.name);
  const unknown = present.filter((name) => name !== ENTRY && !ORDER.includes(name));
  const missing = [...ORDER, ENTRY].filter((name) => !present.includes(name));
  if (unknown.length || missing.length) {
    throw new Error(
      `scripts/verify_kit.ts's ORDER is not the directory: add ${unknown.join(", ") || "none"}, ` +
        `remove ${missing.join(", ") || "none"}`,
    );
  }
  const read = (name: string) => Deno.readTextFile(new URL(name, DIR));
  const entry = splitDoc(ENTRY, await read(ENTRY));
  const exported = new Set(
    [...entry.body.matchAll(RE_EXPORT)].flatMap((m) =>
      m[1].split(",").map((name) => name.trim().replace(/^type /, "")).filter(Boolean)
    ),
  );
  const publicOnly = (body: string) =>
    body.replace(
      DECLARATION,
      (all, kind, name) => exported.has(name) ? all : `${kind}${name}`,
    );
  const at = entry.doc.indexOf("@module");
  const header = [
    ...entry.doc.slice(0, at),
    "Joined from src/cli/verify/ by `deno task kit` (scripts/verify_kit.ts): edit those",
    "modules, not this file.",
    "",
    ...entry.doc.slice(at),
  ];
  const parts = [`/**\n${header.map((line) => ` *${line ? ` ${line}` : ""}`).join("\n")}\n */`];
  for (const name of ORDER) {
    const { doc, body } = splitDoc(name, await read(name));
    const about = doc.filter((line) => line !== "@module");
    while (about.at(-1) === "") about.pop();
    parts.push(
      `// ${"-".repeat(94)}\n// ${name}\n// ${about.join("\n// ")}`,
      publicOnly(body.replace(IMPORT, "")).trim(),
    );
  }
  parts.push(
    `// ${
      "-".repeat(94)
    }\n// ${ENTRY}\n// The command line: the check of a trust profile, or of a questionnaire.`,
    publicOnly(entry.body.replace(IMPORT, "").replace(RE_EXPORT, "")).trim(),
  );
  return await formatted(`${parts.join("\n\n")}\n`);
}

if (import.meta.main) {
  const text = await joinedKit();
  if ((await Deno.readTextFile(JOINED).catch(() => "")) !== text) {
    await Deno.writeTextFile(JOINED, text);
    console.log("wrote src/cli/verify.ts");
  }
}
