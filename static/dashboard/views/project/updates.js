/**
 * Updates of a project (incidents, advisories, changes): post one with a Markdown body,
 * edit it, mark it resolved or reopen it, delete it. Bodies show here as their Markdown
 * text (the dashboard never parses HTML); the public pages render them.
 */
import { badge, field, h, handleSubmit, replace, successAlert } from "../../dom.js";
import { formatDate } from "../../format.js";
import { confirmAction, runButton } from "../../widgets.js";
import { card, emptyState } from "../layout.js";
import { privateNotice, projectPath, publicUrls } from "./common.js";

const KINDS = [["incident", "Incident"], ["advisory", "Advisory"], ["change", "Change"]];
const kindLabel = (kind) => KINDS.find(([value]) => value === kind)?.[1] ?? kind;

function statusBadge(update) {
  if (update.resolvedAt) return badge("Resolved", "success", "check");
  return update.kind === "incident" ? badge("Ongoing", "danger", "warning") : null;
}

/** The kind, title and body fields, filled from `update` when editing. */
function updateFields(update) {
  return [
    field(
      "Kind",
      h(
        "select",
        { name: "kind", value: update?.kind ?? "incident" },
        KINDS.map(([value, label]) => h("option", { value }, label)),
      ),
    ),
    field(
      "Title",
      h("input", { name: "title", required: true, maxlength: "200", value: update?.title ?? "" }),
    ),
    field(
      "Body (Markdown)",
      h(
        "textarea",
        { name: "body", required: true, rows: "6", maxlength: "20000" },
        update?.body ?? "",
      ),
      "Markdown: **bold**, lists, links (http, https and mailto only). HTML shows as text; images as their description.",
    ),
  ];
}

function formBody(data) {
  return {
    kind: data.get("kind"),
    title: String(data.get("title")).trim(),
    body: String(data.get("body")),
  };
}

function editForm(app, path, update, done) {
  const errorSlot = h("div", { class: "form-errors" });
  const form = h(
    "form",
    { class: "form", "aria-label": `Edit ${update.title}` },
    updateFields(update),
    errorSlot,
    h(
      "div",
      { class: "form-actions" },
      h("button", { type: "submit", class: "btn btn-primary" }, "Save update"),
    ),
  );
  handleSubmit(form, errorSlot, async (data) => {
    const { update: saved } = await app.api.patch(path, formBody(data));
    await done(`“${saved.title}” saved`);
  });
  return form;
}

function resolveButton(item) {
  const { app, path, update, messages, reload } = item;
  const button = h("button", {
    type: "button",
    class: "btn btn-secondary btn-small",
    "aria-label": `${update.resolvedAt ? "Reopen" : "Mark resolved"}: ${update.title}`,
    on: {
      click: () =>
        runButton(button, messages, async () => {
          await app.api.patch(path, { resolved: !update.resolvedAt });
          await reload(
            update.resolvedAt ? `“${update.title}” reopened` : `“${update.title}” resolved`,
          );
        }),
    },
  }, update.resolvedAt ? "Reopen" : "Mark resolved");
  return button;
}

function deleteAction(item) {
  const { app, path, update, messages, reload } = item;
  return confirmAction({
    label: "Delete",
    ariaLabel: `Delete ${update.title}`,
    question: `Delete “${update.title}”?`,
    errorSlot: messages,
    run: async () => {
      await app.api.delete(path);
      await reload(`“${update.title}” deleted`);
    },
  });
}

/** Who posted and edited it, and when; resolution; the public page's link. */
function updateMeta(project, update) {
  const edited = update.updatedAt !== update.postedAt
    ? ` · edited ${formatDate(update.updatedAt, true)} by ${update.updatedBy.email ?? "a member"}`
    : "";
  return h(
    "p",
    { class: "update-meta" },
    `Posted ${formatDate(update.postedAt, true)} by ${update.postedBy.email ?? "a member"}`,
    update.resolvedAt ? ` · resolved ${formatDate(update.resolvedAt, true)}` : "",
    edited,
    " · ",
    h("a", { href: `${publicUrls(project).page}/updates/${update.id}` }, "Public page"),
  );
}

