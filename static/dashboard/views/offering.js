/**
 * The cloud service offering on the vendor profile, as FedRAMP's Authorization Data Sharing
 * process asks it described (ADS-01): service and deployment model, business category, UEI,
 * Marketplace link, the services with their impact levels, customer responsibilities, the
 * secure configuration guide, how to get access in the vendor's words, support contacts and
 * the next Ongoing Authorization Report. Saved with PATCH …/profile ({ offering }); the trust
 * center's HTML, Markdown, JSON and ads.json show it at once.
 */
import { field, h, handleSubmit } from "../dom.js";
import { facts } from "./layout.js";

const SERVICE_MODELS = [
  ["", "Not stated"],
  ["iaas", "Infrastructure as a Service (IaaS)"],
  ["paas", "Platform as a Service (PaaS)"],
  ["saas", "Software as a Service (SaaS)"],
];
const DEPLOYMENT_MODELS = [
  ["", "Not stated"],
  ["public-cloud", "Public cloud"],
  ["private-cloud", "Private cloud"],
  ["government-community-cloud", "Government-only community cloud"],
  ["hybrid-cloud", "Hybrid cloud"],
];
const IMPACT_LEVELS = [
  ["", "Not stated"],
  ["li-saas", "Low (LI-SaaS)"],
  ["low", "Low"],
  ["moderate", "Moderate"],
  ["high", "High"],
];

const label = (list, value) => list.find(([v]) => v === (value ?? ""))?.[1] ?? "Not stated";

function select(name, options, value, props = {}) {
  return h(
    "select",
    { name, ...props },
    options.map(([v, text]) => h("option", { value: v, selected: v === (value ?? "") }, text)),
  );
}

const input = (name, value, props = {}) =>
  h("input", { name, value: value ?? "", autocomplete: "off", ...props });

/** A list of rows (services, contacts) with Add and Remove; `row(item, n)` builds one. */
function rowList(legend, items, row, addLabel, max) {
  const list = h("div", { class: "offering-rows" });
  let n = 0;
  const add = (item) => {
    n += 1;
    const remove = h("button", { type: "button", class: "btn" }, "Remove");
    const fieldset = h("fieldset", { class: "offering-row" }, row(item, n), remove);
    remove.addEventListener("click", () => fieldset.remove());
    list.append(fieldset);
  };
  items.forEach(add);
  const more = h("button", { type: "button", class: "btn" }, addLabel);
  more.addEventListener("click", () => {
    if (list.children.length < max) add({});
  });
  return h("fieldset", { class: "offering-list" }, h("legend", {}, legend), list, more);
}

function serviceRow(service, n) {
  return [
    h("legend", {}, `Service ${n}`),
    field("Name", input("serviceName", service.name, { maxlength: "200" })),
    field("Impact level", select("serviceImpact", IMPACT_LEVELS, service.impactLevel)),
    field("Description", input("serviceDescription", service.description, { maxlength: "500" })),
  ];
}

function contactRow(contact, n) {
  return [
    h("legend", {}, `Contact ${n}`),
    field("Label", input("contactLabel", contact.label, { maxlength: "100" })),
    field("Email", input("contactEmail", contact.email, { type: "email", maxlength: "254" })),
    field("URL", input("contactUrl", contact.url, { type: "url", placeholder: "https://" })),
    field("Phone", input("contactPhone", contact.phone, { type: "tel", maxlength: "40" })),
  ];
}

/** The rows of a list as objects, by the names of their inputs (blank rows left out). */
function rows(form, names) {
  const columns = names.map((name) => [...form.querySelectorAll(`[name="${name}"]`)]);
  return columns[0].map((_, i) => names.map((_, j) => columns[j][i].value.trim() || null))
    .filter((values) => values.some((v) => v !== null));
}

