/** Building blocks shared by the views: page headers, tabs, cards, tables. */
import { badge, h, uniqueId } from "../dom.js";
import { formatDate, formatRelative } from "../format.js";

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

/**
 * A row of section links; the current one carries aria-current="page" and
 * is scrolled into view when the row is wider than the screen.
 */
export function tabs(label, items) {
  const nav = h(
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
  requestAnimationFrame(() => {
    const current = nav.querySelector("[aria-current=page]");
    if (!current || nav.scrollWidth <= nav.clientWidth) return;
    const offset = current.getBoundingClientRect().left - nav.getBoundingClientRect().left;
    nav.scrollLeft += offset - (nav.clientWidth - current.offsetWidth) / 2;
  });
  return nav;
}

/**
 * Section links in named groups (an organization's sections), in one navigation landmark:
 * each group's name above its links, the current section's link with aria-current="page" and
 * its group marked. Groups and links wrap onto further lines instead of scrolling, so every
 * section stays in sight at any width (nothing overflows out of view).
 */
export function groupedTabs(label, groups) {
  return h(
    "nav",
    { class: "tab-groups", "aria-label": label },
    h(
      "ul",
      {},
      groups.map((group) => {
        const id = uniqueId("tab-group");
        const current = group.items.some((item) => item.current);
        return h(
          "li",
          { class: current ? "tab-group tab-group-current" : "tab-group" },
          h("span", { class: "tab-group-label", id }, group.label),
          h(
            "ul",
            { "aria-labelledby": id },
            group.items.map((item) =>
              h(
                "li",
                {},
                h(
                  "a",
                  { href: item.href, "aria-current": item.current ? "page" : null },
                  item.label,
                ),
              )
            ),
          ),
        );
      }),
    ),
  );
}

/**
 * A titled panel; its h2 labels the section. `actions` sit at the right of
 * the header (a button that acts on the whole card).
 */
export function card(title, content, { description, actions, className } = {}) {
  const headingId = uniqueId("card");
  return h(
    "section",
    { class: className ? `card ${className}` : "card", "aria-labelledby": headingId },
    h(
      "div",
      { class: "card-header" },
      h(
        "div",
        {},
        h("h2", { id: headingId }, title),
        description && h("p", { class: "card-description" }, description),
      ),
      actions && h("div", { class: "card-actions" }, actions),
    ),
    content,
  );
}

/** A cell's content as one node, so the stacked layout keeps it beside its label. */
function cell(column, row) {
  const content = column.cell(row);
  return Array.isArray(content) ? h("div", {}, content) : content;
}

/**
 * A data table that becomes a stack of labelled rows on narrow screens.
 * `columns` are `{ label, cell(row) → node|string|array, className? }`; `rowId`
 * marks each `<tr>` with `data-id`, for rows inserted below it later.
 */
export function dataTable(caption, columns, rows, { className, rowId } = {}) {
  return h(
    "table",
    { class: className ? `data-table ${className}` : "data-table" },
    h("caption", { class: "visually-hidden" }, caption),
    h(
      "thead",
      {},
      h("tr", {}, columns.map((c) => h("th", { scope: "col", class: c.className }, c.label))),
    ),
    h("tbody", {}, rows.map((row) => tableRow(columns, row, { rowId }))),
  );
}

/** One `<tr>` of a data table with these `columns` (to replace a row after it changed). */
export function tableRow(columns, row, { rowId } = {}) {
  return h(
    "tr",
    { "data-id": rowId?.(row) },
    columns.map((c) => h("td", { "data-label": c.label, class: c.className }, cell(c, row))),
  );
}

/** A `<time>` showing how long ago (or until) `iso`, the exact instant in its title. */
export function timeAgo(iso) {
  return h("time", { datetime: iso, title: formatDate(iso, true) }, formatRelative(iso));
}

/** A `<time>` showing the date and time of `iso`. */
export function dateTime(iso) {
  return h("time", { datetime: iso }, formatDate(iso, true));
}

/** A table cell naming a control or record: its name over its key in code. */
export function nameWithKey(name, key) {
  return h(
    "div",
    { class: "cell-name" },
    h("span", { class: "cell-primary" }, name),
    h("code", {}, key),
  );
}

/** What a list shows when it has nothing in it. */
export function emptyState(title, ...text) {
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

/**
 * A full-width row to insert under a data table's row (an editor, a payload).
 * `span` is the number of columns it covers.
 */
export function detailRow(id, span, ...content) {
  return h("tr", { id, class: "detail-row" }, h("td", { colspan: String(span) }, content));
}
