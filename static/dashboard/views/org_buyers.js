/**
 * The access inventory for the organization's Documents view (docs/ads.md): each buyer
 * organization with its people, what it may read until when and its service tokens, with
 * Revoke for owners; the access summary per month as a bar chart (inline SVG, its numbers in
 * the bars' titles and in a table), per buyer organization and per document, exportable as
 * CSV and JSON; the anonymous page views of the last 30 days.
 */
import { errorAlert, h } from "../dom.js";
import { formatDate } from "../format.js";
import { runButton, saveFile } from "../widgets.js";
import { card, dataTable, emptyState } from "./layout.js";

const base = (id) => `/organizations/${encodeURIComponent(id)}`;
const day = (iso) => formatDate(iso, false);
const SVG = "http://www.w3.org/2000/svg";

function svg(tag, attrs, ...children) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  for (const child of children) el.append(child);
  return el;
}

/** Reads per month as bars, views and downloads side by side, each titled with its number. */
function chart(summary) {
  const months = summary.byMonth;
  if (months.length === 0) return emptyState("No reads yet", "Reads by buyers appear here.");
  const max = Math.max(1, ...months.flatMap((m) => [m.views, m.downloads]));
  const slot = 56;
  const height = 160;
  const width = Math.max(200, months.length * slot + 20);
  const title = svg("title", { id: "reads-chart-title" });
  title.textContent = "Reads per month: views and downloads";
  const figure = svg("svg", {
    viewBox: `0 0 ${width} ${height}`,
    role: "img",
    "aria-labelledby": "reads-chart-title",
    class: "reads-chart",
    width: "100%",
    height,
  }, title);
  months.forEach((m, i) => {
    const x = 10 + i * slot;
    for (const [value, dx, kind] of [[m.views, 0, "views"], [m.downloads, 20, "downloads"]]) {
      const h2 = Math.round((value / max) * (height - 40));
      const bar = svg("rect", {
        x: x + dx,
        y: height - 20 - h2,
        width: 18,
        height: h2,
        fill: kind === "views" ? "#2563eb" : "#059669",
      });
      const t = svg("title", {});
      t.textContent = `${m.key}: ${value} ${kind}`;
      bar.append(t);
      figure.append(bar);
    }
    const label = svg("text", {
      x: x + 19,
      y: height - 5,
      "text-anchor": "middle",
      "font-size": 11,
      fill: "currentColor",
    });
    label.textContent = m.key;
    figure.append(label);
  });
  return h(
    "div",
    {},
    figure,
    h("p", { class: "hint" }, "Blue: views; green: downloads."),
    dataTable("Reads per month", [
      { label: "Month", cell: (m) => m.key },
      { label: "Views", cell: (m) => String(m.views) },
      { label: "Downloads", cell: (m) => String(m.downloads) },
    ], months),
  );
}

function exportButtons(app, organization, errorSlot) {
  const path = `${base(organization.id)}/access-summaries`;
  const button = (format) => {
    const b = h(
      "button",
      { type: "button", class: "btn btn-secondary btn-small" },
      `Export ${format.toUpperCase()}`,
    );
    b.addEventListener("click", () =>
      runButton(b, errorSlot, async () => {
        if (format === "csv") {
          const { blob, filename } = await app.api.download(`${path}?format=csv`, "text/csv");
          saveFile(blob, filename ?? "access-summary.csv");
        } else {
          const summary = await app.api.get(path);
          const blob = new Blob([JSON.stringify(summary, null, 2)], { type: "application/json" });
          saveFile(blob, `access-summary-${organization.slug}.json`);
        }
      }));
    return b;
  };
  return h("div", { class: "row-actions" }, button("csv"), button("json"));
}

function inventoryTable(app, ctx, entries) {
  if (entries.length === 0) {
    return emptyState(
      "No buyer organizations yet",
      "The first person of a company to sign in on the trust center's buyer page founds one.",
    );
  }
  const owner = ctx.organization.role === "owner";
  const errorSlot = h("div", { class: "form-errors" });
  const revoke = (b) => {
    const button = h("button", {
      type: "button",
      class: "btn btn-secondary btn-small",
      "aria-label": `Revoke the access of ${b.buyerOrganization.domain}`,
    }, "Revoke");
    button.addEventListener("click", () =>
      runButton(button, errorSlot, async () => {
        const domain = encodeURIComponent(b.buyerOrganization.domain);
        await app.api.post(`${base(ctx.organization.id)}/buyer-organizations/${domain}/revoke`);
        await ctx.reload(`The access of ${b.buyerOrganization.domain} was revoked`);
      }));
    return button;
  };
  return h(
    "div",
    {},
    dataTable("Buyer organizations", [
      {
        label: "Organization",
        cell: (b) =>
          h(
            "div",
            {},
            h("strong", {}, b.buyerOrganization.domain),
            h("div", { class: "hint" }, `Since ${day(b.buyerOrganization.createdAt)}`),
          ),
      },
      {
        label: "People",
        cell: (b) => b.members.map((m) => `${m.email} (${m.role})`).join(", "),
      },
      {
        label: "Can read",
        cell: (b) =>
          b.buyerOrganization.revokedAt
            ? `Revoked ${day(b.buyerOrganization.revokedAt)}`
            : b.grants.length === 0
            ? "Nothing"
            : b.grants.map((g) => `${g.title} until ${day(g.expiresAt)}`).join("; "),
      },
      {
        label: "Service tokens",
        cell: (b) =>
          String(
            b.serviceTokens.filter((t) => !t.revokedAt && Date.parse(t.expiresAt) > Date.now())
              .length,
          ),
      },
      {
        label: "Actions",
        cell: (b) => owner && !b.buyerOrganization.revokedAt ? revoke(b) : "",
      },
    ], entries),
    errorSlot,
  );
}

/** The inventory, summaries and page view cards for the Documents view. */
export async function buyerCards(app, ctx) {
  const path = base(ctx.organization.id);
  try {
    const [{ buyerOrganizations }, summary, { views }] = await Promise.all([
      app.api.get(`${path}/buyer-organizations`),
      app.api.get(`${path}/access-summaries`),
      app.api.get(`${path}/page-views`),
    ]);
    const errorSlot = h("div", { class: "form-errors" });
    const pages = new Map();
    for (const v of views) pages.set(v.path, (pages.get(v.path) ?? 0) + v.views);
    return [
      card("Access inventory", inventoryTable(app, ctx, buyerOrganizations), {
        description:
          "Every buyer organization, its people, what it may read until when, and its tokens.",
      }),
      card(
        "Access summary",
        h(
          "div",
          {},
          chart(summary),
          summary.byOrganization.length === 0 ? null : dataTable("Reads per organization", [
            { label: "Organization", cell: (t) => t.key || "(access links)" },
            { label: "Views", cell: (t) => String(t.views) },
            { label: "Downloads", cell: (t) => String(t.downloads) },
          ], summary.byOrganization),
          exportButtons(app, ctx.organization, errorSlot),
          errorSlot,
        ),
        {
          description:
            `Reads by known parties since ${summary.from}, kept ${summary.keptMonths} months.`,
        },
      ),
      card(
        "Page views",
        pages.size === 0
          ? emptyState("No page views yet", "Counted per page and day, without cookies.")
          : dataTable("Page views, last 30 days", [
            { label: "Page", cell: ([p]) => h("code", {}, p) },
            { label: "Views", cell: ([, n]) => String(n) },
          ], [...pages]),
        { description: "Anonymous: one counter per page and day, no cookie, no address." },
      ),
    ];
  } catch (error) {
    return [errorAlert(error.message)];
  }
}
