import assert from "node:assert/strict";
import { neutralizeMarkdown } from "../../src/lib/safe_markdown_source.ts";
import { renderSafeMarkdown } from "../../src/lib/safe_markdown.ts";
import { fc } from "../deps.ts";
import { HOSTILE_MARKDOWN, renderAsReader, unsafeHtml } from "../support/safe_html.ts";

Deno.test("[lib] neutralizeMarkdown() leaves no raw HTML and no link but http(s) and mailto", async (t) => {
  for (const input of HOSTILE_MARKDOWN) {
    await t.step(input.slice(0, 40), () => {
      const html = renderAsReader(neutralizeMarkdown(input));
      assert.deepEqual(unsafeHtml(html), [], html);
      assert.doesNotMatch(html, /<(script|img|iframe|svg|style|details)\b/i);
      assert.doesNotMatch(html, /href="(javascript|data):/i);
    });
  }
});

Deno.test("[lib] neutralizeMarkdown() keeps what the HTML page shows", async (t) => {
  const rows: Array<{ name: string; input: string; expected: string }> = [
    { name: "raw HTML is text", input: "a <b>c</b> &", expected: "a &lt;b&gt;c&lt;/b&gt; &amp;" },
    {
      name: "a bare URL the parser did not link cannot swallow the next escape",
      input: "\\https://ok.example/x<img src=x onerror=alert(1)>",
      expected: "\\\\https&#58;//ok.example/x&lt;img src=x onerror=alert(1)&gt;",
    },
    {
      name: "a ! before a link stays text",
      input: "\\![x](https://ok.example/y)",
      expected: "\\![x](<https://ok.example/y>)",
    },
    {
      name: "safe links stay, others are text",
      input: "[ok](https://ok.example/a) [no](javascript:x)",
      expected: "[ok](<https://ok.example/a>) \\[no\\](javascript:x)",
    },
    {
      name: "a bare URL stays a bare link, written as an autolink",
      input: "See https://ok.example/a_b and <https://ok.example/c>.",
      expected: "See <https://ok.example/a_b> and <https://ok.example/c>.",
    },
    {
      name: "a link whose text is not its address keeps both",
      input: "[https://ok.example/a](https://ok.example/b)",
      expected: "[https://ok.example/a](<https://ok.example/b>)",
    },
    {
      name: "images are their description",
      input: "![logo](https://x/l.png)",
      expected: "\\[logo\\]",
    },
    {
      name: "structure survives",
      input: "# T\n\n- *a*\n- **b**\n\n1. `c`\n\n> q",
      expected: "# T\n\n- *a*\n- **b**\n\n1. `c`\n\n> q",
    },
    { name: "escaped markup stays text", input: "\\# x\n\\- y", expected: "\\# x\n\\- y" },
    { name: "code is kept as code", input: "```\n<b>\n```", expected: "```\n<b>\n```" },
  ];
  for (const row of rows) {
    await t.step(row.name, () => {
      const out = neutralizeMarkdown(row.input);
      assert.equal(out, row.expected);
      // The same text and links as the HTML page, up to rel attributes and heading levels.
      const plain = (html: string) =>
        html.replace(/ rel="[^"]*"/g, "").replace(/<(\/?)h\d>/g, "<$1h>")
          .replace(/<span class="img-alt">([^<]*)<\/span>/g, "$1").replace(/\s+/g, "");
      assert.equal(plain(renderAsReader(out)), plain(renderSafeMarkdown(row.input)));
    });
  }
});

Deno.test("[lib] neutralizeMarkdown() is safe for any mix of Markdown and hostile HTML", () => {
  const pieces = fc.constantFrom(
    ...HOSTILE_MARKDOWN,
    "\n",
    "\n\n",
    "- ",
    "1. ",
    "> ",
    "# ",
    "    ",
    "`",
    "``",
    "*",
    "_",
    "[",
    "]",
    "(",
    ")",
    "<",
    ">",
    "&",
    "\\",
    "|",
    "---",
    "===",
    "```",
    "https://ok.example/x",
    "javascript:",
    " onerror=",
    "text",
  );
  fc.assert(
    fc.property(fc.array(pieces, { maxLength: 30 }), (parts) => {
      const html = renderAsReader(neutralizeMarkdown(parts.join("")));
      assert.deepEqual(unsafeHtml(html), [], html);
    }),
    { numRuns: 500, seed: 20261101 },
  );
});
