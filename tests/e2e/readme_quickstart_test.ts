/**
 * The README's quickstart works on a machine with only Node.js and npm: every `deno` it runs
 * goes through `npx --yes deno@2.9.6`, every URL a command fetches is written with
 * `$BASE_URL` (the address the start printed) rather than a port; and steps 4 and 6 run as
 * written with bash against a live service, `npm` and `npx` stood in by scripts (`npm`
 * prints a CycloneDX SBOM and npm's audit of a real project, exiting 1 as npm audit does when
 * it finds vulnerabilities; `npx --yes deno@2.9.6` runs this Deno, which is that version). The
 * answers print what the README shows.
 */
import assert from "node:assert/strict";
import { clockEnv } from "../support/process.ts";
import { bootstrapAcme, jsonApi, startTestServer } from "../support/server.ts";

const README = await Deno.readTextFile(new URL("../../README.md", import.meta.url));
const QUICKSTART = README.slice(
  README.indexOf("## Quickstart"),
  README.indexOf("\n## ", README.indexOf("## Quickstart") + 1),
);
const STEPS = QUICKSTART.slice(QUICKSTART.indexOf("### Five minutes"));
const PINNED = "npx --yes deno@2.9.6";

/** The fenced blocks of `text` in language `lang`, without their indentation. */
function fenced(text: string, lang: string): string[] {
  return [...text.matchAll(new RegExp("^( *)```" + lang + "\\n([\\s\\S]*?)^ *```$", "gm"))]
    .map(([, indent, body]) => body.replace(new RegExp(`^${indent}`, "gm"), ""));
}

/**
 * Every command the quickstart shows a machine with only Node.js and npm: its shell blocks'
 * lines and the inline code of its steps (the paragraph for those with Deno installed names
 * bare `deno task` on purpose).
 */
function commands(): string[] {
  const blocks = fenced(QUICKSTART, "sh").flatMap((b) => b.replace(/\\\n\s*/g, "").split("\n"));
  const inline = [...STEPS.replace(/```[\s\S]*?```/g, "").matchAll(/`([^`\n]+)`/g)]
    .map((m) => m[1]);
  return [...blocks, ...inline].filter((c) => /\bdeno\b|\bcurl\b|\bnpx\b/.test(c));
}

Deno.test("[readme] every deno the quickstart runs goes through npx, with $BASE_URL, not a port", () => {
  const shown = commands();
  assert.ok(shown.length >= 6, shown.join("\n"));
  const bare = shown.filter((c) => /(^|[^@\w.-])deno (run|task)\b/.test(c) && !c.includes(PINNED));
  assert.deepEqual(bare, [], "commands that need Deno installed");
  const ported = shown.filter((c) => /(deno|curl)\b.*https?:\/\/localhost(:\d+)?\//.test(c));
  assert.deepEqual(ported, [], "commands whose URL breaks when PORT is set");
  for (const script of ["collector.ts", "verify.ts"]) {
    assert.ok(shown.some((c) => c.includes(`"$BASE_URL/${script}"`)), script);
  }
});

const SBOM = {
  bomFormat: "CycloneDX",
  specVersion: "1.5",
  version: 1,
  components: ["left-pad", "lodash", "minimist"].map((name) => ({
    type: "library",
    name,
    version: "1.0.0",
    purl: `pkg:npm/${name}@1.0.0`,
  })),
};

/** A PATH directory with `npm` and `npx` stood in, then Deno's own directory. */
async function standIns(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "readme-bin-" });
  const audit = new URL("../fixtures/npm-audit/acme-web.json", import.meta.url).pathname;
  await Deno.writeTextFile(`${dir}/sbom.json`, JSON.stringify(SBOM, null, 2));
  await Deno.writeTextFile(
    `${dir}/npm`,
    `#!/bin/sh
case "$1 $2" in
  "sbom --sbom-format") exec cat '${dir}/sbom.json' ;;
  "audit --json") cat '${audit}'; exit 1 ;;
esac
echo "npm stand-in: unexpected $*" >&2; exit 2
`,
  );
  await Deno.writeTextFile(
    `${dir}/npx`,
    `#!/bin/sh
