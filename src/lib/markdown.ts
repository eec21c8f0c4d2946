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

/** Converts `markdown` to an HTML fragment. */
export function markdownToHtml(markdown: string): string {
  return renderer.render(markdown);
}