function updateItem(app, project, update, reload) {
  const path = projectPath(project.id, `/updates/${encodeURIComponent(update.id)}`);
  const item = { app, path, update, reload, messages: h("div", { class: "form-errors" }) };
  const headingId = `update-${update.id}`;
  return h(
    "article",
    { class: "update", "aria-labelledby": headingId },
    h(
      "div",
      { class: "update-head" },
      h("h3", { id: headingId }, update.title),
      badge(kindLabel(update.kind), "info"),
      statusBadge(update),
      h("div", { class: "row-actions" }, resolveButton(item), deleteAction(item)),
    ),
    updateMeta(project, update),
    h("p", { class: "update-body" }, update.body),
    h(
      "details",
      { class: "disclosure" },
      h("summary", {}, "Edit"),
      editForm(app, path, update, reload),
    ),
    item.messages,
  );
}

/** The form that posts a new update; `reload` shows the list again with a message. */
function postForm(app, project, reload) {
  const errorSlot = h("div", { class: "form-errors" });
  const form = h(
    "form",
    { class: "form" },
    updateFields(null),
    h(
      "div",
      { class: "field" },
      h(
        "div",
        { class: "choice" },
        h("input", { type: "checkbox", id: "new-update-resolved", name: "resolved" }),
        h(
          "label",
          { for: "new-update-resolved" },
          h("span", { class: "choice-label" }, "Already resolved"),
        ),
      ),
    ),
    errorSlot,
    h(
      "div",
      { class: "form-actions" },
      h("button", { type: "submit", class: "btn btn-primary" }, "Post update"),
    ),
  );
  handleSubmit(form, errorSlot, async (data) => {
    const { update } = await app.api.post(projectPath(project.id, "/updates"), {
      ...formBody(data),
      resolved: data.get("resolved") === "on",
    });
    form.reset();
    await reload(`“${update.title}” posted`);
  });
  return form;
}

/** The button that appends the page of updates after `cursor`; null when there is none. */
function olderButton(view, cursor) {
  if (!cursor) return null;
  const { app, project } = view;
  const button = h("button", {
    type: "button",
    class: "btn btn-secondary",
    on: {
      click: () =>
        runButton(button, view.messages, async () => {
          const path = projectPath(project.id, `/updates?cursor=${encodeURIComponent(cursor)}`);
          const page = await app.api.get(path);
          view.listSlot.append(...view.items(page.updates));
          replace(view.more, olderButton(view, page.nextCursor));
        }),
    },
  }, "Older updates");
  return button;
}

export async function updatesSection(app, project) {
  const view = {
    app,
    project,
    listSlot: h("div", { class: "update-list" }),
    messages: h("div", { class: "form-errors" }),
    more: h("div", {}),
    items: (updates) => updates.map((u) => updateItem(app, project, u, view.reload)),
    load: async () => {
      const { updates, nextCursor } = await app.api.get(projectPath(project.id, "/updates"));
      replace(
        view.listSlot,
        updates.length === 0
          ? emptyState("No updates yet", "Post an incident, advisory or change for your customers.")
          : view.items(updates),
      );
      replace(view.more, olderButton(view, nextCursor));
    },
    reload: async (message) => {
      await view.load();
      replace(view.messages, successAlert(message));
    },
  };
  const form = postForm(app, project, view.reload);
  await view.load();
  return h(
    "div",
    { class: "layout-split" },
    card("Updates", [privateNotice(project), view.messages, view.listSlot, view.more], {
      description:
        "Shown on the public trust page (ongoing incidents first), the updates page and the Atom feed; subscribers are told about new ones.",
    }),
    card("Post an update", form),
  );
}
