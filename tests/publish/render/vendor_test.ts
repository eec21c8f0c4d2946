import assert from "node:assert/strict";
import type { Vendor } from "../../../src/domain/vendor.ts";
import { escapeMarkdown, trustPageCsp } from "../../../src/publish/render/mod.ts";
import { link } from "../../../src/publish/render/markdown.ts";
import {
  brandCss,
  logoSrc,
  vendorCard,
  vendorCsp,
  vendorMarkdown,
} from "../../../src/publish/render/vendor.ts";

const HEX = "a".repeat(64);
const vendor = (overrides: Partial<Vendor> = {}): Vendor => ({
  name: "Acme",
  description: null,
  website: null,
  logoUrl: null,
  securityContact: { email: null, url: null },
  brandColor: null,
  ...overrides,
});

Deno.test("[publish] vendorCard() escapes vendor text and links only https and mailto", () => {
  const card = vendorCard(vendor({
    name: '<img src=x onerror="alert(1)">',
    description: "</p><script>alert(1)</script>",
    website: "javascript:alert(1)",
    securityContact: { email: "sec@acme.example", url: "http://plain.example" },
  })).value;
  assert.ok(!card.includes("<script"));
  assert.ok(!card.includes("<img src=x"));
  assert.ok(card.includes("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;"));
  assert.ok(!card.includes("javascript:"), "a non-https website is not linked");
  assert.ok(!card.includes("http://plain.example"));
  assert.ok(card.includes('href="mailto:sec@acme.example"'));
  assert.equal(vendorCard(null).value, "");
});

Deno.test("[publish] a logo shows only from the service's own logo path, and only then img-src", () => {
  const own = vendor({ logoUrl: `https://trust.example.com/public/logos/${HEX}.png` });
  assert.equal(logoSrc(own), `/public/logos/${HEX}.png`);
  assert.ok(vendorCard(own).value.includes(`<img src="/public/logos/${HEX}.png" alt=""`));
  for (
    const foreign of [
      "https://evil.example/x.png",
      `https://e.example/public/logos/${HEX}.svg`,
      "nope",
    ]
  ) {
    assert.equal(logoSrc(vendor({ logoUrl: foreign })), null, foreign);
    assert.ok(!vendorCard(vendor({ logoUrl: foreign })).value.includes("<img"));
  }
  assert.match(trustPageCsp(vendorCsp(own)), /; img-src 'self'; /);
  assert.doesNotMatch(trustPageCsp(vendorCsp(vendor())), /img-src/);
  assert.doesNotMatch(trustPageCsp(vendorCsp(null)), /img-src/);
});

Deno.test("[publish] the brand colour is a hashed style, never stored text as CSS", () => {
  assert.equal(brandCss(vendor({ brandColor: "#1D4ED8" })), "html:root{--brand:#1d4ed8}");
  assert.equal(brandCss(vendor({ brandColor: "red;}body{display:none" })), null);
  const csp = trustPageCsp(vendorCsp(vendor({ brandColor: "#1d4ed8" })));
  assert.equal(csp.match(/'sha256-/g)?.length, 2, "the shared sheet and the colour");
  assert.ok(vendorCard(vendor({ brandColor: "#1d4ed8" })).value.includes('class="tag"'));
  assert.ok(!vendorCard(vendor()).value.includes('class="tag"'), "no colour, no tag");
});

Deno.test("[publish] vendorMarkdown() escapes text and links the contacts", () => {
  const md = vendorMarkdown(
    vendor({
      name: "Acme [beta] <b>",
      description: "line one\n# not a heading",
      website: "https://acme.example",
      securityContact: { email: "sec@acme.example", url: null },
    }),
    { escape: escapeMarkdown, link },
  ).join("\n");
  assert.ok(md.startsWith("## Vendor\n\n**Acme \\[beta\\] &lt;b&gt;**"));
  assert.ok(md.includes("line one \\# not a heading"));
  assert.ok(md.includes("- Website: [https://acme.example](<https://acme.example>)"));
  assert.ok(md.includes("- Security contact: [sec@acme.example](<mailto:sec@acme.example>)"));
  assert.deepEqual(vendorMarkdown(null, { escape: escapeMarkdown, link }), []);
});
