/**
 * An organization's storage: per project its evidence records, blob and KV bytes and what the
 * next prune removes (GET /organizations/{id}/usage), pruning a project now (owners), the
 * organization's default evidence retention (members read, owners set; the table follows a save
 * at once) and the organization's export (owners).
 */
import { describeError, errorAlert, h, replace, successAlert } from "../dom.js";
import { formatDate, plural } from "../format.js";
import { href } from "../routes.js";
import { saveFile } from "../widgets.js";
import { card, dataTable, emptyState } from "./layout.js";
import { retentionForm } from "./retention.js";
import { deletionMark, organizationHeader } from "./organization.js";

const orgPath = (id) => `/organizations/${encodeURIComponent(id)}`;

/** Bytes in the unit that reads best (KiB, MiB, GiB). */
export function formatBytes(bytes) {
  const units = ["bytes", "KiB", "MiB", "GiB", "TiB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} bytes` : `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

function describePolicy(policy) {
  return `${plural(policy.days, "day")} or the newest ${policy.recordsPerType} a type`;
}

function pruneButton(app, row, { status, reload }) {
  const button = h(
    "button",
    {
      type: "button",
      class: "btn btn-secondary btn-small",
      "aria-label": `Prune now: ${row.name}`,
    },
    "Prune now",
  );
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      const result = await app.api.post(
        `/projects/${encodeURIComponent(row.projectId)}/retention/prune`,
      );
      const removed = plural(result.pruned.records, "record");
      replace(
        status,
        successAlert(
          result.complete
            ? `${row.name}: ${removed} removed.`
            : `${row.name}: ${removed} removed so far; the rest follows in the background.`,
        ),
      );
      await reload();
    } catch (error) {
      replace(status, errorAlert(describeError(error)));
    } finally {
      button.disabled = false;
    }
  });
  return button;
}

function usageTable(app, organization, usage, options) {
  if (usage.projects.length === 0) return emptyState("No projects yet", "");
  const isOwner = organization.role === "owner";
  const columns = [
    {
      label: "Project",
      cell: (p) =>
        h(
          "span",
          { class: "project-cell" },
          h("a", { href: href.project(p.projectId), class: "strong-link" }, p.name),
          p.deletionDueAt && deletionMark(p.deletionDueAt),
        ),
    },
    { label: "Evidence records", cell: (p) => String(p.evidenceRecords) },
    { label: "Blobs", cell: (p) => formatBytes(p.blobBytes) },
    { label: "KV (estimate)", cell: (p) => formatBytes(p.kvBytes) },
    { label: "Retention", cell: (p) => describePolicy(p.retention) },
    {
      label: "Next prune",
      cell: (p) =>
        p.nextPrune.records === 0
          ? "Nothing"
          : `${plural(p.nextPrune.records, "record")}, ${formatBytes(p.nextPrune.payloadBytes)}`,
    },
  ];
  if (isOwner) {
    columns.push({
      label: "Actions",
      className: "cell-actions",
      cell: (p) => pruneButton(app, p, options),
    });
  }
  return dataTable("Storage of each project", columns, usage.projects);
}

/** The organization's export (owners): the whole archive, downloaded as one file. */
function exportCard(app, organization) {
  const status = h("div", { "aria-live": "polite" });
  const button = h("button", { type: "button", class: "btn btn-primary" }, "Download export");
  button.addEventListener("click", async () => {
    button.disabled = true;
    button.setAttribute("aria-busy", "true");
    replace(status, h("p", { class: "hint" }, "Preparing the archive…"));
    try {
      const { blob, filename } = await app.api.download(
        `${orgPath(organization.id)}/export`,
        "application/zip",
      );
      const name = filename ?? `${organization.slug}-export.zip`;
      saveFile(blob, name);
      replace(status, successAlert(`Downloaded ${name} (${formatBytes(blob.size)}).`));
    } catch (error) {
      replace(status, errorAlert(describeError(error)));
    } finally {
      button.disabled = false;
      button.removeAttribute("aria-busy");
    }
  });
  return card("Export", h("div", {}, h("div", { class: "form-actions" }, button), status), {
    description:
      "One ZIP archive of the organization's data: a JSON document per kind of record, every KV entry (what an import loads into an empty instance), the files they reference and a manifest of checksums. Webhook secrets and access tokens are left out.",
  });
}

export async function storageView(app, organizationId) {
  const organization = await app.requireOrganization(organizationId);
  app.setTitle("Storage", organization.name);
  const status = h("div", { "aria-live": "polite" });
  const tableSlot = h("div", {});
  const load = async () => {
    const usage = await app.api.get(`${orgPath(organization.id)}/usage`);
    replace(
      tableSlot,
      h("p", { class: "card-description" }, `Measured ${formatDate(usage.measuredAt, true)}.`),
      usageTable(app, organization, usage, { status, reload: load }),
    );
  };
  const [{ retention }] = await Promise.all([
    app.api.get(`${orgPath(organization.id)}/retention`),
    load(),
  ]);
  const isOwner = organization.role === "owner";
  return h(
    "div",
    {},
    organizationHeader(organization, "storage"),
    card("Storage by project", h("div", {}, status, tableSlot), {
      description:
        "Evidence is kept by retention: always the latest of each type and everything a published version cites; otherwise for the days, or as the newest records of each type, whichever keeps more. Pruning runs daily; payloads no record names any more are then removed.",
    }),
    card(
      "Evidence retention",
      retentionForm(app, {
        path: `${orgPath(organization.id)}/retention`,
        retention,
        isOwner,
        scope: "organization",
        // The table's Retention column follows at once.
        onSaved: () => load(),
      }),
      {
        description:
          "The organization's default; a project may set its own in its Settings section.",
      },
    ),
    isOwner && exportCard(app, organization),
  );
}
