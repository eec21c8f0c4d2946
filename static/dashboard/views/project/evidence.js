/**
 * Evidence of a project, newest observed first: a type filter, pages loaded on demand
 * with the API's cursor, and each record's payload fetched on request and
 * shown as pretty-printed text.
 */
import { describeError, errorAlert, h, replace } from "../../dom.js";
import { plural, shortChecksum } from "../../format.js";
import { runButton } from "../../widgets.js";
import { card, dataTable, dateTime, detailRow, emptyState } from "../layout.js";
import { EVIDENCE_TYPES, evidenceTypeLabel, projectPath } from "./common.js";

const PAGE_SIZE = 25;
const COLUMNS = 7;

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

function recordsTable(app, project, records) {
  return dataTable(
    "Evidence records",
    [
      {
        label: "Type",
        cell: (r) => h("span", { class: "cell-primary" }, evidenceTypeLabel(r.evidenceType)),
      },
      {
        label: "Source",
        cell: (
          r,
        ) => [
          SOURCE_TYPES[r.sourceType] ?? r.sourceType,
          h("span", { class: "cell-sub" }, `via ${r.collector.name}`),
        ],
      },
      { label: "Source ref", cell: (r) => h("code", { class: "wrap" }, r.sourceRef) },
      { label: "Observed", cell: (r) => dateTime(r.observedAt) },
      { label: "Received", cell: (r) => dateTime(r.receivedAt) },
      {
        label: "Checksum",
        cell: (r) => h("code", { title: r.checksum }, shortChecksum(r.checksum)),
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
          return button;
        },
      },
    ],
    records,
    { rowId: (r) => r.id, className: "evidence-table" },
  );
}

export async function evidenceSection(app, project) {
  const listSlot = h("div", {});
  const moreSlot = h("div", { class: "load-more" });
  const messages = h("div", { class: "form-errors" });
  const count = h("p", { class: "hint", role: "status" });
  let records = [];
  let cursor = null;
  let type = "";

  const fetchPage = (after) => {
    const query = new URLSearchParams({ limit: String(PAGE_SIZE) });
    if (type) query.set("evidenceType", type);
    if (after) query.set("cursor", after);
    return app.api.get(projectPath(project.id, `/evidence?${query}`));
  };
  const render = () => {
    replace(
      listSlot,
      records.length === 0
        ? emptyState(
          type ? `No ${evidenceTypeLabel(type)} records` : "No evidence yet",
          "Collectors send evidence to /ingest/evidence; it shows here as it arrives.",
        )
        : recordsTable(app, project, records),
    );
    replace(
      count,
      records.length ? `Showing ${plural(records.length, "record")}` : "",
    );
    replace(
      moreSlot,
      cursor &&
        h("button", {
          type: "button",
          class: "btn btn-secondary",
          on: {
            click: (event) =>
              runButton(event.currentTarget, messages, async () => {
                const page = await fetchPage(cursor);
                records = [...records, ...page.records];
                cursor = page.records.length > 0 ? page.nextCursor : null;
                const firstNew = page.records[0]?.id;
                render();
                listSlot.querySelector(`tr[data-id="${firstNew}"] button`)?.focus();
              }),
          },
        }, "Load more"),
    );
  };
  const reload = async () => {
    const page = await fetchPage(null);
    records = page.records;
    cursor = page.nextCursor;
    render();
  };

  const filter = h(
    "select",
    {
      id: "evidence-type-filter",
      on: {
        change: async () => {
          type = filter.value;
          replace(messages);
          try {
            await reload();
          } catch (error) {
            replace(messages, errorAlert(describeError(error)));
          }
        },
      },
    },
    h("option", { value: "" }, "All types"),
    EVIDENCE_TYPES.map(([value, label]) => h("option", { value }, label)),
  );

  await reload();
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
        count,
      ),
      messages,
      listSlot,
      moreSlot,
    ],
    {
      description:
        "Records sent by collectors, newest observation first. Each payload is stored as sent (canonical JSON) and identified by its SHA-256 checksum.",
    },
  );
}
