/**
 * The service's own documents (evaluation rules, agent guides, setup guides) as HTML, through
 * the same Markdown parser that renders vendors' text (markdown-it, CommonMark with tables):
 * one Markdown pipeline. These documents are ours, so headings keep their level and relative
 * links work, but raw HTML is still shown as text and only http(s), mailto, relative and
 * fragment links are kept.
 */
// @ts-types="@types/markdown-it"
import MarkdownIt from "markdown-it";

const SAFE_LINK = /^(https?:\/\/|mailto:|\/|#|\.{1,2}\/)/i;

const renderer = new MarkdownIt({ html: false, linkify: false, typographer: false });
renderer.validateLink = (url: string) => SAFE_LINK.test(url.trim());
// Headings get ids from their text, so a guide can link to its own sections (#collector-api).
renderer.renderer.rules.heading_open = (tokens, idx, options, _env, self) => {
  const text = tokens[idx + 1]?.content ?? "";
  tokens[idx].attrSet("id", text.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, ""));
  return self.renderToken(tokens, idx, options);
};
// Column headers say they are column headers.
renderer.renderer.rules.th_open = (tokens, idx, options, _env, self) => {
  tokens[idx].attrSet("scope", "col");
  return self.renderToken(tokens, idx, options);
};

// Code blocks and tables may be wider than the screen and scroll sideways: each is a labelled
// region that takes the keyboard's focus, so it can be scrolled without a mouse (WCAG 2.1.1;
// axe's scrollable-region-focusable). Labels are numbered so each region's name is its own.
interface Regions {
  code: number;
  tables: number;
}
const escapeAttribute = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
for (const rule of ["fence", "code_block"] as const) {
  const base = renderer.renderer.rules[rule]!;
  renderer.renderer.rules[rule] = (tokens, idx, options, env: Regions, self) => {
    const label = `Code example ${++env.code}`;
    return base(tokens, idx, options, env, self).replace(
      /^<pre>/,
      `<pre tabindex="0" role="region" aria-label="${label}">`,
    );
  };
}
renderer.renderer.rules.table_open = (tokens, idx, options, env: Regions, self) => {
  const headers: string[] = [];
  for (let i = idx + 1; i < tokens.length && tokens[i].type !== "thead_close"; i++) {
    if (tokens[i].type === "inline") headers.push(tokens[i].content);
  }
  const label = `Table ${++env.tables}: ${headers.join(", ")}`.slice(0, 120);
  return `<div class="table-scroll" tabindex="0" role="region" aria-label="${
    escapeAttribute(label)
  }">` + self.renderToken(tokens, idx, options);
};
renderer.renderer.rules.table_close = (tokens, idx, options, _env, self) =>
  self.renderToken(tokens, idx, options) + "</div>\n";

/** Converts `markdown` to an HTML fragment. */
export function markdownToHtml(markdown: string): string {
  const regions: Regions = { code: 0, tables: 0 };
  return renderer.render(markdown, regions);
}
