/**
 * Email subscribers of an organization and its projects: counts for every member, the
 * addresses (personal data, in pages) and removal for owners, and a notice when the service has no
 * email configured (subscribe requests are then refused and nothing is sent).
 */
import { h, replace } from "../dom.js";
import { formatDate } from "../format.js";
import { withQuery } from "../api.js";
import { confirmAction, showMore } from "../widgets.js";
import { card, dataTable, emptyState, tableRow } from "./layout.js";
import { organizationHeader } from "./organization.js";

const orgPath = (id) => `/organizations/${encodeURIComponent(id)}`;

function notConfigured() {
  return h(
    "div",
    { class: "alert alert-warning", role: "status" },
    h("strong", {}, "Email is not configured. "),
    "This service sends no email (neither SMTP_URL nor SES_REGION is set), so visitors cannot subscribe and no notification is sent. Set one of them and restart to turn email on.",
  );
}

/** The counts by scope; `complete` says whether `projects` is every project of the organization. */
function countsTable(counts, { projects, complete }) {
  const name = (projectId) =>
    projectId === null ? "Whole organization" : projects.find((p) => p.id === projectId)?.name ??
      (complete ? "A deleted project" : "A project");
  return dataTable("Subscribers by scope", [
    { label: "Scope", cell: (c) => name(c.projectId) },
    { label: "Confirmed", cell: (c) => String(c.confirmed) },
    { label: "Pending", cell: (c) => String(c.pending) },
  ], counts);
}

function subscriberColumns(app, organization, { projects, errorSlot, reload }) {
  const scope = (s) =>
    s.projectId === null
      ? "Organization"
      : projects.find((p) => p.id === s.projectId)?.name ?? "Project";
  return [
    { label: "Email", cell: (s) => s.email },
    { label: "Scope", cell: scope },
    { label: "Status", cell: (s) => (s.status === "confirmed" ? "Confirmed" : "Pending") },
    { label: "Since", cell: (s) => h("time", { datetime: s.createdAt }, formatDate(s.createdAt)) },
    {
      label: "Actions",
      className: "cell-actions",
      cell: (s) =>
        confirmAction({
          label: "Remove",
          ariaLabel: `Remove ${s.email}`,
          question: `Remove ${s.email}?`,
          errorSlot,
          run: async () => {
            await app.api.delete(`${orgPath(organization.id)}/subscribers/${s.id}`);
            await reload(`${s.email} was removed`);
          },
        }),
    },
  ];
}

export async function subscribersView(app, organizationId) {
  const organization = await app.requireOrganization(organizationId);
  app.setTitle("Subscribers", organization.name);
  // Scopes are named from the projects, read up to getAll's bound.
  const { items: projects, complete } = await app.api.getAll(
    `${orgPath(organization.id)}/projects`,
    "projects",
  );
  const countsSlot = h("div", {});
  const listSlot = h("div", {});
  const noticeSlot = h("div", {});
  const errorSlot = h("div", { class: "form-errors" });
  const path = `${orgPath(organization.id)}/subscribers`;
  const columns = subscriberColumns(app, organization, { projects, errorSlot, reload: load });
  const more = showMore({
    noun: ["subscriber", "subscribers"],
    next: async (cursor) => {
      const page = await app.api.get(withQuery(path, "cursor", cursor));
      return { items: page.subscribers ?? [], nextCursor: page.nextCursor };
    },
    add: (items) => {
      const rows = items.map((s) => tableRow(columns, s));
      listSlot.querySelector("tbody").append(...rows);
      return rows;
    },
    errorSlot,
  });
  async function load(message) {
    const data = await app.api.get(path);
    replace(noticeSlot, data.mail.configured ? "" : notConfigured());
    replace(countsSlot, countsTable(data.counts, { projects, complete }));
    replace(
      listSlot,
      data.subscribers === null
        ? h("p", {}, "Only owners see subscribers' addresses: they are personal data.")
        : data.subscribers.length === 0
        ? emptyState("No subscribers yet", "Visitors subscribe from the trust pages.")
        : dataTable("Subscribers", columns, data.subscribers),
    );
    more.reset(data.subscribers?.length ? data.nextCursor : null, data.subscribers?.length ?? 0);
    if (message) {
      replace(errorSlot, h("div", { class: "alert alert-success", role: "status" }, message));
    }
  }
  await load();
  return h(
    "div",
    {},
    organizationHeader(organization, "subscribers"),
    noticeSlot,
    card("Subscriber counts", countsSlot, {
      description:
        "People who asked for email about a regression, an update or a subprocessor change. Pending ones have not confirmed yet (links expire after 48 hours).",
    }),
    card("Subscribers", [errorSlot, listSlot, more.element], {
      description: "Removing a subscriber deletes the address; nothing more is sent to it.",
    }),
  );
}