[ "$1" = "--yes" ] && [ "$2" = "deno@2.9.6" ] || { echo "npx stand-in: $*" >&2; exit 127; }
shift 2
exec '${Deno.execPath()}' "$@"
`,
  );
  await Deno.chmod(`${dir}/npm`, 0o755);
  await Deno.chmod(`${dir}/npx`, 0o755);
  return dir;
}

async function bash(script: string, cwd: string, env: Record<string, string>) {
  const out = await new Deno.Command("bash", {
    args: ["-euo", "pipefail", "-c", script],
    cwd,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decode = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: decode(out.stdout), stderr: decode(out.stderr) };
}

/** A line of the README's sample output as a pattern: an id cut short with `…` is any id. */
function sampleLine(line: string): RegExp {
  const escaped = line.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/[0-9a-f-]*…/g, "[0-9a-f-]+")
    .replace("not evaluated ->", "(?:not evaluated|unknown) ->");
  return new RegExp(`^${escaped}$`);
}

Deno.test("[readme] quickstart steps 4 and 6 run as written where only Node.js and npm are installed", async (t) => {
  assert.equal(Deno.version.deno, "2.9.6", "the version the README pins");
  await using server = await startTestServer();
  const token = await server.tokenFor("alice");
  const api = jsonApi(server.baseUrl, token);
  const projectId = await bootstrapAcme(api);
  const created = await api("POST", `/projects/${projectId}/collectors`, { name: "ci" });
  assert.equal(created.status, 201);
  const bin = await standIns();
  const cwd = await Deno.makeTempDir({ prefix: "readme-project-" });
  const env: Record<string, string> = {
    PATH: `${bin}:/usr/bin:/bin`,
    HOME: Deno.env.get("HOME") ?? "/root",
    NO_COLOR: "1",
    ...clockEnv(),
  };
  const denoDir = Deno.env.get("DENO_DIR");
  if (denoDir) env.DENO_DIR = denoDir;
  const ids = `export BASE_URL=${server.baseUrl} TRUST_PROJECT_ID=${projectId} ` +
    `TRUST_COLLECTOR_ID=${created.json.collector.id} ` +
    `TRUST_COLLECTOR_SECRET=${created.json.secret.value}`;
  try {
    await t.step("step 4 sends both documents and prints what the README shows", async () => {
      const [block] = fenced(STEPS.slice(STEPS.indexOf("4. **Evidence.**")), "sh");
      const [first, ...rest] = block.split("\n");
      assert.match(first, /^export BASE_URL=http:\/\/localhost:8000 TRUST_PROJECT_ID=… /);
      const run = await bash([ids, ...rest].join("\n"), cwd, env);
      assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
      const [sample] = fenced(STEPS, "text");
      const printed = run.stdout.split("\n");
      for (const line of sample.trimEnd().split("\n")) {
        assert.ok(printed.some((p) => sampleLine(line).test(p)), `${line}\nin:\n${run.stdout}`);
      }
      assert.match(
        run.stdout,
        /^ {2}audit\.json: read \(format npm-audit\): npm audit report: .*$/m,
        "the audit's reading",
      );
      assert.match(
        run.stdout,
        /^ {2}control Vulnerability scan \(evidence\.vulnerability_scan\): .*-> fail/m,
      );
    });

    await t.step("step 6's verify command checks the published version", async () => {
      const published = await api("POST", `/projects/${projectId}/publish`);
      assert.equal(published.status, 201);
      const step6 = STEPS.slice(STEPS.indexOf("6. **View and verify.**"));
      const command = [...step6.matchAll(/`([^`]*verify\.ts[^`]*)`/g)][0][1];
      assert.ok(command.startsWith(PINNED), command);
      const run = await bash(`${ids}\n${command.replace("<slug>", "acme")}`, cwd, env);
      assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
      assert.match(run.stdout, /--pin jwks=/, "it prints the command that pins the keys");
    });
  } finally {
    await Deno.remove(bin, { recursive: true });
    await Deno.remove(cwd, { recursive: true });
  }
});
