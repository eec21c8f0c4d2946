/**
 * The access rules in the organization's Documents view (docs/ads.md): the rule for every
 * restricted document, one per project, and each document's own, with which one decides a
 * document (its own, else its project's, else the one for every restricted document). Owners
 * edit each (public, click-through NDA, verified domains, verified domains and existing buyer
 * organizations, manual; allowed domains, deny list, days a grant lasts) and remove it; the
 * view reloads after each change. Beside it, the trust center's deny list and how long reads
 * are kept. Members see both read-only.
 */
import { errorAlert, field, h, handleSubmit, replace, uniqueId } from "../dom.js";
import { confirmAction } from "../widgets.js";
import { card, dataTable } from "./layout.js";

const base = (id) => `/organizations/${encodeURIComponent(id)}`;

const KINDS = [
  ["public", "Public: anyone downloads it, no NDA"],
  ["click-through", "Click-through NDA: accepting it opens the document"],
  ["verified", "Verified domains: open at once to the allowed domains"],
  ["buyer-organizations", "Verified domains and existing buyer organizations"],
  ["manual", "Manual: an owner decides each request"],
];

function kindOf(rule) {
  if (rule.mode === "verified" && rule.buyerOrganizations) return "buyer-organizations";
  return rule.mode;
}

/** A rule in a few words. */
export function ruleSummary(rule) {
  if (!rule) return "Not set";
  const parts = [];
  const kind = kindOf(rule);
  if (kind === "click-through") parts.push("Click-through NDA");
  else if (kind === "manual") parts.push("Manual approval");
  else {
    const domains = rule.autoApproveDomains.length
      ? rule.autoApproveDomains.join(", ")
      : "the auto-approved domains";
    parts.push(
      kind === "verified"
        ? `Verified domains: ${domains}`
        : `Verified domains (${domains}) and existing buyer organizations`,
    );
  }
  if (rule.denyDomains.length) parts.push(`never ${rule.denyDomains.join(", ")}`);
  parts.push(`${rule.expiresInDays} days`);
  return parts.join(" · ");
}

const lines = (text) =>
  [...new Set(String(text ?? "").split(/[\s,]+/).map((d) => d.trim().toLowerCase()))]
    .filter(Boolean);

/** The request body of the form's rule. */
function ruleBody(data) {
  const kind = String(data.get("kind"));
  return {
    mode: kind === "buyer-organizations" ? "verified" : kind,
    buyerOrganizations: kind === "buyer-organizations",
    autoApproveDomains: kind === "verified" || kind === "buyer-organizations"
      ? lines(data.get("allowed"))
      : [],
    denyDomains: lines(data.get("deny")),
    expiresInDays: Number(data.get("days")),
  };
}

/**
 * The editor of one rule: `scope` names it ("every restricted document", a project, a
 * document), `rule` is its current one (or null), `allowPublic` offers the public kind (a
 * document only); `save(body | "public")` stores it.
 */
function ruleEditor({ scope, rule, kind, allowPublic, save, close }) {
  const errorSlot = h("div", { class: "form-errors" });
  const id = uniqueId("rule");
  const select = h(
    "select",
    { name: "kind", id: `${id}-kind`, value: kind },
    KINDS.filter(([value]) => allowPublic || value !== "public").map(([value, label]) =>
      h("option", { value }, label)
    ),
  );
  const allowed = field(
    "Allowed domains",
    h("textarea", { name: "allowed", rows: "2" }, (rule?.autoApproveDomains ?? []).join("\n")),
    "One per line, e.g. agency.gov; opened at once (the auto-approved domains count too).",
  );
  const rest = h(
    "div",
    { class: "form-grid" },
    field(
      "Deny list",
      h("textarea", { name: "deny", rows: "2" }, (rule?.denyDomains ?? []).join("\n")),
      "One per line (for example competitors' domains): refused whatever the kind.",
    ),
    field(
      "Grant lasts (days)",
      h("input", {
        name: "days",
        type: "number",
        min: "1",
        max: "365",
        required: true,
        value: String(rule?.expiresInDays ?? 30),
      }),
      "1 to 365; asking again renews it.",
    ),
  );
  const sync = () => {
    const value = select.value;
    allowed.hidden = value !== "verified" && value !== "buyer-organizations";
    rest.hidden = value === "public";
  };
  select.addEventListener("change", sync);
  const cancel = h("button", {
    type: "button",
    class: "btn btn-secondary",
    on: { click: close },
  }, "Cancel");
  const form = h(
    "form",
    { class: "form rule-editor", "aria-labelledby": `${id}-title` },
    h("h3", { id: `${id}-title` }, `Access rule: ${scope}`),
    field("Kind", select),
    allowed,
    rest,
    errorSlot,
    h(
      "div",
      { class: "form-actions" },
      h("button", { type: "submit", class: "btn btn-primary" }, "Save rule"),
      cancel,
    ),
  );
  sync();
  handleSubmit(form, errorSlot, async (data) => {
    await save(data.get("kind") === "public" ? "public" : ruleBody(data));
  });
  return form;
}

