import assert from "node:assert/strict";
import type { ControlState } from "../../../src/domain/control.ts";
import {
  type PublishedTrustControl,
  PublishedTrustProfile,
  type PublishedTrustSummary,
} from "../../../src/domain/publish.ts";
import { buildTrustProfile, serializeTrustJson } from "../../../src/publish/render/mod.ts";
import { acmeProfile, PUBLISHED_AT, SEVEN_CONTROLS } from "./_fixtures.ts";

// SPEC.md's fields in its order, then the additions (documented in the OpenAPI schema).
const PROFILE_KEYS = [
  "schemaVersion",
  "project",
  "version",
  "publishedAt",
  "summary",
  "controls",
  "vendor",
];
const PROJECT_KEYS = ["slug", "name", "hostedSubdomain"];
const SPEC_SUMMARY_KEYS = [
  "overallState",
  "totalControls",
  "passCount",
  "failCount",
  "staleCount",
  "degradedCount",
  "unknownCount",
];
// Versions built now add how many required controls are not reported and the headline's verdict.
const SUMMARY_KEYS = [...SPEC_SUMMARY_KEYS, "requiredUnknownCount", "verdict"];
const CONTROL_KEYS = [
  "key",
  "category",
  "name",
  "state",
  "confidence",
  "latestEvidenceAt",
  "freshUntil",
  "nextCheckAt",
];

const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

function withState(key: string, state: ControlState): PublishedTrustControl {
  return {
    key,
    category: "evidence",
    name: key,
    state,
    confidence: 0,
    latestEvidenceAt: null,
    freshUntil: null,
    nextCheckAt: null,
  };
}

function summaryOf(states: ControlState[]): PublishedTrustSummary {
  return buildTrustProfile({
    project: { slug: "p", name: "P", hostedSubdomain: null },
    version: 1,
    publishedAt: PUBLISHED_AT,
    controls: states.map((s, i) => withState(`c${i}`, s)),
  }).summary;
}

Deno.test("[publish] serializeTrustJson() writes keys in SPEC.md's order at every level", () => {
  const parsed = JSON.parse(decode(serializeTrustJson(acmeProfile())));
  assert.deepEqual(Object.keys(parsed), PROFILE_KEYS);
  assert.deepEqual(Object.keys(parsed.project), PROJECT_KEYS);
  assert.deepEqual(Object.keys(parsed.summary), SUMMARY_KEYS);
  assert.equal(parsed.controls.length, 7);
  for (const control of parsed.controls) assert.deepEqual(Object.keys(control), CONTROL_KEYS);
});

Deno.test("[publish] serializeTrustJson() keeps a version published before the additions as it was", () => {
  const built = acmeProfile();
  const { requiredUnknownCount: _r, verdict: _v, ...older } = built.summary;
  const parsed = JSON.parse(decode(serializeTrustJson({ ...built, summary: older })));
  assert.deepEqual(Object.keys(parsed.summary), SPEC_SUMMARY_KEYS);
});

Deno.test("[publish] serializeTrustJson() writes exactly the documented bytes", () => {
  const profile = buildTrustProfile({
    project: { slug: "acme", name: "Acme", hostedSubdomain: null },
    version: 2,
    publishedAt: PUBLISHED_AT,
    controls: [SEVEN_CONTROLS[1], withState("evidence.policy_result", "unknown")],
  });
  const expected = `{
  "schemaVersion": 1,
  "project": {
    "slug": "acme",
    "name": "Acme",
    "hostedSubdomain": null
  },
  "version": 2,
  "publishedAt": "2026-03-14T09:30:00.000Z",
  "summary": {
    "overallState": "unknown",
    "totalControls": 2,
    "passCount": 1,
    "failCount": 0,
    "staleCount": 0,
    "degradedCount": 0,
    "unknownCount": 1,
    "requiredUnknownCount": 0,
    "verdict": "pass"
  },
  "controls": [
    {
      "key": "evidence.sbom",
      "category": "evidence",
      "name": "Software bill of materials",
      "state": "pass",
      "confidence": 1,
      "latestEvidenceAt": "2026-03-14T06:30:00.000Z",
      "freshUntil": "2026-03-21T06:30:00.000Z",
      "nextCheckAt": "2026-03-21T06:30:00.000Z"
    },
    {
      "key": "evidence.policy_result",
      "category": "evidence",
      "name": "evidence.policy_result",
      "state": "unknown",
      "confidence": 0,
      "latestEvidenceAt": null,
      "freshUntil": null,
      "nextCheckAt": null
    }
  ],
  "vendor": null
}
`;
  assert.equal(decode(serializeTrustJson(profile)), expected);
});

Deno.test("[publish] serializeTrustJson() is deterministic whatever order the object has", () => {
  const profile = acmeProfile();
  const bytes = serializeTrustJson(profile);
  assert.deepEqual(serializeTrustJson(profile), bytes, "same profile, same bytes");
  assert.deepEqual(serializeTrustJson(acmeProfile()), bytes, "rebuilt profile, same bytes");
  // The same data assembled in reverse key order, with properties outside the contract.
  const reversed = (o: object) => Object.fromEntries(Object.entries(o).reverse());
  const scrambled = {
    ...reversed({
      ...profile,
      project: reversed(profile.project),
      summary: reversed(profile.summary),
      controls: profile.controls.map((c) => reversed({ ...c, internalNote: "internal" })),
    }),
    internalNote: "never published",
  } as unknown as PublishedTrustProfile;
  assert.deepEqual(serializeTrustJson(scrambled), bytes);
});

