/**
 * The collector setup guide, rendered: built from GET /projects/{id}/setup.json, whose blocks
 * are plain text (the dashboard parses no HTML), with a Copy button on every code block.
 */
import { h, replace } from "../../dom.js";

const LANGUAGES = { sh: "Shell", yaml: "YAML", json: "JSON" };

function inline(parts) {
  return parts.map((part) => {
    if (part.type === "code") return h("code", {}, part.text);
    if (part.type === "link") return h("a", { href: part.href }, part.text);
    return part.strong ? h("strong", {}, part.text) : part.text;
  });
}

/** The title of a code block: its language and, for a CI file, the heading it sits under. */
function codeTitle(block, heading) {
  const language = LANGUAGES[block.language] ?? "Code";
  return heading ? `${language} · ${heading}` : language;
}

function codeBlock(block, heading) {
  const status = h("span", { class: "copy-status", role: "status" });
  const title = codeTitle(block, heading);
  const button = h("button", {
    type: "button",
    class: "btn btn-secondary btn-small",
    "aria-label": `Copy: ${title}`,
    on: {
      click: async () => {
        try {
          await navigator.clipboard.writeText(block.text);
          replace(status, "Copied");
        } catch {
          getSelection()?.selectAllChildren(pre);
          replace(status, "Selected; press Ctrl+C (or ⌘C) to copy");
        }
      },
    },
  }, "Copy");
  const pre = h(
    "pre",
    { class: "guide-code", tabindex: "0", role: "region", "aria-label": title },
    h("code", {}, block.text),
  );
  return h(
    "div",
    { class: "code-block" },
    h("div", { class: "code-head" }, h("span", {}, title), status, button),
    pre,
  );
}

/** The guide's blocks as elements; its h1 is left out (the card has its own title). */
export function renderGuide(blocks) {
  let heading = "";
  const nodes = [];
  for (const block of blocks) {
    if (block.type === "heading") {
      heading = block.content.map((c) => c.text).join("");
      if (block.level === 1) continue;
      nodes.push(h(`h${Math.min(6, block.level + 1)}`, {}, inline(block.content)));
    } else if (block.type === "paragraph") {
      nodes.push(h("p", {}, inline(block.content)));
    } else if (block.type === "list") {
      nodes.push(
        h(block.ordered ? "ol" : "ul", {}, block.items.map((item) => h("li", {}, inline(item)))),
      );
    } else if (block.type === "code") {
      nodes.push(codeBlock(block, heading));
    }
  }
  return h("div", { class: "guide" }, nodes);
}
