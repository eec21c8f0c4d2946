/**
 * Email subscribers of an organization and its projects: counts for every member, the
 * addresses (personal data) and removal for owners, and a notice when the service has no
 * email configured (subscribe requests are then refused and nothing is sent).
 */
import { h, replace } from "../dom.js";
import { formatDate } from "../format.js";
import { confirmAction } from "../widgets.js";
import { card, dataTable, emptyState } from "./layout.js";
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

function countsTable(counts, projects) {
  const name = (projectId) =>
    projectId === null
      ? "Whole organization"
      : projects.find((p) => p.id === projectId)?.name ?? "A deleted project";
  return dataTable("Subscribers by scope", [
    { label: "Scope", cell: (c) => name(c.projectId) },
    { label: "Confirmed", cell: (c) => String(c.confirmed) },
    { label: "Pending", cell: (c) => String(c.pending) },
  ], counts);
}

function subscribersTable(app, organization, list, { projects, errorSlot, reload }) {
  if (list.length === 0) {
    return emptyState("No subscribers yet", "Visitors subscribe from the trust pages.");
  }
  const scope = (s) =>
    s.projectId === null
      ? "Organization"
      : projects.find((p) => p.id === s.projectId)?.name ?? "Project";
  return dataTable("Subscribers", [
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
  ], list);
}

export async function subscribersView(app, organizationId) {
  const organization = await app.requireOrganization(organizationId);
  app.setTitle("Subscribers", organization.name);
  const { projects } = await app.api.get(`${orgPath(organization.id)}/projects`);
  const countsSlot = h("div", {});
  const listSlot = h("div", {});
  const noticeSlot = h("div", {});
  const errorSlot = h("div", { class: "form-errors" });
  const load = async (message) => {
    const data = await app.api.get(`${orgPath(organization.id)}/subscribers`);
    replace(noticeSlot, data.mail.configured ? "" : notConfigured());
    replace(countsSlot, countsTable(data.counts, projects));
    replace(
      listSlot,
      data.subscribers === null
        ? h("p", {}, "Only owners see subscribers' addresses: they are personal data.")
        : subscribersTable(app, organization, data.subscribers, {
          projects,
          errorSlot,
          reload: load,
        }),
    );
    if (message) {
      replace(errorSlot, h("div", { class: "alert alert-success", role: "status" }, message));
    }
  };
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
    card("Subscribers", [errorSlot, listSlot], {
      description: "Removing a subscriber deletes the address; nothing more is sent to it.",
    }),
  );
}
