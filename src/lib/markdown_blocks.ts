/**
 * Markdown as a flat list of blocks (headings, paragraphs, lists, code) whose text is data,
 * never markup: what a page that may not parse HTML strings (the dashboard runs under
 * Trusted Types with no policy) builds its elements from. markdown-it parses; raw HTML stays
 * text, and only http(s) and same-origin links keep their target.
 */
// @ts-types="@types/markdown-it"
import MarkdownIt from "markdown-it";

/** A run of text inside a block; `href` makes it a link, `code` inline code. */
export type Inline =
  | { type: "text"; text: string; strong?: boolean }
  | { type: "code"; text: string }
  | { type: "link"; text: string; href: string };

export type Block =
  | { type: "heading"; level: number; content: Inline[] }
  | { type: "paragraph"; content: Inline[] }
  | { type: "list"; ordered: boolean; items: Inline[][] }
  | { type: "code"; language: string | null; text: string };

type Token = ReturnType<MarkdownIt["parse"]>[number];

const parser = new MarkdownIt({ html: false, linkify: true, typographer: false });
const SAFE_HREF = /^(https?:\/\/|\/(?!\/)|#)/i;

function inlines(children: Token[] | null): Inline[] {
  const out: Inline[] = [];
  let href: string | null = null;
  let strong = false;
  const push = (text: string) => {
    const last = out.at(-1);
    if (href !== null) {
      if (last?.type === "link" && last.href === href) last.text += text;
      else out.push({ type: "link", text, href });
    } else if (last?.type === "text" && Boolean(last.strong) === strong) last.text += text;
    else out.push(strong ? { type: "text", text, strong } : { type: "text", text });
  };
  for (const token of children ?? []) {
    switch (token.type) {
      case "text":
        push(token.content);
        break;
      case "softbreak":
      case "hardbreak":
        push("\n");
        break;
      case "code_inline":
        out.push({ type: "code", text: token.content });
        break;
      case "link_open": {
        const target = token.attrGet("href") ?? "";
        href = SAFE_HREF.test(target) ? target : null;
        break;
      }
      case "link_close":
        href = null;
        break;
      case "strong_open":
        strong = true;
        break;
      case "strong_close":
        strong = false;
        break;
    }
  }
  return out;
}

/** The blocks of `markdown`, in order; nested lists are flattened into their parent's items. */
export function markdownBlocks(markdown: string): Block[] {
  const tokens = parser.parse(markdown, {});
  const blocks: Block[] = [];
  let list: Extract<Block, { type: "list" }> | null = null;
  let depth = 0;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token.type === "bullet_list_open" || token.type === "ordered_list_open") {
      if (depth++ === 0) {
        list = { type: "list", ordered: token.type === "ordered_list_open", items: [] };
        blocks.push(list);
      }
    } else if (token.type === "bullet_list_close" || token.type === "ordered_list_close") {
      if (--depth === 0) list = null;
    } else if (token.type === "inline" && list) {
      list.items.push(inlines(token.children));
    } else if (token.type === "heading_open") {
      const level = Number(token.tag.slice(1));
      blocks.push({ type: "heading", level, content: inlines(tokens[i + 1].children) });
      i++;
    } else if (token.type === "inline") {
      blocks.push({ type: "paragraph", content: inlines(token.children) });
    } else if (token.type === "fence" || token.type === "code_block") {
      const language = token.info.trim().split(/\s+/)[0] || null;
      blocks.push({ type: "code", language, text: token.content.replace(/\n$/, "") });
    }
  }
  return blocks;
}
