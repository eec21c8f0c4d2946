/** Members of an organization: list, remove or leave, and invitations for owners. */
import { badge, describeError, errorAlert, field, h, handleSubmit, replace } from "../dom.js";
import { capitalize, formatDate } from "../format.js";
import { href } from "../routes.js";
import { card, dataTable } from "./layout.js";
import { organizationHeader } from "./organization.js";

const orgPath = (id) => `/organizations/${encodeURIComponent(id)}`;

/**
 * The remove (or leave) control of one member row: a button that turns into
 * an inline confirmation, so nothing is removed by a single stray click.
 */
function removeControl(app, organization, entry, { onRemoved, errorSlot }) {
  const self = entry.user.id === app.me.user.id;
  const who = entry.user.name || entry.user.email;
  const verb = self ? "Leave" : "Remove";
  const slot = h("div", { class: "row-actions" });
  const idle = () => {
    const button = h("button", {
      type: "button",
      class: "btn btn-secondary btn-small",
      "aria-label": self ? "Leave the organization" : `Remove ${who}`,
      on: { click: confirming },
    }, verb);
    replace(slot, button);
    return button;
  };
  const confirming = () => {
    const yes = h("button", {
      type: "button",
      class: "btn btn-danger btn-small",
      on: { click: remove },
    }, verb);
    const cancel = h("button", {
      type: "button",
      class: "btn btn-secondary btn-small",
      on: { click: () => idle().focus() },
    }, "Cancel");
    const question = self ? "Leave this organization?" : `Remove ${who}?`;
    replace(slot, h("span", { class: "confirm-text" }, question), yes, cancel);
    yes.focus();
  };
  async function remove(event) {
    event.currentTarget.disabled = true;
    replace(errorSlot);
    try {
      await app.api.delete(
        `${orgPath(organization.id)}/members/${encodeURIComponent(entry.user.id)}`,
      );
      await onRemoved(self, who);
    } catch (error) {
      idle().focus();
      replace(errorSlot, errorAlert(describeError(error)));
    }
  }
  idle();
  return slot;
}

function membersTable(app, organization, members, options) {
  const isOwner = organization.role === "owner";
  return dataTable("Members of the organization", [
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
  ], members);
}

/** Copies `text`, falling back to selecting `input` for a manual copy. */
async function copy(text, input, status) {
  try {
    await navigator.clipboard.writeText(text);
    replace(status, "Link copied to the clipboard");
  } catch {
    input.focus();
    input.select();
    replace(status, "Selected; press Ctrl+C (or ⌘C) to copy");
  }
}

function invitationResult({ invitation, acceptUrl }) {
  const input = h("input", {
    id: "accept-url",
    class: "input-mono",
    readonly: true,
    value: acceptUrl,
    "aria-describedby": "accept-url-hint",
  });
  const status = h("p", { class: "copy-status", role: "status" });
  return h(
    "div",
    { class: "invite-result" },
    h(
      "div",
      { class: "alert alert-success", role: "status" },
      `Invitation created for ${invitation.email} as ${invitation.role}.`,
    ),
    h("label", { for: "accept-url" }, "Accept link"),
    h(
      "div",
      { class: "copy-row" },
      input,
      h("button", {
        type: "button",
        class: "btn btn-secondary",
        on: { click: () => copy(acceptUrl, input, status) },
      }, "Copy link"),
    ),
    h(
      "p",
      { class: "hint", id: "accept-url-hint" },
      `Send this link to ${invitation.email}. It is shown only once, works once, only for that email address, and expires ${
        formatDate(invitation.expiresAt, true)
      }.`,
    ),
    status,
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
  const load = async () => {
    const { members } = await app.api.get(`${orgPath(organization.id)}/members`);
    replace(listSlot, membersTable(app, organization, members, { onRemoved, errorSlot }));
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
      card("Members", [errorSlot, listSlot], {
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
