/**
 * What a buyer sees first on a trust page: a headline that leads with what passed when every
 * reported control passes (never a bare "Unknown"), the publisher's name, one freshness
 * column, the downloads in one card of three groups, the verify command selectable whole
 * under a CSP without script, and framework coverage worded without implying a share of
 * compliance.
 */
import assert from "node:assert/strict";
import type { PublishedTrustSummary } from "../../../src/domain/publish.ts";
import { headline } from "../../../src/publish/render/_format.ts";
import { coverageLine } from "../../../src/publish/render/frameworks.ts";
import { renderTrustPageHtml, TRUST_PAGE_STYLE } from "../../../src/publish/render/mod.ts";
import { acmeProfile, at, LINKS, SEVEN_CONTROLS } from "./_fixtures.ts";

function summary(
  counts: Partial<Record<"pass" | "fail" | "stale" | "unknown", number>>,
): PublishedTrustSummary {
  const { pass = 0, fail = 0, stale = 0, unknown = 0 } = counts;
  return {
    overallState: fail > 0 ? "fail" : stale > 0 ? "stale" : unknown > 0 ? "unknown" : "pass",
    totalControls: pass + fail + stale + unknown,
    passCount: pass,
    failCount: fail,
    staleCount: stale,
    degradedCount: 0,
    unknownCount: unknown,
  };
}

Deno.test("[publish] headline() leads with what passed, and never with a bare Unknown", () => {
  const rows: { name: string; input: PublishedTrustSummary; expected: string[] }[] = [
    {
      name: "every reported control passes, four never reported",
      input: summary({ pass: 3, unknown: 4 }),
      expected: [
        "pass",
        "Reported controls",
        "All 3 reported controls pass",
        "4 controls not reported yet · overall: unknown",
      ],
    },
    {
      name: "one reported control, passing",
      input: summary({ pass: 1, unknown: 1 }),
      expected: [
        "pass",
        "Reported controls",
        "The 1 reported control passes",
        "1 control not reported yet · overall: unknown",
      ],
    },
    {
      name: "everything reported and passing",
      input: summary({ pass: 7 }),
      expected: [
        "pass",
        "Reported controls",
        "All 7 controls pass",
        "Every control has evidence that satisfies it",
      ],
    },
    {
      name: "a failure leads with the overall state",
      input: summary({ pass: 2, fail: 1, unknown: 1 }),
      expected: ["fail", "Overall state", "Fail", "2 of 3 reported controls pass · 1 not reported"],
    },
    {
      name: "a stale control leads with stale",
      input: summary({ pass: 2, stale: 1 }),
      expected: ["stale", "Overall state", "Stale", "2 of 3 reported controls pass"],
    },
    {
      name: "nothing reported yet",
      input: summary({ unknown: 7 }),
      expected: [
        "unknown",
        "Overall state",
        "Not reported yet",
        "None of 7 controls has reported yet",
      ],
    },
    {
      name: "no control at all",
      input: summary({}),
      expected: ["unknown", "Overall state", "No controls", "No control is enabled yet"],
    },
  ];
  for (const { name, input, expected } of rows) {
    const { state, label, title, detail } = headline(input);
    assert.deepEqual([state, label, title, detail], expected, name);
    assert.notEqual(title, "Unknown", name);
  }
});

Deno.test("[publish] renderTrustPageHtml(): the headline of a profile whose reported controls pass", () => {
  const passing = SEVEN_CONTROLS.map((c) =>
    c.state === "pass" ? c : { ...c, state: "unknown" as const }
  );
  const page = renderTrustPageHtml(acmeProfile(passing), LINKS);
  assert.match(page, /<div class="overall s-pass">/);
  assert.match(page, /<p class="state">All 3 reported controls pass<\/p>/);
  assert.match(page, /<p class="why">4 controls not reported yet · overall: unknown<\/p>/);
  assert.doesNotMatch(page, /<p class="state">Unknown<\/p>/);
});

