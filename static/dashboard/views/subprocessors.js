/**
 * Subprocessors of an organization: the current list and the history of every change with
 * who made it. Owners add, edit and remove them; members read.
 */
import { field, h, handleSubmit, replace, successAlert } from "../dom.js";
import { formatDate } from "../format.js";
import { confirmAction } from "../widgets.js";
import { card, dataTable, emptyState } from "./layout.js";
import { organizationHeader, trustCenterUrl } from "./organization.js";

const listPath = (id) => `/organizations/${encodeURIComponent(id)}/subprocessors`;
const FIELDS = ["name", "purpose", "location", "website"];

function historyLine(entry) {
  const who = entry.actor.email ?? "a member";
  const when = formatDate(entry.at, true);
  if (entry.action !== "changed") {
    return `${when}: ${entry.name} ${entry.action} by ${who}`;
  }
  const changed = FIELDS.filter((f) => entry.before[f] !== entry.after[f])
    .map((f) => `${f} “${entry.before[f]}” → “${entry.after[f]}”`);
  return `${when}: ${entry.name} changed by ${who}: ${changed.join("; ")}`;
}

function subprocessorForm(app, organization, { onSaved }) {
  const errorSlot = h("div", { class: "form-errors" });
  const title = h("h3", { class: "form-title" }, "Add a subprocessor");
  let editing = null;
  const submit = h("button", { type: "submit", class: "btn btn-primary" }, "Add subprocessor");
  const cancel = h("button", {
    type: "button",
    class: "btn btn-secondary",
    hidden: true,
    on: { click: () => edit(null) },
  }, "Cancel edit");
  const form = h(
    "form",
    { class: "form", "aria-label": "Subprocessor" },
    title,
    field("Name", h("input", { name: "name", required: true, maxlength: "200" })),
    field("Purpose", h("input", { name: "purpose", required: true, maxlength: "500" })),
    field(
      "Location",
      h("input", { name: "location", required: true, maxlength: "200" }),
      "Country or region where the data is processed.",
    ),
    field(
      "Website",
      h("input", { name: "website", type: "url", required: true, placeholder: "https://" }),
    ),
    errorSlot,
    h("div", { class: "form-actions" }, submit, cancel),
  );
  function edit(subprocessor) {
    editing = subprocessor;
    form.reset();
    replace(errorSlot);
    for (const f of FIELDS) form.elements[f].value = subprocessor?.[f] ?? "";
    title.textContent = subprocessor ? `Edit ${subprocessor.name}` : "Add a subprocessor";
    submit.textContent = subprocessor ? "Save subprocessor" : "Add subprocessor";
    cancel.hidden = !subprocessor;
    if (subprocessor) form.elements.name.focus();
  }
  handleSubmit(form, errorSlot, async (data) => {
    const body = Object.fromEntries(FIELDS.map((f) => [f, String(data.get(f)).trim()]));
    const saved = editing
      ? await app.api.patch(`${listPath(organization.id)}/${encodeURIComponent(editing.id)}`, body)
      : await app.api.post(listPath(organization.id), body);
    const verb = editing ? "saved" : "added";
    edit(null);
    await onSaved(`${saved.subprocessor.name} ${verb}`);
  });
  return { form, edit };
}

function subprocessorTable(app, organization, list, { onEdit, onRemoved, errorSlot }) {
  const isOwner = organization.role === "owner";
  return dataTable("Current subprocessors", [
    { label: "Name", cell: (s) => h("a", { href: s.website, rel: "noopener noreferrer" }, s.name) },
    { label: "Purpose", cell: (s) => s.purpose },
    { label: "Location", cell: (s) => s.location },
    { label: "Since", cell: (s) => h("time", { datetime: s.addedAt }, formatDate(s.addedAt)) },
    ...(isOwner
      ? [{
        label: "Actions",
        className: "cell-actions",
        cell: (s) =>
          h(
            "div",
            { class: "row-actions" },
            h("button", {
              type: "button",
              class: "btn btn-secondary btn-small",
              "aria-label": `Edit ${s.name}`,
              on: { click: () => onEdit(s) },
            }, "Edit"),
            confirmAction({
              label: "Remove",
              ariaLabel: `Remove ${s.name}`,
              question: `Remove ${s.name}?`,
              errorSlot,
              run: async () => {
                await app.api.delete(`${listPath(organization.id)}/${encodeURIComponent(s.id)}`);
                await onRemoved(`${s.name} removed`);
              },
            }),
          ),
      }]
      : []),
  ], list);
}

export async function subprocessorsView(app, organizationId) {
  const organization = await app.requireOrganization(organizationId);
  app.setTitle("Subprocessors", organization.name);
  const listSlot = h("div", {});
  const historySlot = h("div", {});
  const messages = h("div", { class: "form-errors" });
  const isOwner = organization.role === "owner";
  const editor = isOwner ? subprocessorForm(app, organization, { onSaved: reload }) : null;
  async function load() {
    const { subprocessors, history } = await app.api.get(listPath(organization.id));
    replace(
      listSlot,
      subprocessors.length === 0
        ? emptyState("No subprocessors listed", "The public list says the organization lists none.")
        : subprocessorTable(app, organization, subprocessors, {
          onEdit: (s) => editor?.edit(s),
          onRemoved: reload,
          errorSlot: messages,
        }),
    );
    replace(
      historySlot,
      history.length === 0
        ? h("p", {}, "No change recorded yet.")
        : h("ul", { class: "plain-list" }, history.map((e) => h("li", {}, historyLine(e)))),
    );
  }
  async function reload(message) {
    await load();
    replace(messages, successAlert(message));
  }
  await load();
  const publicList = `${trustCenterUrl(organization)}/subprocessors`;
  return h(
    "div",
    {},
    organizationHeader(organization, "subprocessors"),
    h(
      "div",
      { class: "layout-split" },
      card("Subprocessors", [messages, listSlot], {
        description: [
          "The third parties that process your customers' data, shown on the ",
          h("a", { href: publicList }, "public subprocessor list"),
          " with every change.",
        ],
      }),
      isOwner
        ? card("Add or edit", editor.form)
        : card("Add or edit", h("p", {}, "Only owners of the organization can change the list.")),
    ),
    card("History", historySlot, {
      description: "Every addition, change and removal, newest first, with who made it.",
    }),
  );
}
