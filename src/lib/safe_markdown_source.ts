/**
 * Markdown written by vendors (update bodies) rewritten as Markdown that is as safe as the HTML
 * the pages show: it is parsed exactly as `renderSafeMarkdown` parses it (raw HTML is text, only
 * http(s) and mailto links, images are their description) and written out again from the
 * parse, with every piece of text escaped. A reader that renders the result, even with raw HTML
 * allowed, gets no element, attribute or link the HTML page would not have.
 */
// @ts-types="@types/markdown-it"
import type { Token } from "markdown-it";
import { safeMarkdownParser } from "./safe_markdown.ts";

interface Node {
  token: Token;
  children: Node[];
}

/** The block tokens as a tree: each opening token holds what lies before its closing one. */
function treeOf(tokens: Token[]): Node[] {
  const root: Node[] = [];
  const stack = [root];
  for (const token of tokens) {
    if (token.nesting === -1) {
      stack.pop();
      continue;
    }
    const node = { token, children: [] };
    stack[stack.length - 1].push(node);
    if (token.nesting === 1) stack.push(node.children);
  }
  return root;
}

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;" };

/**
 * Text with every character Markdown could read as markup escaped: `&`, `<` and `>` as entities
 * (which no reader turns back into markup), the rest with a backslash. Outside a link, `://` is
 * written `&#58;//` too: a reader that links bare URLs while parsing (markdown-it's linkify) may
 * take the backslash after a URL into it and so undo the escape that follows.
 */
