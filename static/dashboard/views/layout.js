/** Building blocks shared by the views: page headers, tabs, cards, tables. */
import { badge, h, uniqueId } from "../dom.js";

/**
 * The heading block of a view. `crumbs` are `{ label, href }` links above
 * the title; `badges` and `meta` sit beside and below it.
 */
export function pageHeader({ title, crumbs = [], badges = [], meta = [] }) {
  return h(
    "div",
    { class: "page-header" },
    crumbs.length > 0 &&
      h(
        "nav",
        { class: "breadcrumbs", "aria-label": "Breadcrumb" },
        h("ol", {}, crumbs.map((c) => h("li", {}, h("a", { href: c.href }, c.label)))),
      ),
    h(
      "div",
      { class: "page-title-row" },
      h("h1", { tabindex: "-1" }, title),
      badges.length > 0 && h("div", { class: "badges" }, badges),
    ),
    meta.length > 0 && h("p", { class: "page-meta" }, joinMeta(meta)),
  );
}

function joinMeta(items) {
  const out = [];
  items.filter(Boolean).forEach((item, i) => {
    if (i > 0) out.push(h("span", { class: "meta-sep", "aria-hidden": "true" }, "·"));
    out.push(h("span", {}, item));
  });
  return out;
}

/** A row of section links; the current one carries aria-current="page". */
export function tabs(label, items) {
  return h(
    "nav",
    { class: "tabs", "aria-label": label },
    h(
      "ul",
      {},
      items.map((item) =>
        h(
          "li",
          {},
          h("a", { href: item.href, "aria-current": item.current ? "page" : null }, item.label),
        )
      ),
    ),
  );
}

/** A titled panel; its h2 labels the section. */
export function card(title, content, { description } = {}) {
  const headingId = uniqueId("card");
  return h(
    "section",
    { class: "card", "aria-labelledby": headingId },
    h(
      "div",
      { class: "card-header" },
      h(
        "div",
        {},
        h("h2", { id: headingId }, title),
        description && h("p", { class: "card-description" }, description),
      ),
    ),
    content,
  );
}

/**
 * A data table that becomes a stack of labelled rows on narrow screens.
 * `columns` are `{ label, cell(row) → node|string, className? }`.
 */
export function dataTable(caption, columns, rows) {
  return h(
    "table",
    { class: "data-table" },
    h("caption", { class: "visually-hidden" }, caption),
    h(
      "thead",
      {},
      h("tr", {}, columns.map((c) => h("th", { scope: "col", class: c.className }, c.label))),
    ),
    h(
      "tbody",
      {},
      rows.map((row) =>
        h(
          "tr",
          {},
          columns.map((c) => h("td", { "data-label": c.label, class: c.className }, c.cell(row))),
        )
      ),
    ),
  );
}

/** What a list shows when it has nothing in it. */
export function emptyState(title, text) {
  return h(
    "div",
    { class: "empty-state" },
    h("p", { class: "empty-title" }, title),
    h("p", {}, text),
  );
}

/** A definition list of facts, `[term, value]` pairs. */
export function facts(pairs) {
  return h(
    "dl",
    { class: "facts" },
    pairs.map(([term, value]) => h("div", {}, h("dt", {}, term), h("dd", {}, value))),
  );
}

/** "Public" or "Private", coloured so public projects stand out. */
export function visibilityBadge(visibility) {
  return visibility === "public" ? badge("Public", "success") : badge("Private");
}
