/**
 * What "safe" means for HTML rendered from the service's Markdown by a reader that allows raw
 * HTML: only the elements Markdown itself produces, no event handler or other attribute beyond
 * the few markdown-it writes, and links to http(s) and mailto only.
 */
// @ts-types="@types/markdown-it"
import MarkdownIt from "markdown-it";

const ELEMENTS = new Set([
  "p",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "ul",
  "ol",
  "li",
  "blockquote",
  "pre",
  "code",
  "em",
  "strong",
  "s",
  "a",
  "table",
  "thead",
  "tbody",
  "tr",
  "th",
  "td",
  "br",
  "hr",
]);

/** Attribute values allowed per element and attribute name. */
const ATTRIBUTES: Record<string, RegExp> = {
  "a href": /^(https?:\/\/|mailto:)/i,
  "th style": /^text-align:(left|right|center)$/,
  "td style": /^text-align:(left|right|center)$/,
  "code class": /^language-[\w+#.-]+$/,
  "ol start": /^\d+$/,
};

/** A reader's rendering: raw HTML allowed, bare URLs linked. */
const reader = new MarkdownIt({ html: true, linkify: true });

/** `markdown` rendered as a permissive reader would (raw HTML on). */
export function renderAsReader(markdown: string): string {
  return reader.render(markdown);
}

/** The problems of `html`: each element or attribute a Markdown page should never produce. */
export function unsafeHtml(html: string): string[] {
  const problems: string[] = [];
  for (const [tag, name, rest] of html.matchAll(/<\/?([a-zA-Z][\w:-]*)([^>]*)>/g)) {
    const element = name.toLowerCase();
    if (!ELEMENTS.has(element)) problems.push(`element ${tag}`);
    for (const [, attribute, value] of rest.matchAll(/([^\s=/]+)(?:\s*=\s*"([^"]*)")?/g)) {
      const rule = ATTRIBUTES[`${element} ${attribute.toLowerCase()}`];
      if (!rule || !rule.test(value ?? "")) problems.push(`attribute ${attribute} in ${tag}`);
    }
  }
  return problems;
}

/** Hostile Markdown: raw HTML, event handlers, script links in every syntax Markdown has. */
export const HOSTILE_MARKDOWN = [
  "<script>alert(1)</script>",
  "<img src=x onerror=alert(2)>",
  '<a href="javascript:alert(3)">x</a>',
  "<iframe src=https://evil.example></iframe>",
  "<svg onload=alert(4)>",
  "<details open ontoggle=alert(5)>",
  "<style>body{display:none}</style>",
  "<!-- a comment --><b>bold</b>",
  "[js](javascript:alert(6))",
  "[JS](JAVASCRIPT:alert(7))",
  "[entity](&#106;avascript:alert(8))",
  "[data](data:text/html,<b>x</b>)",
  "[ref][r]\n\n[r]: javascript:alert(9)",
  "<javascript:alert(10)>",
  "![tracker](https://evil.example/pixel.png)",
  '![x" onerror="alert(11)](https://evil.example/x.png)',
  "&lt;script&gt;alert(12)&lt;/script&gt;",
  "`<script>` and\n\n```html\n<script>alert(13)</script>\n```",
  "| <b onclick=alert(14)>a</b> | b |\n|---|---|\n| <i>c</i> | d |",
  "> <script>alert(15)</script>\n> - <img src=x onerror=alert(16)>",
  "1. <u>x</u>\n2. [ok](https://ok.example/a)",
];
