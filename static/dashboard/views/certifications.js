/**
 * Certifications and attestations of an organization (SOC 2, ISO/IEC 27001…): the list with
 * each claim's status (an achieved one past its expiry shows expired by itself), and, for
 * owners, a form to record, edit and remove them. Members read.
 */
import { partialHint } from "../api.js";
import { badge, field, h, handleSubmit, replace, successAlert } from "../dom.js";
import { formatDate } from "../format.js";
import { confirmAction } from "../widgets.js";
import { card, dataTable, emptyState } from "./layout.js";
import { organizationHeader, trustCenterUrl } from "./organization.js";

const base = (id) => `/organizations/${encodeURIComponent(id)}`;
const listPath = (id) => `${base(id)}/certifications`;

const STATUS = {
  achieved: ["Achieved", "success", "check"],
  in_progress: ["In progress", "info", "clock"],
  expired: ["Expired", "danger", "cross"],
};

/** A date input's value as the API takes it (midnight UTC), or null when empty. */
function toInstant(value) {
  return value ? `${value}T00:00:00Z` : null;
}

/** An API instant as a date input's value. */
function toDateValue(iso) {
  return iso ? iso.slice(0, 10) : "";
}

function certificationForm(app, ctx, { onSaved }) {
  const { organization, frameworks, projects, projectsHint, documents } = ctx;
  const errorSlot = h("div", { class: "form-errors" });
  const title = h("h3", { class: "form-title" }, "Record a certification");
  let editing = null;
  const submit = h("button", { type: "submit", class: "btn btn-primary" }, "Add certification");
  const cancel = h("button", {
    type: "button",
    class: "btn btn-secondary",
    hidden: true,
    on: { click: () => edit(null) },
  }, "Cancel edit");
  const otherName = h("input", { name: "frameworkName", maxlength: "200" });
  const otherField = field("Framework name", otherName, "The name of a framework not listed.");
  const framework = h(
    "select",
    { name: "framework", required: true },
    frameworks.map((f) => h("option", { value: f.id }, f.name)),
  );
  const showOther = () => {
    otherField.hidden = framework.value !== "other";
    otherName.required = framework.value === "other";
  };
  framework.addEventListener("change", showOther);
  const form = h(
    "form",
    { class: "form", "aria-label": "Certification" },
    title,
    field("Framework", framework),
    otherField,
    field(
      "Status",
      h(
        "select",
        { name: "status" },
        h("option", { value: "achieved" }, "Achieved"),
        h("option", { value: "in_progress" }, "In progress"),
      ),
      "An achieved one shows as expired from its expiry date on, by itself.",
    ),
    field(
      "Applies to",
      h(
        "select",
        { name: "projectId" },
        h("option", { value: "" }, "The whole organization"),
        projects.map((p) => h("option", { value: p.id }, p.name)),
      ),
      projectsHint,
    ),
    field(
      "Auditor or certification body",
      h("input", { name: "auditor", maxlength: "200" }),
    ),
    h(
      "div",
      { class: "form-row" },
      field("Audit period from", h("input", { name: "periodStart", type: "date" })),
      field("Audit period to", h("input", { name: "periodEnd", type: "date" })),
    ),
    h(
      "div",
      { class: "form-row" },
      field("Issued on", h("input", { name: "issuedAt", type: "date" })),
      field("Expires on", h("input", { name: "expiresAt", type: "date" })),
    ),
    field(
      "Scope",
      h("textarea", { name: "scope", rows: "3", maxlength: "1000" }),
      "What it covers, in plain text (at most 1000 characters).",
    ),
    field(
      "Report",
      h(
        "select",
        { name: "documentId" },
        h("option", { value: "" }, "No linked document"),
        documents.map((d) =>
          h(
            "option",
            { value: d.id },
            `${d.title} (${d.visibility === "public" ? "public" : "restricted"})`,
          )
        ),
      ),
      "A document uploaded under Documents; restricted ones are requested under the NDA.",
    ),
    field(
      "Public registry URL",
      h("input", { name: "registryUrl", type: "url", placeholder: "https://" }),
      "Optional, https only: where anyone can check the certificate.",
    ),
    errorSlot,
    h("div", { class: "form-actions" }, submit, cancel),
  );
  function edit(certification) {
    editing = certification;
    form.reset();
    replace(errorSlot);
    const c = certification;
    form.elements.framework.value = c?.framework ?? frameworks[0].id;
    otherName.value = c?.framework === "other" ? c.frameworkName : "";
    form.elements.status.value = c && c.status !== "expired" ? c.status : "achieved";
    form.elements.projectId.value = c?.projectId ?? "";
    form.elements.auditor.value = c?.auditor ?? "";
    form.elements.periodStart.value = toDateValue(c?.auditPeriod?.start);
    form.elements.periodEnd.value = toDateValue(c?.auditPeriod?.end);
    form.elements.issuedAt.value = toDateValue(c?.issuedAt);
    form.elements.expiresAt.value = toDateValue(c?.expiresAt);
    form.elements.scope.value = c?.scope ?? "";
    form.elements.documentId.value = c?.documentId ?? "";
    form.elements.registryUrl.value = c?.registryUrl ?? "";
    showOther();
    title.textContent = c ? `Edit ${c.frameworkName}` : "Record a certification";
    submit.textContent = c ? "Save certification" : "Add certification";
    cancel.hidden = !c;
    if (c) framework.focus();
  }
  handleSubmit(form, errorSlot, async (data) => {
    const text = (name) => String(data.get(name) ?? "").trim() || null;
    const start = toInstant(data.get("periodStart"));
    const end = toInstant(data.get("periodEnd"));
    if (Boolean(start) !== Boolean(end)) {
      throw new Error("Give both ends of the audit period, or neither");
    }
    const body = {
      framework: data.get("framework"),
      frameworkName: data.get("framework") === "other" ? text("frameworkName") : null,
      status: data.get("status"),
      projectId: text("projectId"),
      auditor: text("auditor"),
      auditPeriod: start ? { start, end } : null,
      issuedAt: toInstant(data.get("issuedAt")),
      expiresAt: toInstant(data.get("expiresAt")),
      scope: text("scope"),
      documentId: text("documentId"),
      registryUrl: text("registryUrl"),
    };
    const saved = editing
      ? await app.api.patch(
        `${listPath(organization.id)}/${encodeURIComponent(editing.id)}`,
        body,
      )
      : await app.api.post(listPath(organization.id), body);
    const verb = editing ? "saved" : "added";
    edit(null);
    await onSaved(`${saved.certification.frameworkName} ${verb}`);
  });
  edit(null);
  return { form, edit };
}

