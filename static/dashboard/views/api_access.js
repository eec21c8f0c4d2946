/**
 * An organization's API access (docs/api_access.md): personal access tokens, created with a
 * name, a scope and a lifetime and shown once, listed with when each was created, last used and
 * expires, and revoked in place. A member sees their own tokens, an owner everyone's.
 */
import { field, h, handleSubmit, replace, successAlert } from "../dom.js";
import { formatDate } from "../format.js";
import { confirmAction, copyField } from "../widgets.js";
import { card, dataTable, emptyState } from "./layout.js";
import { organizationHeader } from "./organization.js";

const tokensPath = (id) => `/organizations/${encodeURIComponent(id)}/access-tokens`;

const LIFETIMES = [
  { days: 7, label: "7 days" },
  { days: 30, label: "30 days" },
  { days: 90, label: "90 days" },
  { days: 365, label: "1 year (the longest)" },
];

const SCOPES = {
  "read": "Read-only (GET requests)",
  "read-write": "Read and write",
};

function when(iso, withTime = false) {
  return iso ? h("time", { datetime: iso }, formatDate(iso, withTime)) : "Never";
}

function tokenTable(app, organization, accessTokens, { reload, errorSlot }) {
  if (accessTokens.length === 0) {
    return emptyState("No access tokens", "Create one below to call the API from a script.");
  }
  const columns = [
    { label: "Name", cell: (t) => t.name },
    { label: "Scope", cell: (t) => SCOPES[t.scope] ?? t.scope },
    organization.role === "owner" && {
      label: "Holder",
      cell: (t) => (t.userId === app.me.user.id ? "You" : "Another member"),
    },
    { label: "Created", cell: (t) => when(t.createdAt) },
    { label: "Last used", cell: (t) => when(t.lastUsedAt, true) },
    { label: "Expires", cell: (t) => when(t.expiresAt) },
    {
      label: "Actions",
      className: "cell-actions",
      cell: (t) =>
        confirmAction({
          label: "Revoke",
          ariaLabel: `Revoke ${t.name}`,
          question: `Revoke “${t.name}”? Scripts using it stop at once.`,
          errorSlot,
          run: async () => {
            await app.api.delete(
              `${tokensPath(organization.id)}/${encodeURIComponent(t.id)}`,
            );
            await reload(`Token “${t.name}” revoked.`);
          },
        }),
    },
  ].filter(Boolean);
  return dataTable("Personal access tokens", columns, accessTokens);
}

function createForm(app, organization, { reload, shown }) {
  const errorSlot = h("div", { class: "form-errors" });
  const scopeChoice = (value, checked) => {
    const id = `token-scope-${value}`;
    return h(
      "div",
      { class: "choice" },
      h("input", { type: "radio", id, name: "scope", value, checked }),
      h("label", { for: id }, h("span", { class: "choice-label" }, SCOPES[value])),
    );
  };
  const form = h(
    "form",
    { class: "form" },
    field(
      "Token name",
      h("input", { name: "name", required: true, maxlength: "100", autocomplete: "off" }),
      "What it is for, e.g. “Nightly export”.",
    ),
    h(
      "fieldset",
      { class: "field choices" },
      h("legend", {}, "Scope"),
      scopeChoice("read", true),
      scopeChoice("read-write", false),
    ),
    field(
      "Expires after",
      h(
        "select",
        { name: "expiresInDays" },
        LIFETIMES.map((l) =>
          h("option", { value: String(l.days), selected: l.days === 90 }, l.label)
        ),
      ),
    ),
    errorSlot,
    h(
      "div",
      { class: "form-actions" },
      h("button", { type: "submit", class: "btn btn-primary" }, "Create token"),
    ),
  );
  handleSubmit(form, errorSlot, async (data) => {
    const created = await app.api.post(tokensPath(organization.id), {
      name: String(data.get("name") ?? "").trim(),
      scope: String(data.get("scope")),
      expiresInDays: Number(data.get("expiresInDays")),
    });
    form.reset();
    replace(
      shown,
      h(
        "div",
        { class: "alert alert-success", role: "status" },
        h(
          "p",
          {},
          `Token “${created.accessToken.name}” created. Copy it now: it is not shown again.`,
        ),
      ),
      copyField("Access token", created.token, {
        what: "Token",
        hint: "Send it as “Authorization: Bearer <token>”. The service keeps only its hash.",
      }),
    );
    await reload();
    shown.querySelector("input")?.focus();
  });
  return form;
}

export async function apiAccessView(app, organizationId) {
  const organization = await app.requireOrganization(organizationId);
  app.setTitle("API access", organization.name);
  const listSlot = h("div", {});
  const status = h("div", { "aria-live": "polite" });
  const errorSlot = h("div", { class: "form-errors" });
  const shown = h("div", { class: "token-shown" });
  const reload = async (message) => {
    const { accessTokens } = await app.api.get(tokensPath(organization.id));
    replace(listSlot, tokenTable(app, organization, accessTokens, { reload, errorSlot }));
    replace(status, message ? successAlert(message) : null);
  };
  await reload();
  return h(
    "div",
    {},
    organizationHeader(organization, "api-access"),
    card("Access tokens", h("div", {}, status, errorSlot, listSlot), {
      description: organization.role === "owner"
        ? "Every member's live tokens for this organization's API. A token acts as its holder and stops when they leave."
        : "Your live tokens for this organization's API. A token acts as you and stops if you leave.",
    }),
    card(
      "New access token",
      h("div", {}, shown, createForm(app, organization, { reload, shown })),
      {
        description:
          "For scripts: the export, retention and settings of this organization and its projects. Read-only tokens are refused on changes; managing tokens and deleting need a signed-in session.",
      },
    ),
  );
}