function escapeText(text: string, inLink: boolean): string {
  const escaped = text.replace(/[\\`*_[\]|~]/g, "\\$&").replace(/[&<>]/g, (c) => ENTITIES[c]);
  return inLink ? escaped : escaped.replace(/:\/\//g, "&#58;//");
}

/**
 * A line of inline Markdown whose start cannot open a block: a heading, a list item, a setext
 * underline or a thematic break (text that was not one in the source must not become one).
 */
function escapeLineStart(line: string): string {
  return line
    .replace(/^(#{1,6})(?=\s|$)/, "\\$1")
    .replace(/^([-+=])/, "\\$1")
    .replace(/^(\d{1,9})([.)])/, "$1\\$2");
}

/** A code span holding `content`, with a fence longer than any backtick run inside it. */
function codeSpan(content: string): string {
  const ticks = "`".repeat(
    Math.max(0, ...[...content.matchAll(/`+/g)].map((m) => m[0].length)) + 1,
  );
  const pad = /^[` ]|[` ]$/.test(content) && content.trim() !== "" ? " " : "";
  return `${ticks}${pad}${content}${pad}${ticks}`;
}

/** A link destination in the `<…>` form; markdown-it has already percent-encoded it. */
function destination(href: string): string {
  return `<${href.replace(/[\s<>\\]/g, (c) => encodeURIComponent(c))}>`;
}

/**
 * A bare http(s) URL the parser linked (`https://…` or `<https://…>` in the source), written
 * back as an autolink, `<https://…>`, rather than `[https://…](<https://…>)`; null for any
 * other link. Only a destination the parser accepted, without spaces, `<`, `>` or a backslash,
 * and shown as itself, qualifies.
 */
function autolink(children: Token[], i: number): string | null {
  const [open, text, close] = children.slice(i, i + 3);
  if (open.type !== "link_open" || !["linkify", "autolink"].includes(open.markup)) return null;
  if (text?.type !== "text" || close?.type !== "link_close") return null;
  const href = open.attrGet("href") ?? "";
  return /^https?:\/\/[^\s<>\\]+$/i.test(href) && text.content === href ? `<${href}>` : null;
}

/** The inline children of `token` as Markdown (lines joined by "\n"). */
function inline(token: Token | undefined): string {
  const hrefs: string[] = [];
  const children = token?.children ?? [];
  let out = "";
  for (let i = 0; i < children.length; i++) {
    const child = children[i];
    const bare = autolink(children, i);
    if (bare !== null) {
      out += bare;
      i += 2;
      continue;
    }
    switch (child.type) {
      case "softbreak":
        out += "\n";
        break;
      case "hardbreak":
        out += "\\\n";
        break;
      case "code_inline":
        out += codeSpan(child.content);
        break;
      case "em_open":
      case "em_close":
      case "strong_open":
      case "strong_close":
      case "s_open":
      case "s_close":
        out += child.markup;
        break;
      case "link_open":
        hrefs.push(child.attrGet("href") ?? "");
        // A "!" of the text before would make the link an image.
        out = `${out.endsWith("!") ? `${out.slice(0, -1)}\\!` : out}[`;
        break;
      case "link_close":
        out += `](${destination(hrefs.pop() ?? "")})`;
        break;
      case "image": {
        // As on the pages: the image's description, never the image.
        const parser = safeMarkdownParser;
        const alt = parser.renderer.renderInlineAsText(child.children ?? [], parser.options, {});
        out += alt ? `\\[${escapeText(alt, hrefs.length > 0)}\\]` : "";
        break;
      }
      default:
        out += escapeText(child.content, hrefs.length > 0);
    }
  }
  return out.split("\n").map(escapeLineStart).join("\n");
}

/** A fenced code block: its content is shown as it is, so it is quoted, not escaped. */
function fenced(content: string, info: string): string[] {
  const runs = [...content.matchAll(/`+/g)].map((m) => m[0].length);
  const fence = "`".repeat(Math.max(2, ...runs) + 1);
  const language = info.trim().split(/\s+/)[0];
  const lines = content.replace(/\n$/, "").split("\n");
  return [`${fence}${/^[\w+#.-]{1,40}$/.test(language) ? language : ""}`, ...lines, fence];
}

function list(node: Node): string[] {
  const ordered = node.token.type === "ordered_list_open";
  const start = Number(node.token.attrGet("start") ?? 1);
  // markdown-it hides the paragraphs of a tight list (no blank line between items).
  const tight = node.children.every((item) =>
    item.children.every((c) => c.token.type !== "paragraph_open" || c.token.hidden)
  );
  const out: string[] = [];
  node.children.forEach((item, i) => {
    const marker = ordered ? `${start + i}${item.token.markup}` : item.token.markup;
    const pad = " ".repeat(marker.length + 1);
    if (i > 0 && !tight) out.push("");
    const lines = blocks(item.children, tight);
    if (lines.length === 0) out.push(marker);
    lines.forEach((line, j) =>
      out.push(j === 0 ? `${marker} ${line}` : line ? `${pad}${line}` : "")
    );
  });
  return out;
}

const ALIGNMENT: Record<string, string> = {
  "text-align:left": ":--",
  "text-align:right": "--:",
  "text-align:center": ":-:",
};

function table(node: Node): string[] {
  const rows = node.children.flatMap((section) => section.children);
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  const cellsOf = (row: Node) => row.children.map((cell) => inline(cell.children[0]?.token));
  const [head, ...body] = rows;
  const align = head.children.map((cell) => ALIGNMENT[cell.token.attrGet("style") ?? ""] ?? "---");
  return [line(cellsOf(head)), line(align), ...body.map((row) => line(cellsOf(row)))]
    .map((l) => l.replace(/\n/g, " "));
}

function block(node: Node, tight: boolean): string[] {
  const { token } = node;
  switch (token.type) {
    case "paragraph_open":
      return inline(node.children[0]?.token).split("\n");
    case "heading_open": {
      const text = inline(node.children[0]?.token).replace(/\n/g, " ").replace(/#(\s*)$/, "\\#$1");
      return [`${"#".repeat(Number(token.tag.slice(1)))} ${text}`];
    }
    case "blockquote_open":
      return blocks(node.children, false).map((line) => (line ? `> ${line}` : ">"));
    case "bullet_list_open":
    case "ordered_list_open":
      return list(node);
    case "code_block":
    case "fence":
      return fenced(token.content, token.info);
    case "hr":
      return ["---"];
    case "table_open":
      return table(node);
    default:
      return node.children.length > 0
        ? blocks(node.children, tight)
        : token.content.split("\n").map((l) => escapeLineStart(escapeText(l, false)));
  }
}

/** Blocks one after another: a blank line between them, none in a tight list item. */
function blocks(nodes: Node[], tight: boolean): string[] {
  return nodes.flatMap((node, i) => [...(i > 0 && !tight ? [""] : []), ...block(node, tight)]);
}

/** `markdown` rewritten so that raw HTML is text and only http(s) and mailto links remain. */
export function neutralizeMarkdown(markdown: string): string {
  const tokens = safeMarkdownParser.parse(markdown, {});
  return blocks(treeOf(tokens), false).join("\n");
}
