/**
 * Text stays readable in both colour schemes: every text colour the service's stylesheets
 * set on a background (buttons, badges, pills, alerts), every link colour on the surfaces
 * links sit on, and every named token pair reach WCAG AA (4.5:1) in light and dark, computed
 * from the design tokens with src/lib/contrast.ts.
 */
import assert from "node:assert/strict";
import { contrastRatio, HEX_COLOR, MIN_TEXT_CONTRAST } from "../../src/lib/contrast.ts";
import { DESIGN_TOKENS_CSS, SCHEME_TOKENS } from "../../src/lib/design_tokens.ts";
import { TRUST_PAGE_STYLE } from "../../src/publish/render/_style.ts";

type Scheme = keyof typeof SCHEME_TOKENS;
const SCHEMES = Object.keys(SCHEME_TOKENS) as Scheme[];

const SHEETS: Record<string, string> = {
  "static/service.css": await Deno.readTextFile(
    new URL("../../static/service.css", import.meta.url),
  ),
  "static/dashboard/dashboard.css": await Deno.readTextFile(
    new URL("../../static/dashboard/dashboard.css", import.meta.url),
  ),
  "the trust pages' stylesheet": TRUST_PAGE_STYLE.replace(DESIGN_TOKENS_CSS, ""),
};

/**
 * Backgrounds whose text colour is checked elsewhere: the vendor's brand colour carries white
 * text, and BrandColor accepts only colours with ≥ 4.5:1 against white (contrast_test.ts).
 */
const CHECKED_ELSEWHERE = new Set(["var(--brand)"]);

/** A colour value in `scheme`: a token resolved (through other tokens), or a literal. */
function resolve(value: string, scheme: Scheme, locals: Map<string, string>): string | null {
  let current = value.trim();
  for (let depth = 0; depth < 5; depth++) {
    if (HEX_COLOR.test(current)) return current.toLowerCase();
    if (/^#[0-9a-f]{3}$/i.test(current)) {
      return `#${[...current.slice(1)].map((c) => c + c).join("")}`.toLowerCase();
    }
    const name = current.match(/^var\(--([a-z0-9-]+)\)$/)?.[1];
    if (!name) return null;
    current = SCHEME_TOKENS[scheme][name] ?? locals.get(name) ?? "";
  }
  return null;
}

/** `selector { declarations }` blocks, @media wrappers looked through. */
function rules(css: string): { selector: string; declarations: Map<string, string> }[] {
  const plain = css.replace(/\/\*[\s\S]*?\*\//g, "").replace(/@media[^{]*\{/g, "");
  return [...plain.matchAll(/([^{}]+)\{([^{}]*)\}/g)].map(([, selector, body]) => ({
    selector: selector.trim(),
    declarations: new Map(
      body.split(";").map((d) => d.split(":")).filter((p) => p.length >= 2)
        .map(([k, ...v]) => [k.trim(), v.join(":").trim()]),
    ),
  }));
}

/** The state colour pairs the `.s-<state>` classes set as local properties (--st, --st-bg). */
function stateLocals(css: string): Map<string, string>[] {
  return rules(css).filter((r) => r.declarations.has("--st")).map((r) =>
    new Map([["st", r.declarations.get("--st")!], ["st-bg", r.declarations.get("--st-bg")!]])
  );
}

Deno.test("[lib] every text colour set on a background reaches 4.5:1 in light and dark", async (t) => {
  for (const [sheet, css] of Object.entries(SHEETS)) {
    await t.step(sheet, () => {
      const failures: string[] = [];
      let checked = 0;
      const localSets = [new Map<string, string>(), ...stateLocals(css)];
      for (const { selector, declarations } of rules(css)) {
        const background = declarations.get("background") ?? declarations.get("background-color");
        const color = declarations.get("color");
        if (!background || !color || CHECKED_ELSEWHERE.has(background)) continue;
        if (/:disabled/.test(selector)) continue; // WCAG exempts inactive controls
        for (const scheme of SCHEMES) {
          for (const locals of localSets) {
            const fg = resolve(color, scheme, locals);
            const bg = resolve(background, scheme, locals);
            if (!fg || !bg) continue;
            checked++;
            const ratio = contrastRatio(fg, bg);
            if (ratio < MIN_TEXT_CONTRAST) {
              failures.push(
                `${selector} (${scheme}): ${color} on ${background} is ${ratio.toFixed(2)}:1`,
              );
            }
          }
        }
      }
      assert.ok(checked > 0, `${sheet}: no pair found to check`);
      assert.deepEqual([...new Set(failures)], []);
    });
  }
});

/** Foreground and background tokens that meet on the pages, by name. */
const PAIRS: [string, string, string][] = [
  ["primary buttons (sign-in, dashboard)", "on-accent", "accent"],
  ["primary buttons, hovered", "on-accent", "accent-hover"],
  ["links on the page", "accent", "bg"],
  ["links on cards", "accent", "surface"],
  ["links on muted surfaces", "accent", "surface-muted"],
  ["links on selected choices", "accent", "accent-soft"],
  ["secondary buttons", "fg", "surface"],
  ["secondary buttons, hovered", "fg", "surface-muted"],
  ["danger buttons", "surface", "danger"],
  ["danger text on cards", "danger", "surface"],
  ["danger alerts", "danger", "danger-soft"],
  ["secondary text on cards", "muted", "surface"],
  ["secondary text on the page", "muted", "bg"],
  ["info alerts", "info", "info-soft"],
  ["neutral badges", "neutral-fg", "neutral-soft"],
  ["table headers", "muted", "neutral-soft"],
  ...(["pass", "fail", "degraded", "stale", "unknown"] as const).flatMap((
    state,
  ): [string, string, string][] => [
    [`${state} pills and headline`, state, `${state}-bg`],
    [`${state} counts on cards`, state, "surface"],
  ]),
];

Deno.test("[lib] the design tokens' button, link and state pairs reach 4.5:1 in both schemes", () => {
  const failures: string[] = [];
  for (const scheme of SCHEMES) {
    const tokens = SCHEME_TOKENS[scheme];
    for (const [use, fg, bg] of PAIRS) {
      const ratio = contrastRatio(tokens[fg], tokens[bg]);
      if (ratio < MIN_TEXT_CONTRAST) {
        failures.push(`${use} (${scheme}): --${fg} on --${bg} is ${ratio.toFixed(2)}:1`);
      }
    }
  }
  assert.deepEqual(failures, []);
});