function sourceLabel(entry) {
  switch (entry.source) {
    case "document":
      return "its own";
    case "project":
      return `project ${entry.projectName}'s`;
    default:
      return "the one for every restricted document";
  }
}

/** The trust center's deny list and how long reads are kept (owners edit; members read). */
function settingsEditor(app, ctx, settings) {
  if (ctx.organization.role !== "owner") {
    return h(
      "p",
      {},
      `Deny list: ${settings.denyDomains.length ? settings.denyDomains.join(", ") : "none"}. ` +
        `Reads kept ${settings.summaryMonths} months.`,
    );
  }
  const errorSlot = h("div", { class: "form-errors" });
  const form = h(
    "form",
    { class: "form" },
    h(
      "div",
      { class: "form-grid" },
      field(
        "Deny list for every document",
        h("textarea", { name: "deny", rows: "2" }, settings.denyDomains.join("\n")),
        "One per line (for example competitors' domains).",
      ),
      field(
        "Keep reads (months)",
        h("input", {
          name: "months",
          type: "number",
          min: "6",
          max: "60",
          required: true,
          value: String(settings.summaryMonths),
        }),
        "6 to 60; FedRAMP asks for at least six.",
      ),
    ),
    errorSlot,
    h(
      "div",
      { class: "form-actions" },
      h("button", { type: "submit", class: "btn btn-primary" }, "Save access settings"),
    ),
  );
  handleSubmit(form, errorSlot, async (data) => {
    await app.api.put(`${base(ctx.organization.id)}/access-settings`, {
      denyDomains: lines(data.get("deny")),
      summaryMonths: Number(data.get("months")),
      defaultRule: settings.defaultRule,
    });
    await ctx.reload("Access settings saved");
  });
  return form;
}

