import assert from "node:assert/strict";
import type { ControlState } from "../../../src/domain/control.ts";
import { badgeJson, badgeTextWidth, renderBadgeSvg } from "../../../src/publish/render/mod.ts";
import { HOSTILE_NAME } from "./_fixtures.ts";
import { assertWellFormedXml } from "./_xml.ts";

const STATES: ControlState[] = ["pass", "fail", "degraded", "stale", "unknown"];

function attr(svg: string, element: string, name: string, nth = 0): string {
  const tags = [...svg.matchAll(new RegExp(`<${element}\\s[^>]*>`, "g"))].map((m) => m[0]);
  const m = tags[nth]?.match(new RegExp(`\\s${name}="([^"]*)"`));
  assert.ok(m, `${element}[${nth}] ${name} in ${svg}`);
  return m[1];
}

/** WCAG 2 contrast ratio of white text on `hex`. */
function contrastWithWhite(hex: string): number {
  const [r, g, b] = [0, 2, 4].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255)
    .map((c) => c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  return 1.05 / (0.2126 * r + 0.7152 * g + 0.0722 * b + 0.05);
}

Deno.test("[publish] renderBadgeSvg() draws an accessible, well-formed badge per state", async (t) => {
  for (const state of STATES) {
    await t.step(state, () => {
      const svg = renderBadgeSvg(state);
      assertWellFormedXml(svg);
      assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" /);
      assert.equal(attr(svg, "svg", "role"), "img");
      assert.equal(attr(svg, "svg", "aria-label"), `trust: ${state}`);
      assert.match(svg, new RegExp(`<title>trust: ${state}</title>`));
      assert.equal(attr(svg, "rect", "fill", 2), `#${badgeJson(state).color}`, "state colour");
      assert.equal(attr(svg, "rect", "fill", 1), "#555", "label colour");
    });
  }
});

Deno.test("[publish] renderBadgeSvg() sizes both halves from their text", () => {
  const svg = renderBadgeSvg("degraded", "security posture");
  const label = Number(attr(svg, "rect", "width", 1));
  const message = Number(attr(svg, "rect", "width", 2));
  assert.equal(label, badgeTextWidth("security posture") + 10);
  assert.equal(message, badgeTextWidth("degraded") + 10);
  assert.equal(Number(attr(svg, "svg", "width")), label + message);
  assert.equal(
    Number(attr(svg, "rect", "x", 2)),
    label,
    "the state half starts where the label ends",
  );
  assert.ok(badgeTextWidth("trust") < badgeTextWidth("security posture"));
  assert.ok(badgeTextWidth("iiii") < badgeTextWidth("mmmm"), "narrow and wide glyphs differ");
  assert.ok(badgeTextWidth("信頼") >= 20, "unlisted wide characters are not underestimated");
  const short = renderBadgeSvg("pass");
  assert.ok(Number(attr(short, "svg", "width")) < Number(attr(svg, "svg", "width")));
});

Deno.test("[publish] renderBadgeSvg() escapes the label", () => {
  const svg = renderBadgeSvg("fail", `${HOSTILE_NAME}"'&\u0002`);
  assertWellFormedXml(svg);
  assert.ok(!svg.includes("<img"), "no raw markup");
  assert.ok(!svg.includes("\u0002"), "no character XML cannot carry");
  assert.equal(
    attr(svg, "svg", "aria-label"),
    "&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;\uFFFD: fail",
  );
});

Deno.test("[publish] badge colours are distinct and keep white text readable", () => {
  const colors = STATES.map((s) => badgeJson(s).color);
  assert.equal(new Set(colors).size, STATES.length);
  for (const [i, color] of colors.entries()) {
    assert.match(color, /^[0-9a-f]{6}$/, "hex without #, as shields.io expects");
    assert.ok(
      contrastWithWhite(color) >= 4.5,
      `${STATES[i]} ${color}: ${contrastWithWhite(color)}`,
    );
  }
});

Deno.test("[publish] badgeJson() is the shields.io endpoint format", () => {
  assert.deepEqual(badgeJson("pass"), {
    schemaVersion: 1,
    label: "trust",
    message: "pass",
    color: "2e7d32",
  });
  const custom = badgeJson("fail", "acme trust");
  assert.deepEqual(Object.keys(custom), ["schemaVersion", "label", "message", "color"]);
  assert.equal(custom.label, "acme trust");
  assert.equal(custom.message, "fail");
  assert.deepEqual(JSON.parse(JSON.stringify(custom)), custom);
});