Deno.test("[publish] renderTrustPageHtml() names who publishes the profile", () => {
  const page = renderTrustPageHtml(acmeProfile(), LINKS, { organization: { name: "Acme, Inc." } });
  assert.match(
    page,
    /<h1 id="title">Acme Cloud<\/h1>\s*<p class="org">by <strong>Acme, Inc\.<\/strong><\/p>/,
  );
  assert.match(page, /<meta name="description" content="Acme Cloud by Acme, Inc\. trust profile/);
  const vendor = {
    name: "Acme Security",
    description: null,
    website: null,
    logoUrl: null,
    brandColor: null,
    securityContact: { email: null, url: null },
    updatedAt: at(0),
  };
  const named = renderTrustPageHtml({ ...acmeProfile(), vendor }, LINKS, {
    organization: { name: "Acme, Inc." },
  });
  assert.match(
    named,
    /<p class="org">by <strong>Acme Security<\/strong><\/p>/,
    "the profile's name",
  );
  const anonymous = renderTrustPageHtml(acmeProfile(), LINKS);
  assert.doesNotMatch(anonymous, /class="org"/);
});

/** The `<td data-label="…">` cells of the control `key`'s row. */
function cells(page: string, key: string): Map<string, string> {
  const code = key.split(".").join(".<wbr>");
  const start = page.indexOf(`<code>${code}</code>`);
  const row = page.slice(start, page.indexOf("</tr>", start));
  return new Map(
    [...row.matchAll(/<td data-label="([^"]+)"[^>]*>([\s\S]*?)<\/td>/g)].map((m) => [m[1], m[2]]),
  );
}

Deno.test("[publish] renderTrustPageHtml(): one freshness column, the next change only when it differs", () => {
  const page = renderTrustPageHtml(acmeProfile(), LINKS);
  assert.doesNotMatch(page, /Next check/);
  const tables = [...page.matchAll(/<table>/g)].length;
  assert.equal([...page.matchAll(/<th scope="col">Freshness<\/th>/g)].length, tables);
  const sbom = cells(page, "evidence.sbom");
  assert.deepEqual([...sbom.keys()], ["State", "Why", "Evidence", "Freshness"]);
  const fresh = sbom.get("Freshness")!;
  assert.match(fresh, /Fresh until<\/span><time datetime="2026-03-21T06:30:00Z">/);
  assert.equal((fresh.match(/<time /g) ?? []).length, 1, "the next check is the same instant");
  const degraded = cells(page, "evidence.dependency_inventory").get("Freshness")!;
  assert.match(degraded, /Was fresh until/);
  assert.match(degraded, /Next change of state: <time datetime="2026-04-04T09:30:00Z">/);
  assert.match(cells(page, "evidence.policy_result").get("Freshness")!, /Awaiting evidence/);
});

const VERIFY: NonNullable<typeof LINKS.verify> = {
  verifyKit: "https://trust.example.com/verify.ts",
  pins: { jwks: ["k1"], log: "trust.example.com+1234abcd+AAAA" },
  log: "https://trust.example.com/log",
  logCheckpoint: "https://trust.example.com/log/checkpoint",
  oscal: "https://trust.example.com/trust/acme/oscal-assessment-results.json",
  oscalSignature: "https://trust.example.com/trust/acme/oscal-assessment-results.json.jws",
  attestation: "https://trust.example.com/trust/acme/vsa.intoto.json",
  securityInsights: "https://trust.example.com/trust/acme/security-insights.json",
  securityInsightsSignature: "https://trust.example.com/trust/acme/security-insights.json.jws",
};

Deno.test("[publish] renderTrustPageHtml(): downloads in one card of three groups, the command selectable whole", () => {
  const links = {
    ...LINKS,
    trustCenter: "https://trust.example.com/public/trust/acme",
    verify: VERIFY,
  };
  const page = renderTrustPageHtml(acmeProfile(), links);
  const section = page.slice(page.indexOf('aria-labelledby="verify-title"'));
  assert.match(section, /<h2 id="verify-title">Downloads and verification<\/h2>/);
  assert.equal([...section.matchAll(/<div class="card downloads">/g)].length, 1, "one card");
  assert.deepEqual(
    [...section.matchAll(/<h3 id="dl-[a-z]+">([^<]+)<\/h3>/g)].map((m) => m[1]),
    ["This profile", "Standard exports", "History and log"],
  );
  assert.doesNotMatch(page, /class="links"/, "no wall of cards");
  for (
    const url of [...Object.values(LINKS), links.trustCenter, VERIFY.oscal, VERIFY.attestation]
  ) {
    assert.ok(section.includes(`<a href="${url}"`), url);
  }
  for (const url of [VERIFY.securityInsights, VERIFY.log, VERIFY.logCheckpoint, VERIFY.verifyKit]) {
    assert.ok(section.includes(`<a href="${url}"`), url);
  }
  const command = "deno run --allow-net https://trust.example.com/verify.ts acme --pin jwks=k1 " +
    "--pin log=trust.example.com+1234abcd+AAAA";
  assert.ok(section.includes(`<p class="cmd"><code>${command}</code></p>`));
  assert.match(TRUST_PAGE_STYLE, /\.cmd code\{user-select:all;/, "one click selects all of it");
  assert.match(section, /npx --yes deno@2\.9\.6 run/, "and how to run it without Deno");
  assert.doesNotMatch(page, /<script/, "no script: nothing to allow in the CSP");
});

Deno.test("[publish] coverageLine() says what is mapped and what passes, not a share of compliance", () => {
  const criteria = (...states: string[][]) =>
    states.map((s) => ({ controls: s.map((state) => ({ state })) }));
  const rows: [string, ReturnType<typeof criteria>, string][] = [
    [
      "one passes, four wait on a control never reported",
      criteria(["pass"], ["pass", "unknown"], ["unknown"], ["unknown"], ["unknown"]),
      "SOC 2: 5 criteria mapped; every mapped control passes for 1; 4 wait on a control not reported yet",
    ],
    [
      "every mapped control passes",
      criteria(["pass"], ["pass", "pass"]),
      "SOC 2: 2 criteria mapped; every mapped control passes",
    ],
    [
      "a failing control",
      criteria(["pass"], ["fail", "unknown"], ["unknown"]),
      "SOC 2: 3 criteria mapped; every mapped control passes for 1; 1 has a control that fails or " +
      "is out of date; 1 waits on a control not reported yet",
    ],
    [
      "nothing passes yet",
      criteria(["stale"], ["degraded"]),
      "SOC 2: 2 criteria mapped; 2 have a control that fails or is out of date",
    ],
    ["one criterion", criteria(["pass"]), "SOC 2: 1 criterion mapped; every mapped control passes"],
  ];
  for (const [name, input, expected] of rows) {
    const line = coverageLine("SOC 2", input);
    assert.equal(line, expected, name);
    assert.doesNotMatch(line, /supported|with every control passing/, name);
  }
});