Deno.test("[publish] buildTrustProfile() keeps input order and only the contract's fields", () => {
  const extra = SEVEN_CONTROLS.map((c) => ({ ...c, evidenceRecordId: "x" }));
  const profile = buildTrustProfile({
    project: { slug: "acme", name: "Acme Cloud", hostedSubdomain: "acme", id: "hidden" } as never,
    version: 7,
    publishedAt: PUBLISHED_AT,
    controls: extra,
  });
  assert.deepEqual(profile.controls.map((c) => c.key), SEVEN_CONTROLS.map((c) => c.key));
  assert.deepEqual(profile.controls, SEVEN_CONTROLS);
  assert.deepEqual(profile.project, { slug: "acme", name: "Acme Cloud", hostedSubdomain: "acme" });
  assert.equal(profile.schemaVersion, 1);
});

Deno.test("[publish] buildTrustProfile() summarizes states (one row per overall-state branch)", async (t) => {
  const zero = {
    passCount: 0,
    failCount: 0,
    staleCount: 0,
    degradedCount: 0,
    unknownCount: 0,
    requiredUnknownCount: 0,
  };
  const rows: { name: string; input: ControlState[]; expected: PublishedTrustSummary }[] = [
    {
      name: "no control is unknown",
      input: [],
      expected: { overallState: "unknown", totalControls: 0, ...zero, verdict: "unknown" },
    },
    {
      name: "all pass is pass",
      input: ["pass", "pass"],
      expected: { overallState: "pass", totalControls: 2, ...zero, passCount: 2, verdict: "pass" },
    },
    {
      name: "unknown beats pass",
      input: ["pass", "unknown"],
      expected: {
        overallState: "unknown",
        totalControls: 2,
        ...zero,
        passCount: 1,
        unknownCount: 1,
        // Not reported and not required: the headline's verdict stays with what reported.
        verdict: "pass",
      },
    },
    {
      name: "degraded beats unknown",
      input: ["unknown", "degraded", "pass"],
      expected: {
        overallState: "degraded",
        totalControls: 3,
        ...zero,
        passCount: 1,
        degradedCount: 1,
        unknownCount: 1,
        verdict: "degraded",
      },
    },
    {
      name: "stale beats degraded",
      input: ["degraded", "stale"],
      expected: {
        overallState: "stale",
        totalControls: 2,
        ...zero,
        staleCount: 1,
        degradedCount: 1,
        verdict: "stale",
      },
    },
    {
      name: "fail beats everything",
      input: ["pass", "stale", "fail", "degraded", "unknown"],
      expected: {
        overallState: "fail",
        totalControls: 5,
        passCount: 1,
        failCount: 1,
        staleCount: 1,
        degradedCount: 1,
        unknownCount: 1,
        requiredUnknownCount: 0,
        verdict: "fail",
      },
    },
  ];
  for (const { name, input, expected } of rows) {
    await t.step(name, () => {
      const summary = summaryOf(input);
      assert.deepEqual(summary, expected);
      assert.deepEqual(Object.keys(summary), SUMMARY_KEYS);
    });
  }
});

Deno.test("[publish] serializeTrustJson() output validates against PublishedTrustProfile", async (t) => {
  const cases = {
    "the seven-control profile": acmeProfile(),
    "a profile without controls": acmeProfile([]),
  };
  for (const [name, profile] of Object.entries(cases)) {
    await t.step(name, () => {
      const text = decode(serializeTrustJson(profile));
      assert.ok(text.endsWith("}\n"), "one trailing newline");
      assert.ok(text.startsWith('{\n  "schemaVersion": 1,\n'), "two-space indentation");
      const result = PublishedTrustProfile.safeParse(JSON.parse(text));
      assert.ok(result.success, JSON.stringify(result.error?.issues));
      assert.deepEqual(result.data, profile);
    });
  }
});

Deno.test("[publish] serializeTrustJson() writes the vendor after the controls, in a fixed order", () => {
  const vendor = {
    brandColor: "#1d4ed8",
    securityContact: { url: "https://acme.example/security", email: "security@acme.example" },
    logoUrl: null,
    website: "https://acme.example",
    description: "Clouds",
    name: "Acme, Inc.",
  };
  const profile = buildTrustProfile({
    project: { slug: "acme", name: "Acme", hostedSubdomain: null },
    version: 1,
    publishedAt: PUBLISHED_AT,
    controls: [],
    vendor: { ...vendor, extra: "dropped" } as typeof vendor,
  });
  const parsed = JSON.parse(decode(serializeTrustJson(profile)));
  assert.deepEqual(Object.keys(parsed).slice(-2), ["controls", "vendor"]);
  assert.deepEqual(Object.keys(parsed.vendor), [
    "name",
    "description",
    "website",
    "logoUrl",
    "securityContact",
    "brandColor",
  ]);
  assert.deepEqual(Object.keys(parsed.vendor.securityContact), ["email", "url"]);
  assert.equal(parsed.vendor.extra, undefined);
  assert.equal(PublishedTrustProfile.safeParse(parsed).success, true);
});
