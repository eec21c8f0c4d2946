/**
 * Evidence of a project, newest observed first: what the service read of each record and
 * the control it decides, a type filter, pages loaded on demand with the API's cursor, and
 * each record's payload fetched on request and shown as pretty-printed text.
 */
import { describeError, errorAlert, h, replace } from "../../dom.js";
import { plural, shortChecksum } from "../../format.js";
import { runButton } from "../../widgets.js";
import { card, dataTable, dateTime, detailRow, emptyState } from "../layout.js";
import { EVIDENCE_TYPES, evidenceTypeLabel, projectPath } from "./common.js";
import { controlCell, controlIndex, readingCell } from "./evidence_reading.js";

const PAGE_SIZE = 25;
const COLUMNS = 6;

const SOURCE_TYPES = {
  aws: "AWS",
  collector: "Collector",
  custom: "Custom",
  github_actions: "GitHub Actions",
  kubernetes: "Kubernetes",
  terraform: "Terraform",
};

/** Opens or closes the payload of `record` under its row. */
async function togglePayload(app, project, record, button) {
  const id = `payload-${record.id}`;
  const open = document.getElementById(id);
  if (open) {
    open.remove();
    button.setAttribute("aria-expanded", "false");
    button.textContent = "View payload";
    return;
  }
  const body = h(
    "div",
    { class: "payload", "aria-busy": "true" },
    h("p", { class: "muted" }, "Loading the payload…"),
  );
  button.closest("tr").after(detailRow(id, COLUMNS, body));
  button.setAttribute("aria-expanded", "true");
  button.textContent = "Hide payload";
  try {
    const payload = await app.api.get(
      projectPath(project.id, `/evidence/${encodeURIComponent(record.id)}/payload`),
    );
    replace(
      body,
      h(
        "div",
        { class: "payload-head" },
        h(
          "span",
          { id: `${id}-title` },
          `Payload of ${evidenceTypeLabel(record.evidenceType)} from ${record.sourceRef}`,
        ),
        h("code", { title: record.checksum }, shortChecksum(record.checksum)),
      ),
      h(
        "pre",
        { class: "payload-json", tabindex: "0", role: "region", "aria-labelledby": `${id}-title` },
        JSON.stringify(payload, null, 2),
      ),
    );
  } catch (error) {
    replace(body, errorAlert(describeError(error)));
  } finally {
    body.removeAttribute("aria-busy");
  }
}

function recordsTable(view, records) {
  const { app, project, index } = view;
  return dataTable(
    "Evidence records",
    [
      {
        label: "Type",
        cell: (r) => h("span", { class: "cell-primary" }, evidenceTypeLabel(r.evidenceType)),
      },
      { label: "What the service read", cell: readingCell },
      { label: "Control", cell: (r) => controlCell(r, index) },
      {
        label: "Source",
        cell: (r) => [
          h("code", { class: "wrap source-ref" }, r.sourceRef),
          h(
            "span",
            { class: "cell-sub" },
            `${SOURCE_TYPES[r.sourceType] ?? r.sourceType} via ${r.collector.name}`,
          ),
        ],
      },
      {
        label: "Observed",
        cell: (r) => [
          dateTime(r.observedAt),
          h("span", { class: "cell-sub" }, "received ", dateTime(r.receivedAt)),
        ],
      },
      {
        label: "Payload",
        className: "cell-actions",
        cell: (r) => {
          const button = h("button", {
            type: "button",
            class: "btn btn-secondary btn-small",
            "aria-expanded": "false",
            "aria-controls": `payload-${r.id}`,
            on: { click: () => togglePayload(app, project, r, button) },
          }, "View payload");
          return [
            h("code", { class: "checksum", title: r.checksum }, shortChecksum(r.checksum)),
            button,
          ];
        },
      },
    ],
    records,
    { rowId: (r) => r.id, className: "evidence-table" },
  );
}

/** One page of records after `after` (the first page when null), filtered by the chosen type. */
function fetchPage(view, after) {
  const query = new URLSearchParams({ limit: String(PAGE_SIZE) });
  if (view.type) query.set("evidenceType", view.type);
  if (after) query.set("cursor", after);
  return view.app.api.get(projectPath(view.project.id, `/evidence?${query}`));
}

/** Appends the next page and moves the focus to its first record. */
async function loadMore(view) {
  const page = await fetchPage(view, view.cursor);
  view.records = [...view.records, ...page.records];
  view.cursor = page.records.length > 0 ? page.nextCursor : null;
  const firstNew = page.records[0]?.id;
  render(view);
  view.listSlot.querySelector(`tr[data-id="${firstNew}"] button`)?.focus();
}

function moreButton(view) {
  return h("button", {
    type: "button",
    class: "btn btn-secondary",
    on: { click: (event) => runButton(event.currentTarget, view.messages, () => loadMore(view)) },
  }, "Load more");
}

function render(view) {
  const { records, type } = view;
  replace(
    view.listSlot,
    records.length === 0
      ? emptyState(
        type ? `No ${evidenceTypeLabel(type)} records` : "No evidence yet",
        "Collectors send evidence to /ingest/evidence; it shows here as it arrives.",
      )
      : recordsTable(view, records),
  );
  replace(view.count, records.length ? `Showing ${plural(records.length, "record")}` : "");
  replace(view.moreSlot, view.cursor && moreButton(view));
}

async function reload(view) {
  const [page, { controls }, { evaluations }] = await Promise.all([
    fetchPage(view, null),
    view.app.api.get(projectPath(view.project.id, "/controls")),
    view.app.api.get(projectPath(view.project.id, "/evaluations")),
  ]);
  view.index = controlIndex(controls, evaluations);
  view.records = page.records;
  view.cursor = page.nextCursor;
  render(view);
}

/** The evidence type select; choosing a type reloads the list from its first page. */
function typeFilter(view) {
  const filter = h(
    "select",
    {
      id: "evidence-type-filter",
      on: {
        change: async () => {
          view.type = filter.value;
          replace(view.messages);
          try {
            await reload(view);
          } catch (error) {
            replace(view.messages, errorAlert(describeError(error)));
          }
        },
      },
    },
    h("option", { value: "" }, "All types"),
    EVIDENCE_TYPES.map(([value, label]) => h("option", { value }, label)),
  );
  return filter;
}

export async function evidenceSection(app, project) {
  const view = {
    app,
    project,
    listSlot: h("div", {}),
    moreSlot: h("div", { class: "load-more" }),
    messages: h("div", { class: "form-errors" }),
    count: h("p", { class: "hint", role: "status" }),
    records: [],
    cursor: null,
    type: "",
    index: controlIndex([], []),
  };
  const filter = typeFilter(view);
  await reload(view);
  return card(
    "Evidence",
    [
      h(
        "div",
        { class: "toolbar" },
        h(
          "div",
          { class: "field field-inline" },
          h("label", { for: filter.id }, "Evidence type"),
          filter,
        ),
        view.count,
      ),
      view.messages,
      view.listSlot,
      view.moreSlot,
    ],
    {
      description:
        "Records sent by collectors, newest observation first, with what the service read in each and the control it decides (a record it could not read leaves its control unknown). Each payload is stored as sent (canonical JSON) and identified by its SHA-256 checksum.",
    },
  );
}
