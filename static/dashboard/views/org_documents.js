/**
 * An organization's trust center documents: upload (owners), the list with visibility and
 * removal, the click-through NDA and the auto-approved email domains. Access requests,
 * links and the download log are in org_access.js. Members see everything read-only.
 */
import { partialHint } from "../api.js";
import { field, h, handleSubmit, replace, successAlert } from "../dom.js";
import { formatDate } from "../format.js";
import { confirmAction, runButton } from "../widgets.js";
import { accessCards } from "./org_access.js";
import { accessRuleCards } from "./org_access_rules.js";
import { buyerCards } from "./org_buyers.js";
import { card, dataTable, emptyState } from "./layout.js";
import { organizationHeader, trustCenterUrl } from "./organization.js";

const base = (id) => `/organizations/${encodeURIComponent(id)}`;
const TYPES = ".pdf,.docx,.xlsx,.pptx,.odt,.ods,.odp";

function sizeLabel(size) {
  return size >= 1048576 ? `${(size / 1048576).toFixed(1)} MB` : `${Math.ceil(size / 1024)} KB`;
}

function documentTable(app, ctx, documents) {
  if (documents.length === 0) {
    return emptyState(
      "No documents yet",
      "Upload a report or policy to share it on the trust center.",
    );
  }
  const owner = ctx.organization.role === "owner";
  const errorSlot = h("div", { class: "form-errors" });
  const actions = (d) => {
    if (!owner) return "";
    const remove = confirmAction({
      label: "Delete",
      ariaLabel: `Delete ${d.title}`,
      question: `Delete “${d.title}”?`,
      errorSlot,
      run: async () => {
        await app.api.delete(`${base(ctx.organization.id)}/documents/${d.id}`);
        await ctx.reload(`“${d.title}” deleted`);
      },
    });
    // An unlisted document (a shared questionnaire) stays restricted.
    if (d.unlisted) return h("div", { class: "row-actions" }, remove);
    const other = d.visibility === "public" ? "restricted" : "public";
    const toggle = h("button", {
      type: "button",
      class: "btn btn-secondary btn-small",
      "aria-label": `Make ${other}: ${d.title}`,
    }, `Make ${other}`);
    toggle.addEventListener("click", () =>
      runButton(toggle, errorSlot, async () => {
        const saved = await app.api.patch(`${base(ctx.organization.id)}/documents/${d.id}`, {
          visibility: other,
        });
        await ctx.reload(`“${d.title}” is now ${other}`, undefined, saved.warning);
      }));
    return h("div", { class: "row-actions" }, toggle, remove);
  };
  return h(
    "div",
    {},
    dataTable("Documents of the organization", [
      { label: "Title", cell: (d) => h("strong", {}, d.title) },
      { label: "Type", cell: (d) => d.type.toUpperCase() },
      {
        label: "Visibility",
        cell: (d) =>
          d.unlisted
            ? "Restricted, unlisted (asked for only at its own request link)"
            : d.visibility === "public"
            ? "Public"
            : "Restricted",
      },
      { label: "Size", cell: (d) => sizeLabel(d.size) },
      {
        label: "Uploaded",
        cell: (d) => h("time", { datetime: d.createdAt }, formatDate(d.createdAt)),
      },
      { label: "Actions", cell: actions },
    ], documents),
    errorSlot,
  );
}

/** What buyers see of a restricted document while no NDA is set, shown before uploading one. */
const NO_NDA_WARNING = "No NDA is set yet: buyers will see a restricted document's title marked " +
  "“Available on request (requests are not open yet)” and cannot ask for it until you set " +
  "the NDA below.";

function uploadForm(app, ctx, projectList, hasNda) {
  const projects = projectList.items;
  const errorSlot = h("div", { class: "form-errors" });
  const file = h("input", { type: "file", name: "file", accept: TYPES, required: true });
  const visibility = h(
    "select",
    { name: "visibility" },
    h(
      "option",
      { value: "restricted" },
      "Restricted: listed by title, sent on approved request",
    ),
    h("option", { value: "public" }, "Public: anyone can download it"),
  );
  const warning = h(
    "p",
    { class: "alert alert-warning no-nda-warning", role: "note" },
    NO_NDA_WARNING,
  );
  const showWarning = () => {
    warning.hidden = hasNda || visibility.value !== "restricted";
  };
  visibility.addEventListener("change", showWarning);
  showWarning();
  const form = h(
    "form",
    { class: "form" },
    field("Document file", file, "PDF, Word, Excel, PowerPoint or OpenDocument, at most 20 MiB."),
    field("Title", h("input", { name: "title", required: true, maxlength: "200" })),
    field("Visibility", visibility),
    warning,
    field(
      "Project",
      h(
        "select",
        { name: "projectId" },
        h("option", { value: "" }, "The whole organization"),
        ...projects.map((p) => h("option", { value: p.id }, p.name)),
      ),
      partialHint(projectList, "projects"),
    ),
    errorSlot,
    h(
      "div",
      { class: "form-actions" },
      h("button", { type: "submit", class: "btn btn-primary" }, "Upload document"),
    ),
  );
  handleSubmit(form, errorSlot, async (data) => {
    const chosen = file.files?.[0];
    if (!chosen) throw new Error("Choose a file first");
    const query = new URLSearchParams({
      title: String(data.get("title") ?? "").trim(),
      visibility: String(data.get("visibility")),
    });
    if (data.get("projectId")) query.set("projectId", String(data.get("projectId")));
    const saved = await app.api.postFile(`${base(ctx.organization.id)}/documents?${query}`, chosen);
    await ctx.reload(`“${query.get("title")}” uploaded`, undefined, saved.warning);
  });
  return form;
}

