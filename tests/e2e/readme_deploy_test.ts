/**
 * The Deno Deploy checklist (docs/deploy.md, "The checklist", which README links): its shell
 * command (a rehearsal of Deploy mode on Deno 2.5.0) runs as written with bash, with one change:
 * port 8000 becomes a free port, since this machine is shared. What the section says of that run
 * holds: the address comes from DENO_SERVE_ADDRESS, `DENO_DEPLOY` alone chooses no purge,
 * readiness is 200, and SIGINT stops it cleanly. Every docs.deno.com page the checklist names is
 * also quoted in the rest of docs/deploy.md.
 */
import assert from "node:assert/strict";
import { freePort } from "../support/process.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const RECORD = await Deno.readTextFile(`${ROOT}docs/deploy.md`);
const HEADING = "## The checklist\n";
const SECTION = RECORD.slice(
  RECORD.indexOf(HEADING),
  RECORD.indexOf("\n## ", RECORD.indexOf(HEADING)),
);

/** The lines of the section's `sh` blocks. */
function commands(): string[] {
  return [...SECTION.matchAll(/^```sh\n([\s\S]*?)^```$/gm)]
    .flatMap(([, body]) => body.replace(/\\\n\s*/g, "").split("\n"))
    .filter((line) => line.trim() !== "");
}

Deno.test("[readme] every page the Deploy checklist cites is quoted in docs/deploy.md", () => {
  assert.ok(RECORD.includes(HEADING), "docs/deploy.md has the checklist");
  const readme = Deno.readTextFileSync(`${ROOT}README.md`);
  assert.ok(readme.includes("(docs/deploy.md)"), "README links the checklist");
  const record = RECORD.replace(SECTION, "");
  const pages = new Set(
    [...SECTION.matchAll(/https:\/\/docs\.deno\.com\/deploy\/([a-z_/]+?)\/?\)/g)].map((m) => m[1]),
  );
  assert.ok(pages.size >= 8, [...pages].join(", "));
  for (const page of pages) assert.ok(record.includes(`docs.deno.com/deploy/${page}`), page);
});

Deno.test("[readme] the Deploy rehearsal command runs as written", async () => {
  const shown = commands();
  assert.equal(shown.length, 1, shown.join("\n"));
  assert.match(shown[0], /npx --yes deno@2\.5\.0 run -A deploy\.ts$/);
  const port = freePort();
  const command = shown[0].replaceAll("8000", String(port));
  const kvFile = `${ROOT}data/rehearsal.sqlite3`;
  const existed = await Deno.stat(kvFile).then(() => true, () => false);
  const dirExisted = await Deno.stat(`${ROOT}data`).then(() => true, () => false);
  // Its own process group, so that SIGINT reaches Deno under npx as Ctrl-C would.
  const child = new Deno.Command("setsid", {
    args: ["bash", "-c", command],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines: string[] = [];
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      lines.push(...chunk.split("\n"));
    }
  };
  const pumps = Promise.all([pump(child.stdout), pump(child.stderr)]);
  try {
    const deadline = Date.now() + 120_000;
    while (!lines.some((l) => l.startsWith("Trust Profile Service listening on"))) {
      assert.ok(Date.now() < deadline, lines.join("\n"));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const listening = lines.find((l) => l.startsWith("Trust Profile Service listening on"))!;
    assert.match(listening, new RegExp(`http://127\\.0\\.0\\.1:${port} `));
    // The banner's lines follow the listening line, possibly in a later chunk of output.
    while (!lines.some((l) => l.startsWith("CDN purge: none: DENO_DEPLOY is set but"))) {
      assert.ok(Date.now() < deadline, lines.join("\n"));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const ready = await fetch(`http://127.0.0.1:${port}/health/ready`);
    const body = await ready.json();
    assert.equal(ready.status, 200, JSON.stringify(body));
    assert.equal(body.edge.purge, "none");
    assert.equal(body.storage.state, "local");
  } finally {
    Deno.kill(-child.pid, "SIGINT");
    const status = await child.status;
    await pumps;
    if (!existed) {
      for (const suffix of ["", "-shm", "-wal"]) await Deno.remove(kvFile + suffix).catch(() => {});
    }
    // The directory the command's KV_PATH created goes too, if it is left empty.
    if (!dirExisted) await Deno.remove(`${ROOT}data`).catch(() => {});
    // Deno stopped on its own terms; the shell and npx around it end as Ctrl-C ends them (130).
    assert.ok(lines.some((l) => /^Stopped in \d+ ms/.test(l)), lines.join("\n"));
    assert.ok([0, 130].includes(status.code), `exit ${status.code}\n${lines.join("\n")}`);
  }
});
