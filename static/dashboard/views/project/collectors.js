/**
 * Collectors of a project: the list (in pages) with rotate and revoke, a create form,
 * and the one-time secret panel shown after a create or a rotation.
 */
import {
  badge,
  describeError,
  errorAlert,
  field,
  h,
  handleSubmit,
  icon,
  replace,
  successAlert,
} from "../../dom.js";
import { formatDate } from "../../format.js";
import { withQuery } from "../../api.js";
import { confirmAction, copyField, showMore } from "../../widgets.js";
import { card, dataTable, emptyState, nameWithKey, tableRow, timeAgo } from "../layout.js";
import { projectPath } from "./common.js";
import { renderGuide } from "./guide.js";

const ACTIONS = [
  ["heartbeat", "Heartbeat", "Prove the collector is alive."],
  ["ingest:evidence", "Evidence", "Send evidence records (SBOMs, scans, provenance…)."],
  ["ingest:signals", "Signals", "Report repository signal detections."],
];

function secretPanel(project, { collector, secret }, { rotated, dismiss }) {
  return card(
    rotated ? `New secret for “${collector.name}”` : `Secret for “${collector.name}”`,
    [
      h(
        "div",
        { class: "alert alert-warning alert-icon" },
        icon("warning"),
        h(
          "p",
          {},
          h("strong", {}, "Copy this secret now: it is shown only once. "),
          "The service keeps only a hash of it. If it is lost, rotate the secret to get a new one.",
          rotated ? " The previous secret has stopped working." : "",
        ),
      ),
      h(
        "div",
        { class: "secret-fields" },
        copyField("Collector secret", secret.value, {
          what: "Secret",
          hint: "Keep it in your CI's secret store, e.g. as TRUST_COLLECTOR_SECRET.",
        }),
        copyField("Collector ID", collector.id),
        copyField("Project ID", project.id),
      ),
      h(
        "div",
        { class: "form-actions" },
        h(
          "button",
          { type: "button", class: "btn btn-primary", on: { click: dismiss } },
          "I have stored the secret",
        ),
      ),
    ],
    { className: "secret-card" },
  );
}

function actionList(actions) {
  return h("span", { class: "chip-list" }, actions.map((a) => h("code", {}, a)));
}

function createForm(create) {
  const errorSlot = h("div", { class: "form-errors" });
  const form = h(
    "form",
    { class: "form" },
    field(
      "Collector name",
      h("input", { name: "name", required: true, maxlength: "200", autocomplete: "off" }),
      "Where it runs, e.g. “GitHub Actions (main)”.",
    ),
    h(
      "fieldset",
      { class: "field choices" },
      h("legend", {}, "Allowed actions"),
      ACTIONS.map(([value, label, description]) => {
        const id = `collector-action-${value.replace(":", "-")}`;
        return h(
          "div",
          { class: "choice" },
          h("input", { type: "checkbox", id, name: "allowedActions", value, checked: true }),
          h(
            "label",
            { for: id },
            h("span", { class: "choice-label" }, label, " ", h("code", {}, value)),
            h("span", { class: "choice-description" }, description),
          ),
        );
      }),
    ),
    errorSlot,
    h(
      "div",
      { class: "form-actions" },
      h("button", { type: "submit", class: "btn btn-primary" }, "Create collector"),
    ),
  );
  handleSubmit(form, errorSlot, async (data) => {
    await create({
      name: String(data.get("name")).trim(),
      allowedActions: data.getAll("allowedActions"),
    });
    form.reset();
  });
  return form;
}

function guideCard(app, project) {
  const slot = h("div", { class: "guide-slot" });
  const button = h(
    "button",
    { type: "button", class: "btn btn-secondary", "aria-expanded": "false" },
    "Show the setup guide",
  );
  button.addEventListener("click", async () => {
    if (button.getAttribute("aria-expanded") === "true") {
      replace(slot);
      button.setAttribute("aria-expanded", "false");
      button.textContent = "Show the setup guide";
      return;
    }
    button.setAttribute("aria-expanded", "true");
    button.textContent = "Hide the setup guide";
    replace(slot, h("p", { class: "muted" }, "Loading the guide…"));
    try {
      const { blocks } = await app.api.get(projectPath(project.id, "/setup.json"));
      replace(
        slot,
        h("div", { role: "region", "aria-label": "Setup guide" }, renderGuide(blocks)),
      );
    } catch (error) {
      replace(slot, errorAlert(describeError(error)));
    }
  });
  return card(
    "Connect a collector",
    [
      h(
        "p",
        {},
        "The setup guide lists the commands a CI job runs (the collector CLI, or curl and jq), a GitHub Actions workflow and GitLab CI jobs, with this project's ids filled in. It never contains a secret.",
      ),
      h("p", {}, button),
      slot,
      h(
        "p",
        { class: "hint" },
        "Only members of this organization can read it: it names the project and collector ids, which a reader of the trust page has no use for.",
      ),
    ],
  );
}

