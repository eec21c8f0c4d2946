import assert from "node:assert/strict";
import {
  normalizeDomain,
  verificationRecordName,
  verificationRecordValue,
} from "../../src/publish/domain_name.ts";

const label63 = "a".repeat(63);
// 63 + 1 + 63 + 1 + 63 + 1 + 61 = 253 octets, the longest name allowed.
const name253 = `${label63}.${label63}.${label63}.${"b".repeat(61)}`;

const accepted: [input: string, normalized: string][] = [
  ["example.com", "example.com"],
  ["Example.COM.", "example.com"],
  ["  www.Example.com \n", "www.example.com"],
  ["bücher.example", "xn--bcher-kva.example"],
  ["BÜCHER.Example.", "xn--bcher-kva.example"],
  ["xn--bcher-kva.example", "xn--bcher-kva.example"],
  ["faß.de", "xn--fa-hia.de"],
  ["例え.テスト", "xn--r8jz45g.xn--zckzah"],
  // IDNA maps the ideographic full stop to "." — here it is the trailing dot.
  ["example.com。", "example.com"],
  ["a-b.c-d.example", "a-b.c-d.example"],
  ["1password.com", "1password.com"],
  [`${label63}.com`, `${label63}.com`],
  [name253, name253],
];

const rejected: [input: string, reason: RegExp][] = [
  ["", /empty/],
  ["   ", /empty/],
  ["1.2.3.4", /IP address/],
  ["1.2.3.4.", /IP address/],
  ["0x7f.1", /IP address/],
  ["[::1]", /IP address/],
  ["::1", /IP address/],
  ["localhost", /two labels/],
  ["localhost.", /two labels/],
  ["com", /two labels/],
  ["a..b", /empty labels/],
  [".example.com", /empty labels/],
  ["example.com..", /empty labels/],
  ["-a.com", /letters, digits and inner hyphens/],
  ["a-.com", /letters, digits and inner hyphens/],
  ["a_b.com", /letters, digits and inner hyphens/],
  ["_service.example.com", /letters, digits and inner hyphens/],
  ["*.x.com", /wildcard/],
  ["x.com:443", /port/],
  ["1.2.3.4:53", /port/],
  ["https://x.com", /scheme/],
  ["x.com/path", /path/],
  ["x.com?q=1", /path, query or fragment/],
  ["x.com#top", /path, query or fragment/],
  ["x.com\\y", /path/],
  ["user@x.com", /user info/],
  ["a b.com", /invalid characters/],
  ["exa%41mple.com", /invalid characters/],
  ["xn--zz.com", /not a valid host name/],
  ["example.123", /not a valid host name|IP address/],
  [`${"a".repeat(64)}.com`, /at most 63/],
  [`${name253}a`, /at most 253/],
  ["x".repeat(5000) + ".com", /at most 253/],
];

Deno.test("[publish] normalizeDomain() returns the canonical IDNA form", async (t) => {
  for (const [input, normalized] of accepted) {
    await t.step(`${JSON.stringify(input)} → ${normalized}`, () => {
      assert.equal(normalizeDomain(input), normalized);
      // Canonical means a fixed point: storing and re-normalizing changes nothing.
      assert.equal(normalizeDomain(normalized), normalized);
    });
  }
});

Deno.test("[publish] normalizeDomain() rejects what is not a public host name", async (t) => {
  for (const [input, reason] of rejected) {
    await t.step(`${JSON.stringify(input.length > 40 ? input.slice(0, 40) + "…" : input)}`, () => {
      assert.throws(() => normalizeDomain(input), (error: unknown) => {
        assert.ok(error instanceof TypeError, `expected a TypeError, got ${error}`);
        assert.match(error.message, reason);
        return true;
      });
    });
  }
});

Deno.test("[publish] normalizeDomain() makes equivalent spellings one domain", () => {
  const spellings = [
    "Bücher.Example",
    "bücher.example.",
    "XN--BCHER-KVA.EXAMPLE",
    " bÜcher.example ",
  ];
  assert.deepEqual(new Set(spellings.map(normalizeDomain)), new Set(["xn--bcher-kva.example"]));
});

Deno.test("[publish] verificationRecordName() and verificationRecordValue() follow DESIGN §7", () => {
  assert.equal(verificationRecordName("Example.COM."), "_service.example.com");
  assert.equal(verificationRecordName("bücher.example"), "_service.xn--bcher-kva.example");
  assert.throws(() => verificationRecordName("localhost"), TypeError);
  assert.equal(verificationRecordValue("abc123"), "trust-verification=abc123");
});
