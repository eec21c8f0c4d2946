import assert from "node:assert/strict";
import { contrastRatio, relativeLuminance } from "../../src/lib/contrast.ts";
import { BrandColor } from "../../src/domain/vendor.ts";

// Ratios against white text, computed with the WCAG 2.x formula and rounded to two places
// (#767676 4.54 and #777777 4.48 are the well-known AA boundary greys; #ff0000 is 4:1).
const TABLE: [string, number, boolean][] = [
  ["#000000", 21, true],
  ["#ffffff", 1, false],
  ["#767676", 4.54, true], // the lightest grey that passes
  ["#777777", 4.48, false],
  ["#1d4ed8", 6.7, true],
  ["#0b6e4f", 6.25, true],
  ["#ff0000", 4, false],
  ["#ffcc00", 1.51, false],
  ["#2563eb", 5.17, true],
  ["#3b82f6", 3.68, false],
];

Deno.test("[lib] contrastRatio() against white follows WCAG, and BrandColor keeps ≥ 4.5:1", () => {
  for (const [color, ratio, accepted] of TABLE) {
    assert.equal(Math.round(contrastRatio(color, "#ffffff") * 100) / 100, ratio, color);
    assert.equal(BrandColor.safeParse(color).success, accepted, color);
  }
});

Deno.test("[lib] contrastRatio() is symmetric and luminance spans 0..1", () => {
  assert.equal(contrastRatio("#1d4ed8", "#ffffff"), contrastRatio("#ffffff", "#1d4ed8"));
  assert.equal(relativeLuminance("#000000"), 0);
  assert.equal(relativeLuminance("#ffffff"), 1);
  assert.equal(relativeLuminance("#1D4ED8"), relativeLuminance("#1d4ed8"));
  assert.throws(() => relativeLuminance("blue"), RangeError);
  for (const bad of ["#fff", "1d4ed8", "#1d4ed8ff", "rgb(0,0,0)", "#gggggg"]) {
    assert.equal(BrandColor.safeParse(bad).success, false, bad);
  }
});