/** Shows the one-time secret; dismissing it moves the focus to the section's heading. */
function showSecret(view, result, rotated) {
  const dismiss = () => {
    replace(view.secretSlot);
    const heading = view.listSlot.closest("section").querySelector("h2");
    heading.tabIndex = -1;
    heading.focus();
  };
  replace(view.secretSlot, secretPanel(view.project, result, { rotated, dismiss }));
  view.secretSlot.querySelector("input").focus();
}

function rotateAction(view, c) {
  return confirmAction({
    label: "Rotate secret",
    ariaLabel: `Rotate secret of ${c.name}`,
    question: "Rotate? The current secret stops working at once.",
    confirmLabel: "Rotate",
    danger: false,
    errorSlot: view.messages,
    run: async () => {
      const result = await view.app.api.post(view.path(c.id, "rotate"));
      await view.load();
      showSecret(view, result, true);
    },
  });
}

function revokeAction(view, c) {
  return confirmAction({
    label: "Revoke",
    ariaLabel: `Revoke ${c.name}`,
    question: `Revoke ${c.name}? This cannot be undone.`,
    errorSlot: view.messages,
    run: async () => {
      await view.app.api.post(view.path(c.id, "revoke"));
      await view.load();
      replace(view.messages, successAlert(`${c.name} was revoked; its secret no longer works`));
    },
  });
}

function rowActions(view, c) {
  if (c.status === "revoked") {
    return h("span", { class: "muted" }, `Revoked ${formatDate(c.revokedAt)}`);
  }
  return h("div", { class: "row-actions" }, rotateAction(view, c), revokeAction(view, c));
}

function collectorColumns(view) {
  return [
    { label: "Collector", cell: (c) => nameWithKey(c.name, c.id) },
    {
      label: "Status",
      cell: (c) => (c.status === "active" ? badge("Active", "success") : badge("Revoked")),
    },
    { label: "Allowed actions", cell: (c) => actionList(c.allowedActions) },
    {
      label: "Last seen",
      cell: (
        c,
      ) => (c.lastSeenAt ? timeAgo(c.lastSeenAt) : h("span", { class: "muted" }, "Never")),
    },
    { label: "Actions", className: "cell-actions", cell: (c) => rowActions(view, c) },
  ];
}

const rowId = (c) => c.id;

/** Draws the first page of collectors; `more` offers the next pages. */
function renderList(view, { collectors, nextCursor }) {
  replace(
    view.listSlot,
    collectors.length === 0
      ? emptyState("No collectors yet", "Create one to start sending heartbeats and evidence.")
      : dataTable("Collectors of the project", collectorColumns(view), collectors, { rowId }),
  );
  view.more.reset(nextCursor, collectors.length);
}

/** The "Show more collectors" control: appends the next page's rows to the table. */
function moreCollectors(view) {
  return showMore({
    noun: ["collector", "collectors"],
    next: async (cursor) => {
      const page = await view.app.api.get(withQuery(view.path(), "cursor", cursor));
      return { items: page.collectors, nextCursor: page.nextCursor };
    },
    add: (items) => {
      const columns = collectorColumns(view);
      const rows = items.map((c) => tableRow(columns, c, { rowId }));
      view.listSlot.querySelector("tbody").append(...rows);
      return rows;
    },
    errorSlot: view.messages,
  });
}

export async function collectorsSection(app, project) {
  const path = (id, action) =>
    projectPath(project.id, `/collectors${id ? `/${encodeURIComponent(id)}/${action}` : ""}`);
  const view = {
    app,
    project,
    path,
    secretSlot: h("div", { class: "secret-slot" }),
    listSlot: h("div", {}),
    messages: h("div", { class: "form-errors" }),
    load: async () => renderList(view, await app.api.get(path())),
  };
  view.more = moreCollectors(view);
  await view.load();
  const create = async (body) => {
    const result = await app.api.post(path(), body);
    await view.load();
    showSecret(view, result, false);
  };
  return [
    view.secretSlot,
    card("Collectors", [view.messages, view.listSlot, view.more.element], {
      description:
        "A collector is a CLI or CI job that sends heartbeats and evidence with its own secret.",
    }),
    card("New collector", createForm(create)),
    guideCard(app, project),
  ];
}
