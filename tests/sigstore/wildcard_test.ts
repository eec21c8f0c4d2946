/**
 * Wildcard patterns of signer identities and artifact names: the matcher agrees with the
 * regular expression it replaced on random small patterns and subjects (fast-check), keeps
 * the limits it states, and answers patterns that made that regular expression backtrack for
 * seconds (`********Z` against a real bundle's subject, 400 `*` against a long subject) in
 * linear time.
 */
import assert from "node:assert/strict";
import { fc } from "../deps.ts";
import type { SubjectRule } from "../../src/domain/sigstore.ts";
import { subjectMatches } from "../../src/domain/sigstore.ts";
import {
  MAX_WILDCARD_PATTERN,
  MAX_WILDCARDS,
  wildcardLimitProblem,
  wildcardMatches,
} from "../../src/lib/wildcard.ts";
import { createSigstoreVerifier } from "../../src/sigstore/verify.ts";

const FIXTURES = new URL("../fixtures/sigstore/", import.meta.url);
const read = (name: string) => JSON.parse(Deno.readTextFileSync(new URL(name, FIXTURES)));
const ISSUER = "https://token.actions.githubusercontent.com";
const DELEGATOR_SIGNER = "https://github.com/slsa-framework/slsa-github-generator/.github/" +
  "workflows/delegator_generic_slsa3.yml@refs/tags/v2.1.0";