/** The "Access rules" card: `documents` are the organization's, `projects` its projects. */
export async function accessRuleCards(app, ctx, documents, projects) {
  const path = base(ctx.organization.id);
  let loaded;
  try {
    loaded = await Promise.all([
      app.api.get(`${path}/access-rules`),
      app.api.get(`${path}/project-access-rules`),
      app.api.get(`${path}/access-settings`),
    ]);
  } catch (error) {
    return [errorAlert(error.message)];
  }
  const [{ rules }, { rules: projectRules }, settings] = loaded;
  const owner = ctx.organization.role === "owner";
  const errorSlot = h("div", { class: "form-errors" });
  const editorSlot = h("div", { class: "rule-editor-slot" });
  const byProject = new Map(projectRules.map((r) => [r.projectId, r]));
  const projectName = new Map(projects.map((p) => [p.id, p.name]));

  const close = (focus) => () => {
    replace(editorSlot);
    focus?.focus();
  };
  const open = (button, options) => {
    const form = ruleEditor({ ...options, close: close(button) });
    replace(editorSlot, form);
    form.querySelector("select").focus();
  };
  const editButton = (label, scope, options) => {
    const button = h("button", {
      type: "button",
      class: "btn btn-secondary btn-small",
      "aria-label": `${label} the access rule of ${scope}`,
    }, label);
    button.addEventListener("click", () => open(button, { scope, ...options }));
    return button;
  };
  const removeButton = (scope, run) =>
    confirmAction({
      label: "Remove",
      ariaLabel: `Remove the access rule of ${scope}`,
      question: `Remove the rule of ${scope}?`,
      errorSlot,
      run,
    });
  const saved = (scope) => ctx.reload(`Access rule saved: ${scope}`);

  // Every restricted document.
  const all = settings.defaultRule;
  const everyScope = "every restricted document";
  const saveAll = async (body) => {
    await app.api.put(`${path}/access-settings`, {
      denyDomains: settings.denyDomains,
      summaryMonths: settings.summaryMonths,
      defaultRule: body,
    });
    await saved(everyScope);
  };
  const every = h(
    "div",
    { class: "rule" },
    h("h3", {}, "Every restricted document"),
    h(
      "p",
      {},
      all
        ? ruleSummary(all)
        : "Not set: auto-approved domains are let in, an owner decides the rest.",
    ),
    owner && h(
      "div",
      { class: "row-actions" },
      editButton(all ? "Edit" : "Set", everyScope, {
        rule: all,
        kind: all ? kindOf(all) : "verified",
        allowPublic: false,
        save: saveAll,
      }),
      all && removeButton(everyScope, async () => {
        await saveAll(null);
      }),
    ),
  );

  // Per project.
  const projectRows = projects.map((p) => ({ project: p, rule: byProject.get(p.id) ?? null }));
  const projectTable = projectRows.length === 0 ? null : dataTable("Project rules", [
    { label: "Project", cell: (r) => r.project.name },
    { label: "Rule", cell: (r) => ruleSummary(r.rule) },
    {
      label: "Actions",
      cell: (r) => {
        if (!owner) return "";
        const scope = `project ${r.project.name}'s documents`;
        const url = `${path}/project-access-rules/${encodeURIComponent(r.project.id)}`;
        return h(
          "div",
          { class: "row-actions" },
          editButton(r.rule ? "Edit" : "Set", scope, {
            rule: r.rule,
            kind: r.rule ? kindOf(r.rule) : "verified",
            allowPublic: false,
            save: async (body) => {
              await app.api.put(url, body);
              await saved(scope);
            },
          }),
          r.rule && removeButton(scope, async () => {
            await app.api.delete(url);
            await ctx.reload(`Access rule removed: ${scope}`);
          }),
        );
      },
    },
  ], projectRows);

  // Per document: the restricted ones with the rule that decides them, and the public ones.
  const restricted = new Map(rules.map((r) => [r.documentId, r]));
  const documentRows = documents.filter((d) => !d.unlisted).map((d) => ({
    document: d,
    entry: restricted.get(d.id) ?? null,
  }));
  const documentTable = documentRows.length === 0 ? null : dataTable("Document rules", [
    {
      label: "Document",
      cell: (r) =>
        h(
          "div",
          {},
          h("strong", {}, r.document.title),
          h(
            "div",
            { class: "hint" },
            r.document.projectId
              ? `Project ${projectName.get(r.document.projectId) ?? "(not listed)"}`
              : "Whole organization",
          ),
        ),
    },
    {
      label: "Rule",
      cell: (r) =>
        r.document.visibility === "public" || !r.entry
          ? "Public: anyone downloads it"
          : r.entry.source === "default"
          ? "Not set: auto-approved domains are let in, an owner decides the rest"
          : h(
            "div",
            {},
            ruleSummary(r.entry),
            h("div", { class: "hint" }, `Rule: ${sourceLabel(r.entry)}`),
          ),
    },
    {
      label: "Actions",
      cell: (r) => {
        if (!owner) return "";
        const d = r.document;
        const scope = `“${d.title}”`;
        const url = `${path}/access-rules/${encodeURIComponent(d.id)}`;
        const own = r.entry?.source === "document" ? r.entry : null;
        const isPublic = d.visibility === "public" || !r.entry;
        return h(
          "div",
          { class: "row-actions" },
          editButton("Edit", scope, {
            rule: own ?? (r.entry?.source === "default" ? null : r.entry),
            kind: isPublic ? "public" : kindOf(r.entry),
            allowPublic: true,
            save: async (body) => {
              const docUrl = `${path}/documents/${encodeURIComponent(d.id)}`;
              if (body === "public") {
                if (!isPublic) await app.api.patch(docUrl, { visibility: "public" });
              } else {
                if (isPublic) await app.api.patch(docUrl, { visibility: "restricted" });
                await app.api.put(url, body);
              }
              await saved(scope);
            },
          }),
          own && removeButton(scope, async () => {
            await app.api.delete(url);
            await ctx.reload(`Access rule removed: ${scope}`);
          }),
        );
      },
    },
  ], documentRows);

  return [
    card(
      "Access settings",
      settingsEditor(app, ctx, settings),
      {
        description:
          "The deny list refuses a domain whatever a document's rule; reads by known parties and their summaries are kept this many months.",
      },
    ),
    card(
      "Access rules",
      h(
        "div",
        { class: "access-rules" },
        every,
        h("h3", {}, "Per project"),
        projectTable ?? h("p", {}, "Create a project to give its documents a rule."),
        h("h3", {}, "Per document"),
        documentTable ?? h("p", {}, "Upload a document to give it a rule."),
        errorSlot,
        editorSlot,
      ),
      {
        description:
          "A document's own rule decides; without one, its project's; without that, the rule for every restricted document. The trust center's deny list refuses whatever the rule.",
      },
    ),
  ];
}