function certificationTable(app, ctx, list, { onEdit, onRemoved, errorSlot }) {
  const { organization, projects, documents } = ctx;
  const isOwner = organization.role === "owner";
  const projectName = (id) => projects.find((p) => p.id === id)?.name ?? "a project";
  const documentTitle = (id) => documents.find((d) => d.id === id)?.title ?? "a removed document";
  return dataTable("Certifications and attestations", [
    {
      label: "Framework",
      cell: (c) =>
        h(
          "div",
          { class: "cell-name" },
          h("span", { class: "cell-primary" }, c.frameworkName),
          h(
            "span",
            { class: "cell-sub" },
            c.projectId ? projectName(c.projectId) : "Whole organization",
          ),
        ),
    },
    {
      label: "Status",
      cell: (c) => badge(...STATUS[c.status]),
    },
    { label: "Auditor", cell: (c) => c.auditor ?? "—" },
    {
      label: "Valid until",
      cell: (c) =>
        c.expiresAt ? h("time", { datetime: c.expiresAt }, formatDate(c.expiresAt)) : "—",
    },
    {
      label: "Report",
      // A report removed before removing a linked one was refused: the pages show none.
      cell: (c) =>
        c.documentMissing
          ? h(
            "div",
            { class: "cell-name" },
            badge("Report removed", "warning", "warning"),
            h("span", { class: "cell-sub" }, "Pages show no report: edit to link another"),
          )
          : c.documentId
          ? documentTitle(c.documentId)
          : "—",
    },
    ...(isOwner
      ? [{
        label: "Actions",
        className: "cell-actions",
        cell: (c) =>
          h(
            "div",
            { class: "row-actions" },
            h("button", {
              type: "button",
              class: "btn btn-secondary btn-small",
              "aria-label": `Edit ${c.frameworkName}`,
              on: { click: () => onEdit(c) },
            }, "Edit"),
            confirmAction({
              label: "Remove",
              ariaLabel: `Remove ${c.frameworkName}`,
              question: `Remove ${c.frameworkName}?`,
              errorSlot,
              run: async () => {
                await app.api.delete(`${listPath(organization.id)}/${encodeURIComponent(c.id)}`);
                await onRemoved(`${c.frameworkName} removed`);
              },
            }),
          ),
      }]
      : []),
  ], list);
}

export async function certificationsView(app, organizationId) {
  const organization = await app.requireOrganization(organizationId);
  app.setTitle("Certifications", organization.name);
  const [{ frameworks }, projectList, { documents }] = await Promise.all([
    app.api.get("/public/certification-frameworks"),
    app.api.getAll(`${base(organization.id)}/projects`, "projects"),
    app.api.get(`${base(organization.id)}/documents`),
  ]);
  const projects = projectList.items;
  const projectsHint = partialHint(projectList, "projects");
  const ctx = { organization, frameworks, projects, projectsHint, documents };
  const listSlot = h("div", {});
  const messages = h("div", { class: "form-errors" });
  const isOwner = organization.role === "owner";
  const editor = isOwner ? certificationForm(app, ctx, { onSaved: reload }) : null;
  async function load() {
    const { certifications } = await app.api.get(listPath(organization.id));
    replace(
      listSlot,
      certifications.length === 0
        ? emptyState(
          "No certifications recorded",
          "Buyers ask first whether you hold SOC 2 or ISO/IEC 27001: record them here.",
        )
        : certificationTable(app, ctx, certifications, {
          onEdit: (c) => editor?.edit(c),
          onRemoved: reload,
          errorSlot: messages,
        }),
    );
  }
  async function reload(message) {
    await load();
    replace(messages, successAlert(message));
  }
  await load();
  return h(
    "div",
    {},
    organizationHeader(organization, "certifications"),
    h(
      "div",
      { class: "layout-split" },
      card("Certifications and attestations", [messages, listSlot], {
        description: [
          "Shown as cards on the first screen of every trust page and the ",
          h("a", { href: trustCenterUrl(organization) }, "trust center"),
          ", marked as declared by you, and signed into each version you publish.",
        ],
      }),
      isOwner ? card("Record or edit", editor.form) : card(
        "Record or edit",
        h("p", {}, "Only owners of the organization can change certifications."),
      ),
    ),
  );
}