/** The semantics as a regular expression (what the service compiled before): the oracle. */
function reference(pattern: string, subject: string): boolean {
  if (!pattern.includes("*")) return pattern === subject;
  const source = pattern.split("*").map((part) => part.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&"))
    .join("[^/@]*");
  return new RegExp(`^${source}$`, "s").test(subject);
}

/** What `fn` returns and the milliseconds it took, printed under `label`. */
function timed<T>(label: string, fn: () => T): [T, number] {
  const start = performance.now();
  const value = fn();
  const ms = performance.now() - start;
  console.log(`${label}: ${ms.toFixed(1)} ms`);
  return [value, ms];
}

Deno.test("[sigstore] wildcardMatches() agrees with the regular expression on random inputs", () => {
  // Few letters, so literal parts repeat and overlap, and both separators.
  const subjectChar = fc.constantFrom("a", "b", "/", "@", ".", "\n");
  const patternChar = fc.constantFrom("a", "b", "/", "@", ".", "*", "*");
  const subject = fc.array(subjectChar, { maxLength: 14 }).map((c) => c.join(""));
  const pattern = fc.array(patternChar, { maxLength: 10 }).map((c) => c.join(""));
  fc.assert(
    fc.property(pattern, subject, (p, s) => wildcardMatches(p, s) === reference(p, s)),
    { numRuns: 20_000 },
  );
  // A subject built from the pattern itself (each * replaced by some run) matches whenever
  // the runs avoid separators, and the oracle agrees either way.
  fc.assert(
    fc.property(
      pattern,
      fc.array(fc.array(subjectChar, { maxLength: 4 }).map((c) => c.join("")), {
        minLength: 11,
        maxLength: 11,
      }),
      (p, runs) => {
        const s = p.split("*").map((part, i) => (i === 0 ? part : `${runs[i]}${part}`)).join("");
        return wildcardMatches(p, s) === reference(p, s);
      },
    ),
    { numRuns: 20_000 },
  );
});

Deno.test("[sigstore] wildcardMatches(): the stated semantics, row by row", async (t) => {
  const rows: { name: string; pattern: string; subject: string; expected: boolean }[] = [
    { name: "exact", pattern: "a/b@c", subject: "a/b@c", expected: true },
    { name: "exact, differing", pattern: "a/b@c", subject: "a/b@d", expected: false },
    { name: "* matches none", pattern: "ab*", subject: "ab", expected: true },
    { name: "* matches a run", pattern: "a*z", subject: "abcz", expected: true },
    { name: "* never matches /", pattern: "a*z", subject: "a/z", expected: false },
    { name: "* never matches @", pattern: "a*z", subject: "a@z", expected: false },
    { name: "literal / in the pattern", pattern: "a*/z", subject: "ab/z", expected: true },
    { name: "overlapping middle parts", pattern: "*aba*ab", subject: "ababab", expected: true },
    { name: "prefix and suffix cannot overlap", pattern: "ab*ba", subject: "aba", expected: false },
    { name: "only stars", pattern: "***", subject: "", expected: true },
    { name: "no regular expression syntax", pattern: "a.c*", subject: "abcd", expected: false },
    { name: "line breaks are characters", pattern: "a*z", subject: "a\nz", expected: true },
  ];
  for (const row of rows) {
    await t.step(row.name, () => {
      assert.equal(wildcardMatches(row.pattern, row.subject), row.expected);
      assert.equal(reference(row.pattern, row.subject), row.expected, "the oracle agrees");
    });
  }
});

Deno.test("[sigstore] wildcard limits: at most 8 * and, with any, 256 characters", () => {
  assert.equal(MAX_WILDCARDS, 8);
  assert.equal(MAX_WILDCARD_PATTERN, 256);
  assert.equal(wildcardLimitProblem("x".repeat(500)), null, "no * : the field's own limit");
  assert.equal(wildcardLimitProblem("********Z"), null);
  assert.equal(
    wildcardLimitProblem("*********Z"),
    'A pattern may have at most 8 "*" wildcards; this one has 9',
  );
  assert.equal(wildcardLimitProblem(`*${"x".repeat(255)}`), null);
  assert.equal(
    wildcardLimitProblem(`*${"x".repeat(256)}`),
    'A pattern with "*" may be at most 256 characters long; this one has 257',
  );
});

Deno.test("[sigstore] patterns that made the regular expression backtrack answer in linear time", async (t) => {
  const bundle = read("slsa-delegator-v2.1.0.sigstore.json");
  const verifier = createSigstoreVerifier(read("trusted_root.public-good.json"));

  await t.step("artifact name ********Z against the real bundle's subject: under 1 s", () => {
    const rule: SubjectRule = {
      setting: { requireMatch: true, digestsFrom: [], artifactNames: ["********Z"] },
      reported: {},
    };
    const identities = [{ issuer: ISSUER, subject: DELEGATOR_SIGNER }];
    const [result, ms] = timed(
      "********Z against the delegator bundle",
      () => verifier.check(bundle, identities, rule),
    );
    assert.ok(ms < 1000, `${ms} ms`);
    assert.equal(result?.verified, false);
    assert.match(JSON.stringify(result), /matches none of the 1 artifact name pattern/);
  });

  await t.step("a 400-star identity against the real signer: under 1 s", () => {
    const identities = [{ issuer: ISSUER, subject: `${"*".repeat(400)}Z` }];
    const [result, ms] = timed(
      "400 * + Z against the delegator signer",
      () => verifier.check(bundle, identities, undefined),
    );
    assert.ok(ms < 1000, `${ms} ms`);
    assert.match(JSON.stringify(result), /is not an expected identity/);
  });

  await t.step("400 stars against a 1 MB subject without separators: under 1 s", () => {
    const subject = "a".repeat(1_000_000);
    const patterns = [
      `${"*".repeat(400)}Z`,
      `${"*a".repeat(200)}Z`,
      `*${"a".repeat(100)}*${"a".repeat(99)}b*`,
      `${"*".repeat(8)}Z`,
    ];
    for (const pattern of patterns) {
      const [matched, ms] = timed(
        `${pattern.slice(0, 12)}… (${pattern.length}) against 1 MB`,
        () => subjectMatches(pattern, subject),
      );
      assert.equal(matched, false);
      assert.ok(ms < 1000, `${ms} ms`);
    }
    const [matched, ms] = timed(
      "400 * against 1 MB, matching",
      () => subjectMatches("*".repeat(400), subject),
    );
    assert.equal(matched, true);
    assert.ok(ms < 1000, `${ms} ms`);
  });
});