function ndaEditor(app, ctx, nda) {
  const current = nda.current;
  const note = current
    ? `Version ${current.version}, set ${formatDate(current.createdAt, true)}. SHA-256 ${
      current.sha256.slice(0, 12)
    }…`
    : "No NDA yet: restricted documents cannot be requested until one is set.";
  if (ctx.organization.role !== "owner") {
    return h(
      "div",
      {},
      h("p", { class: "hint" }, note),
      current && h("pre", { class: "nda-text" }, current.text),
    );
  }
  const errorSlot = h("div", { class: "form-errors" });
  const form = h(
    "form",
    { class: "form" },
    field(
      "NDA text",
      h(
        "textarea",
        { name: "text", rows: "8", maxlength: "20000", required: true },
        current?.text ?? "",
      ),
      note,
    ),
    errorSlot,
    h(
      "div",
      { class: "form-actions" },
      h("button", { type: "submit", class: "btn btn-primary" }, "Save as new version"),
    ),
  );
  handleSubmit(form, errorSlot, async (data) => {
    const saved = await app.api.put(`${base(ctx.organization.id)}/nda`, {
      text: String(data.get("text") ?? ""),
    });
    await ctx.reload(`NDA version ${saved.current.version} saved`);
  });
  return form;
}

function domainsEditor(app, ctx, settings) {
  const list = settings.autoApproveDomains;
  if (ctx.organization.role !== "owner") {
    return h("p", {}, list.length ? list.join(", ") : "No domain is approved automatically.");
  }
  const errorSlot = h("div", { class: "form-errors" });
  const form = h(
    "form",
    { class: "form" },
    field(
      "Auto-approved email domains",
      h("textarea", { name: "domains", rows: "3" }, list.join("\n")),
      "One per line, e.g. partner.example. Requests from these domains are approved and emailed at once (needs email to be configured); when the email fails, the request waits for an owner.",
    ),
    errorSlot,
    h(
      "div",
      { class: "form-actions" },
      h("button", { type: "submit", class: "btn btn-primary" }, "Save domains"),
    ),
  );
  handleSubmit(form, errorSlot, async (data) => {
    const domains = String(data.get("domains") ?? "").split(/\s+/).filter(Boolean);
    await app.api.put(`${base(ctx.organization.id)}/document-settings`, {
      autoApproveDomains: domains,
    });
    await ctx.reload("Domains saved");
  });
  return form;
}

/** Each public project's documents page: its own documents and the organization-wide ones. */
function projectPages({ items: projects, complete }) {
  const open = projects.filter((p) => p.visibility === "public");
  if (open.length === 0) return null;
  return h(
    "p",
    { class: "hint" },
    "Each public project's trust page lists its own documents and the organization-wide ones: ",
    open.flatMap((p, i) => [
      i > 0 ? ", " : "",
      h("a", { href: `/trust/${encodeURIComponent(p.slug)}/documents` }, p.name),
    ]),
    complete ? "." : ` (public ones among the first ${projects.length} projects).`,
  );
}

export async function organizationDocumentsView(app, organizationId) {
  const organization = await app.requireOrganization(organizationId);
  app.setTitle("Documents", organization.name);
  const statusSlot = h("div", {});
  const body = h("div", {});
  const ctx = { organization, reload: null };
  const load = async (message, extra, warning) => {
    const path = base(organization.id);
    const [{ documents }, nda, settings, projects] = await Promise.all([
      app.api.get(`${path}/documents`),
      app.api.get(`${path}/nda`),
      app.api.get(`${path}/document-settings`),
      app.api.getAll(`${path}/projects`, "projects"),
    ]);
    const owner = organization.role === "owner";
    replace(
      body,
      card("Documents", h("div", {}, documentTable(app, ctx, documents), projectPages(projects)), {
        description:
          "Public documents are downloadable from the trust center; restricted ones are listed by title and sent through an access link.",
        actions: h("a", { href: `${trustCenterUrl(organization)}/documents` }, "Public list"),
      }),
      owner && card("Upload a document", uploadForm(app, ctx, projects, nda.current !== null)),
      h(
        "div",
        { class: "layout-split" },
        card("Click-through NDA", ndaEditor(app, ctx, nda), {
          description:
            "Requesters accept it; each change is a new version and requests record the version they accepted.",
        }),
        card("Auto-approval", domainsEditor(app, ctx, settings)),
      ),
      ...(await accessCards(app, ctx, documents, extra)),
      ...(await accessRuleCards(app, ctx, documents, projects.items)),
      ...(await buyerCards(app, ctx)),
    );
    replace(
      statusSlot,
      message ? successAlert(message) : null,
      warning ? h("p", { class: "alert alert-warning", role: "status" }, warning) : null,
    );
  };
  ctx.reload = load;
  await load();
  return h("div", {}, organizationHeader(organization, "documents"), statusSlot, body);
}
