/**
 * No regular expression in src/ can be made to take super-linear time: every pattern (regex
 * literals, `new RegExp("…")` with literal strings, and the route patterns the not-found handler
 * builds at run time) goes through scslre, the checker behind eslint-plugin-regexp's
 * `no-super-linear-backtracking` and `no-super-linear-move` rules, and any finding fails the
 * suite. A pattern that cannot be rewritten may be kept only through ALLOWED below, each entry
 * naming its file, its pattern and the bound on its input that makes it harmless.
 */
import assert from "node:assert/strict";
import { routeTable } from "../../src/http/not_found.ts";
import { createTestApp } from "../support/app.ts";
import {
  type FoundRegex,
  regexesOf,
  sourceFiles,
  superLinearFindings,
  type UncheckedRegex,
} from "./regex_check.ts";

const SRC = new URL("../../src/", import.meta.url);

/**
 * Findings kept on purpose: file (relative to src/), the pattern's source, and why its input
 * is bounded tightly enough. Keep this list short; rewriting the pattern is the first choice.
 */
const ALLOWED: { file: string; source: string; bound: string }[] = [];

/**
 * `RegExp`s built from something other than literals, and where their patterns are checked
 * instead (they cannot be read from the source).
 */
const DYNAMIC: { file: string; checkedBy: string }[] = [
  {
    file: "http/not_found.ts",
    checkedBy: "the test below that builds the app and checks every route pattern",
  },
  {
    file: "questionnaire/xlsx_package.ts",
    checkedBy: "the test below that checks its attribute pattern with the names the patcher sets",
  },
];

async function srcRegexes(): Promise<{ found: FoundRegex[]; unchecked: UncheckedRegex[] }> {
  const found: FoundRegex[] = [];
  const unchecked: UncheckedRegex[] = [];
  for (const url of await sourceFiles(SRC)) {
    const file = url.href.slice(SRC.href.length);
    const result = regexesOf(file, await Deno.readTextFile(url));
    found.push(...result.found);
    unchecked.push(...result.unchecked);
  }
  return { found, unchecked };
}

Deno.test("[quality] the checker finds the attribute pattern the XML reader used to have", () => {
  // The pattern src/questionnaire/xml.ts matched attributes with: `<a ` and 120,000 characters
  // without "=" held the event loop for seconds (every start tried every length).
  const old = String.raw`([^\s=]+)\s*=\s*("([^"]*)"|'([^']*)')`;
  const findings = superLinearFindings(old, "g");
  assert.ok(findings.length > 0, "the old attribute pattern is reported");
  assert.ok(findings.some((f) => f.type === "Move"), JSON.stringify(findings));
  // And the checker tells backtracking apart from a linear pattern.
  assert.ok(superLinearFindings(String.raw`^(a+)+$`, "").some((f) => f.exponential));
  assert.ok(superLinearFindings(String.raw`^\d+\s*\d+$`, "").length > 0);
  assert.deepEqual(superLinearFindings(String.raw`^[a-z]+$`, ""), []);
  assert.deepEqual(superLinearFindings(String.raw`(?<!\/)\/+$`, ""), []);
});

Deno.test("[quality] the collector reads literals and literal RegExp calls from the AST", () => {
  const { found, unchecked } = regexesOf(
    "sample.ts",
    [
      `const a = /x+y/g;`,
      `const b = new RegExp("a*b", "i");`,
      `const c = RegExp(\`^c\$\`);`,
      `const d = new RegExp(name);`,
      `const e = "/not a regex/";`,
    ].join("\n"),
  );
  assert.deepEqual(found.map((r) => [r.line, r.source, r.flags]), [
    [1, "x+y", "g"],
    [2, "a*b", "i"],
    [3, "^c$", ""],
  ]);
  assert.deepEqual(unchecked.map((r) => r.line), [4]);
});

Deno.test("[quality] no regular expression in src/ takes super-linear time", async () => {
  const { found, unchecked } = await srcRegexes();
  assert.ok(found.length > 100, `only ${found.length} patterns found: the collector is broken`);
  const failures: string[] = [];
  const allowedUsed = new Set<number>();
  for (const regex of found) {
    const findings = superLinearFindings(regex.source, regex.flags);
    if (findings.length === 0) continue;
    const allowed = ALLOWED.findIndex((a) => a.file === regex.file && a.source === regex.source);
    if (allowed >= 0) {
      allowedUsed.add(allowed);
      continue;
    }
    failures.push(
      `src/${regex.file}:${regex.line} /${regex.source}/${regex.flags}: ${
        findings.map((f) => f.message).join("; ")
      }`,
    );
  }
  assert.deepEqual(
    failures,
    [],
    "super-linear patterns (rewrite them, or allow one with its bound)",
  );
  const stale = ALLOWED.filter((_, i) => !allowedUsed.has(i));
  assert.deepEqual(stale, [], "allow-list entries that no longer match a finding");
  const dynamic = unchecked.filter((r) => !DYNAMIC.some((d) => d.file === r.file));
  assert.deepEqual(
    dynamic.map((r) => `src/${r.file}:${r.line} ${r.text}`),
    [],
    "RegExps built from non-literals: check their patterns and list them in DYNAMIC",
  );
});

Deno.test("[quality] the not-found handler's route patterns take linear time", async () => {
  await using ctx = await createTestApp();
  const table = routeTable(ctx.app);
  assert.ok(table.length > 50, `only ${table.length} routes`);
  const failures = table.flatMap(({ pattern }) => {
    const findings = superLinearFindings(pattern.source, pattern.flags);
    return findings.length ? [`/${pattern.source}/: ${findings.map((f) => f.message)}`] : [];
  });
  assert.deepEqual(failures, []);
});

Deno.test("[quality] the workbook patcher's attribute pattern takes linear time for every name it sets", () => {
  // The pattern of `withAttribute` in src/questionnaire/xlsx_package.ts, for each attribute
  // name the patcher passes (a name's `.` and `:` escaped, as it does).
  for (const name of ["state", "localSheetId", "activeTab", "firstSheet", "r:id"]) {
    const escaped = name.replace(/[.:]/g, "\\$&");
    const source = `\\s${escaped}\\s*=\\s*("[^"]*"|'[^']*')`;
    assert.deepEqual(superLinearFindings(source, ""), [], name);
  }
});
