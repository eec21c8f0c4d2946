/**
 * Markdown written by vendors (update bodies) rendered to HTML that is safe to put on a
 * trust page: raw HTML is shown as text, only http(s) and mailto links survive (each with
 * rel="nofollow noopener noreferrer"), images render as their description (the pages'
 * CSP loads none), and the output is markdown-it's, whose text is always escaped.
 */
// @ts-types="@types/markdown-it"
import MarkdownIt from "markdown-it";

const SAFE_LINK = /^(https?:\/\/|mailto:)/i;

function createRenderer(): MarkdownIt {
  const md = new MarkdownIt({ html: false, linkify: true, typographer: false });
  md.validateLink = (url: string) => SAFE_LINK.test(url.trim());
  md.renderer.rules.image = (tokens, idx) => {
    const token = tokens[idx];
    const alt = token.children
      ? md.renderer.renderInlineAsText(token.children, md.options, {})
      : "";
    return alt ? `<span class="img-alt">[${md.utils.escapeHtml(alt)}]</span>` : "";
  };
  const linkOpen = md.renderer.rules.link_open ??
    ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
  md.renderer.rules.link_open = (tokens, idx, options, env, self) => {
    tokens[idx].attrSet("rel", "nofollow noopener noreferrer");
    return linkOpen(tokens, idx, options, env, self);
  };
  // Headings inside an update sit under the update's own heading: shift them down.
  md.renderer.rules.heading_open = (tokens, idx, options, _env, self) => {
    const level = Math.min(6, Number(tokens[idx].tag.slice(1)) + 2);
    tokens[idx].tag = `h${level}`;
    return self.renderToken(tokens, idx, options);
  };
  md.renderer.rules.heading_close = (tokens, idx, options, _env, self) => {
    tokens[idx].tag = `h${Math.min(6, Number(tokens[idx].tag.slice(1)) + 2)}`;
    return self.renderToken(tokens, idx, options);
  };
  return md;
}

const renderer = createRenderer();

/** The parser (and renderer) of vendors' Markdown, shared with `neutralizeMarkdown`. */
export const safeMarkdownParser: MarkdownIt = renderer;

/** `markdown` as an HTML fragment safe to insert into a page as it is. */
export function renderSafeMarkdown(markdown: string): string {
  return renderer.render(markdown);
}

/** The text of `markdown` without its markup, collapsed to one line and cut at `max`. */
export function markdownExcerpt(markdown: string, max = 280): string {
  const html = renderer.render(markdown);
  const text = html.replace(/<[^<>]*>/g, " ")
    .replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&").replace(/\s+/g, " ").trim();
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}