/** The owner's form; `save(offering)` sends the change. */
export function offeringForm(offering, save) {
  const errorSlot = h("div", { class: "form-errors" });
  const form = h(
    "form",
    { class: "form" },
    field("Service model", select("serviceModel", SERVICE_MODELS, offering.serviceModel)),
    field(
      "Deployment model",
      select("deploymentModel", DEPLOYMENT_MODELS, offering.deploymentModel),
    ),
    field(
      "Business category",
      input("businessCategory", offering.businessCategory, { maxlength: "200" }),
    ),
    field(
      "UEI",
      input("uei", offering.uei, { maxlength: "12", pattern: "[A-Za-z0-9]{12}" }),
      "Unique Entity ID from SAM.gov, 12 letters and digits.",
    ),
    field(
      "FedRAMP Marketplace page",
      input("marketplaceUrl", offering.marketplaceUrl, { type: "url", placeholder: "https://" }),
    ),
    field(
      "Next Ongoing Authorization Report",
      input("nextOngoingAuthorizationReport", offering.nextOngoingAuthorizationReport, {
        type: "date",
      }),
    ),
    rowList("Services and impact levels", offering.services, serviceRow, "Add service", 100),
    field(
      "Customer responsibilities",
      h(
        "textarea",
        { name: "customerResponsibilities", maxlength: "5000", rows: "5" },
        offering.customerResponsibilities ?? "",
      ),
      "Plain text: what customers must configure and do themselves.",
    ),
    field(
      "Secure configuration guide",
      input("secureConfigurationUrl", offering.secureConfigurationUrl, {
        type: "url",
        placeholder: "https://",
      }),
    ),
    field(
      "How to get access, in your words",
      h(
        "textarea",
        { name: "accessProcess", maxlength: "2000", rows: "3" },
        offering.accessProcess ?? "",
      ),
      "Shown under the steps the service writes from your NDA and approval settings.",
    ),
    rowList("Support contacts", offering.supportContacts, contactRow, "Add contact", 10),
    errorSlot,
    h(
      "div",
      { class: "form-actions" },
      h("button", { type: "submit", class: "btn btn-primary" }, "Save offering"),
    ),
  );
  handleSubmit(form, errorSlot, async (data) => {
    const value = (name) => String(data.get(name) ?? "").trim() || null;
    await save({
      serviceModel: value("serviceModel"),
      deploymentModel: value("deploymentModel"),
      businessCategory: value("businessCategory"),
      uei: value("uei"),
      marketplaceUrl: value("marketplaceUrl"),
      nextOngoingAuthorizationReport: value("nextOngoingAuthorizationReport"),
      services: rows(form, ["serviceName", "serviceImpact", "serviceDescription"]).map((
        [name, impactLevel, description],
      ) => ({ name: name ?? "", impactLevel, description })),
      customerResponsibilities: value("customerResponsibilities"),
      secureConfigurationUrl: value("secureConfigurationUrl"),
      accessProcess: value("accessProcess"),
      supportContacts: rows(form, ["contactLabel", "contactEmail", "contactUrl", "contactPhone"])
        .map(([label, email, url, phone]) => ({ label: label ?? "", email, url, phone })),
    });
  });
  return form;
}

/** What members see. */
export function offeringFacts(offering) {
  const none = "Not set";
  return facts([
    ["Service model", label(SERVICE_MODELS, offering.serviceModel)],
    ["Deployment model", label(DEPLOYMENT_MODELS, offering.deploymentModel)],
    ["Business category", offering.businessCategory ?? none],
    ["UEI", offering.uei ?? none],
    ["FedRAMP Marketplace page", offering.marketplaceUrl ?? none],
    [
      "Services",
      offering.services.length
        ? offering.services.map((s) => `${s.name} (${label(IMPACT_LEVELS, s.impactLevel)})`)
          .join("; ")
        : none,
    ],
    ["Customer responsibilities", offering.customerResponsibilities ?? none],
    ["Support contacts", offering.supportContacts.map((c) => c.label).join("; ") || none],
  ]);
}
