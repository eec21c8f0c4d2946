/**
 * Members of an organization: the list in pages, remove or leave, and invitations for owners.
 */
import { badge, field, h, handleSubmit, replace } from "../dom.js";
import { capitalize, formatDate } from "../format.js";
import { href } from "../routes.js";
import { withQuery } from "../api.js";
import { confirmAction, copyField, showMore } from "../widgets.js";
import { card, dataTable, tableRow } from "./layout.js";
import { organizationHeader } from "./organization.js";

const orgPath = (id) => `/organizations/${encodeURIComponent(id)}`;

/** The remove (or leave) control of one member row, confirmed in place. */
function removeControl(app, organization, entry, { onRemoved, errorSlot }) {
  const self = entry.user.id === app.me.user.id;
  const who = entry.user.name || entry.user.email;
  const verb = self ? "Leave" : "Remove";
  return confirmAction({
    label: verb,
    ariaLabel: self ? "Leave the organization" : `Remove ${who}`,
    question: self ? "Leave this organization?" : `Remove ${who}?`,
    errorSlot,
    run: async () => {
      await app.api.delete(
        `${orgPath(organization.id)}/members/${encodeURIComponent(entry.user.id)}`,
      );
      await onRemoved(self, who);
    },
  });
}

function memberColumns(app, organization, options) {
  const isOwner = organization.role === "owner";
  return [
    {
      label: "Name",
      cell: (m) =>
        h(
          "span",
          { class: "member-name" },
          m.user.name,
          m.user.id === app.me.user.id && h("span", { class: "you" }, " (you)"),
        ),
    },
    { label: "Email", cell: (m) => m.user.email },
    {
      label: "Role",
      cell: (m) =>
        badge(capitalize(m.membership.role), m.membership.role === "owner" ? "info" : "neutral"),
    },
    {
      label: "Joined",
      cell: (m) =>
        h("time", { datetime: m.membership.createdAt }, formatDate(m.membership.createdAt)),
    },
    {
      label: "Actions",
      className: "cell-actions",
      cell: (m) =>
        isOwner || m.user.id === app.me.user.id ? removeControl(app, organization, m, options) : "",
    },
  ];
}

function invitationResult({ invitation, acceptUrl }) {
  return h(
    "div",
    { class: "invite-result" },
    h(
      "div",
      { class: "alert alert-success", role: "status" },
      `Invitation created for ${invitation.email} as ${invitation.role}.`,
    ),
    copyField("Accept link", acceptUrl, {
      id: "accept-url",
      what: "Link",
      button: "Copy link",
      hint:
        `Send this link to ${invitation.email}. It is shown only once, works once, only for that email address, and expires ${
          formatDate(invitation.expiresAt, true)
        }.`,
    }),
  );
}

function inviteForm(app, organization) {
  const errorSlot = h("div", { class: "form-errors" });
  const resultSlot = h("div", {});
  const form = h(
    "form",
    { class: "form" },
    field(
      "Email address",
      h("input", {
        name: "email",
        type: "email",
        required: true,
        autocomplete: "off",
        maxlength: "254",
      }),
    ),
    field(
      "Role",
      h(
        "select",
        { name: "role", value: "member" },
        h("option", { value: "member" }, "Member: works on projects"),
        h("option", { value: "owner" }, "Owner: also manages members"),
      ),
    ),
    errorSlot,
    h(
      "div",
      { class: "form-actions" },
      h("button", { type: "submit", class: "btn btn-primary" }, "Create invitation"),
    ),
  );
  handleSubmit(form, errorSlot, async (data) => {
    const result = await app.api.post(`${orgPath(organization.id)}/invitations`, {
      email: String(data.get("email")).trim(),
      role: data.get("role"),
    });
    form.reset();
    replace(resultSlot, invitationResult(result));
    resultSlot.querySelector("input").focus();
  });
  return h("div", {}, form, resultSlot);
}

export async function membersView(app, organizationId) {
  const organization = await app.requireOrganization(organizationId);
  app.setTitle("Members", organization.name);
  const listSlot = h("div", {});
  const errorSlot = h("div", { class: "form-errors" });
  const columns = memberColumns(app, organization, { onRemoved, errorSlot });
  const path = `${orgPath(organization.id)}/members`;
  const more = showMore({
    noun: ["member", "members"],
    next: async (cursor) => {
      const page = await app.api.get(withQuery(path, "cursor", cursor));
      return { items: page.members, nextCursor: page.nextCursor };
    },
    add: (items) => {
      const rows = items.map((m) => tableRow(columns, m));
      listSlot.querySelector("tbody").append(...rows);
      return rows;
    },
    errorSlot,
  });
  const load = async () => {
    const { members, nextCursor } = await app.api.get(path);
    replace(listSlot, dataTable("Members of the organization", columns, members));
    more.reset(nextCursor, members.length);
  };
  async function onRemoved(self, who) {
    if (self) {
      await app.loadMe({ force: true });
      app.flash(`You left ${organization.name}`);
      app.navigate(href.home());
      return;
    }
    await load();
    replace(
      errorSlot,
      h("div", { class: "alert alert-success", role: "status" }, `${who} was removed`),
    );
  }
  await load();
  return h(
    "div",
    {},
    organizationHeader(organization, "members"),
    h(
      "div",
      { class: "layout-split" },
      card("Members", [errorSlot, listSlot, more.element], {
        description: "Owners manage membership; every member can work on every project.",
      }),
      organization.role === "owner"
        ? card("Invite a member", inviteForm(app, organization), {
          description: "Invitations expire after 7 days.",
        })
        : card("Invite a member", h("p", {}, "Only owners of the organization can invite people.")),
    ),
  );
}
