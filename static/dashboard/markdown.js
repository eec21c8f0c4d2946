/**
 * A small, safe Markdown renderer for answers shown in the dashboard: paragraphs, line breaks,
 * bulleted and numbered lists, headings (shown as bold paragraphs), quotes, and inline bold,
 * italics, code and links (http, https and mailto only; any other link stays text). It builds
 * DOM nodes with `h()`: nothing is parsed as HTML, so `<script>` or `<img onerror>` in an
 * answer shows as the characters typed.
 */
import { h } from "./dom.js";

/** Link targets allowed; anything else is shown as its text. */
const SAFE_URL = /^(https?:\/\/|mailto:)/i;

/** Inline tokens, earliest match first: code, links, bold, italics, bare URLs, escapes. */
const INLINE =
  /`([^`\n]+)`|\[([^\]\n]+)\]\(([^)\s]+)\)|\*\*([^*\n]+?)\*\*|__([^_\n]+?)__|\*([^*\n]+?)\*|(?<![\p{L}\p{N}])_([^_\n]+?)_(?![\p{L}\p{N}])|(https?:\/\/[^\s<>()]+[^\s<>().,;:!?'"])|\\([\\`*_[\]()#+\-.!>])/u;

/** The inline Markdown of `text` as nodes (strings become text nodes through `h`). */
export function inlineMarkdown(text) {
  const out = [];
  let rest = String(text ?? "");
  // Bounded: each turn consumes at least one character.
  while (rest.length > 0) {
    const match = INLINE.exec(rest);
    if (!match) {
      out.push(rest);
      break;
    }
    if (match.index > 0) out.push(rest.slice(0, match.index));
    const [whole, code, label, url, bold1, bold2, em1, em2, bare, escaped] = match;
    if (code !== undefined) out.push(h("code", {}, code));
    else if (label !== undefined) {
      out.push(
        SAFE_URL.test(url)
          ? h(
            "a",
            { href: url, rel: "noopener noreferrer", target: "_blank" },
            inlineMarkdown(label),
          )
          : `${label} (${url})`,
      );
    } else if (bold1 !== undefined || bold2 !== undefined) {
      out.push(h("strong", {}, inlineMarkdown(bold1 ?? bold2)));
    } else if (em1 !== undefined || em2 !== undefined) {
      out.push(h("em", {}, inlineMarkdown(em1 ?? em2)));
    } else if (bare !== undefined) {
      out.push(h("a", { href: bare, rel: "noopener noreferrer", target: "_blank" }, bare));
    } else out.push(escaped);
    rest = rest.slice(match.index + whole.length);
  }
  return out;
}

const BULLET = /^\s{0,3}[-*+]\s+(.*)$/;
const NUMBERED = /^\s{0,3}\d{1,9}[.)]\s+(.*)$/;
const HEADING = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/;
const QUOTE = /^\s{0,3}>\s?(.*)$/;

/** Lines joined with line breaks between them. */
function withBreaks(lines) {
  return lines.flatMap((
    line,
    i,
  ) => (i === 0 ? inlineMarkdown(line) : [h("br"), ...inlineMarkdown(line)]));
}

/** The Markdown of `text` as block nodes (a `div.markdown` holding them). */
export function renderMarkdown(text) {
  const blocks = [];
  const lines = String(text ?? "").replace(/\r\n?/g, "\n").split("\n");
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    if (line.trim() === "") {
      i++;
      continue;
    }
    const list = BULLET.test(line) ? BULLET : NUMBERED.test(line) ? NUMBERED : null;
    if (list) {
      const items = [];
      while (i < lines.length && list.test(lines[i])) {
        items.push(h("li", {}, inlineMarkdown(lines[i].match(list)[1])));
        i++;
      }
      blocks.push(h(list === BULLET ? "ul" : "ol", {}, items));
      continue;
    }
    const heading = line.match(HEADING);
    if (heading) {
      blocks.push(h("p", {}, h("strong", {}, inlineMarkdown(heading[1]))));
      i++;
      continue;
    }
    if (QUOTE.test(line)) {
      const quoted = [];
      while (i < lines.length && QUOTE.test(lines[i])) quoted.push(lines[i++].match(QUOTE)[1]);
      blocks.push(h("blockquote", {}, h("p", {}, withBreaks(quoted))));
      continue;
    }
    const paragraph = [];
    while (
      i < lines.length && lines[i].trim() !== "" && !BULLET.test(lines[i]) &&
      !NUMBERED.test(lines[i]) && !HEADING.test(lines[i]) && !QUOTE.test(lines[i])
    ) {
      paragraph.push(lines[i++]);
    }
    blocks.push(h("p", {}, withBreaks(paragraph)));
  }
  return h("div", { class: "markdown" }, blocks);
}

/** The Markdown of `text` on one line (blocks joined by spaces), for dense lists. */
export function markdownLine(text) {
  const flat = String(text ?? "")
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map((line) => {
      const heading = line.match(HEADING);
      if (heading) return heading[1];
      const item = line.match(BULLET) ?? line.match(NUMBERED) ?? line.match(QUOTE);
      return item ? item[1] : line;
    })
    .map((line) => line.trim())
    .filter(Boolean)
    .join(" ");
  return inlineMarkdown(flat);
}
