/**
 * Custom domains of a project (listed in pages): add one, publish the TXT record it needs,
 * verify it (showing what DNS answered when it fails), point it at the
 * trust pages with a CNAME, learn who provides HTTPS, and remove it.
 */
import { badge, field, h, handleSubmit, replace, successAlert } from "../../dom.js";
import { formatDate } from "../../format.js";
import { withQuery } from "../../api.js";
import { confirmAction, copyField, runButton, showMore } from "../../widgets.js";
import { card, emptyState, facts, timeAgo } from "../layout.js";
import { projectPath } from "./common.js";

function statusBadge(domain) {
  return domain.verificationStatus === "verified"
    ? badge("Verified", "success", "check")
    : badge("Pending", "warning", "clock");
}

function txtRecord(instructions) {
  return h(
    "div",
    { class: "txt-record" },
    copyField("Record name", instructions.recordName, { what: "Name" }),
    copyField("Record type", instructions.recordType, { what: "Type" }),
    copyField("Record value", instructions.recordValue, { what: "Value" }),
  );
}

/**
 * Where the domain points (a CNAME to the trust-page host from the dashboard
 * configuration) and how HTTPS is provided, in plain words.
 */
function pointingInstructions(app, domain) {
  const setup = app.config.customDomains ?? { cnameTarget: null, tls: "reverse-proxy" };
  const target = setup.cnameTarget;
  const cname = target
    ? [
      h(
        "p",
        {},
        `Point ${domain.domain} at the trust pages with a CNAME record at your DNS provider:`,
      ),
      h(
        "div",
        { class: "txt-record cname-record" },
        copyField("CNAME name", domain.domain, { what: "Name" }),
        copyField("CNAME target", target, { what: "Target" }),
      ),
      h(
        "p",
        { class: "hint" },
        "A CNAME cannot sit at the root of a zone (example.com): use a subdomain such as trust.example.com, or your provider's ALIAS or ANAME record with the same target.",
      ),
    ]
    : h(
      "p",
      { class: "alert alert-info" },
      `This service's trust-page address (TRUST_PAGE_BASE) is not a public host name, so there is nothing to point a CNAME at yet. Ask whoever runs the service to set TRUST_PAGE_BASE, then point ${domain.domain} at that host.`,
    );
  const tls = setup.tls === "deno-deploy"
    ? `HTTPS: this service runs on Deno Deploy. Add ${domain.domain} to the Deno Deploy application under its custom domains too, and publish the _acme-challenge record Deno Deploy shows: it then obtains and renews the certificate.`
    : `HTTPS: this service does not obtain certificates itself. The reverse proxy or load balancer in front of it must hold a certificate for ${domain.domain} (for example Caddy or an ACME client) and forward requests with the original Host header.`;
  return h(
    "div",
    { class: "domain-pointing" },
    h("h4", {}, "Point the domain and serve it over HTTPS"),
    cname,
    h("p", { class: "tls-note" }, tls),
  );
}

/** What DNS answered to a verification that did not match. */
function checkResult(check) {
  return h(
    "div",
    { class: "alert alert-error", role: "alert" },
    h(
      "p",
      {},
      h("strong", {}, "Not verified yet. "),
      check.error ?? "The TXT record does not match.",
    ),
    facts([
      ["Expected", h("code", {}, check.expected)],
      [
        "Found",
        check.found.length === 0
          ? "No TXT record"
          : h("ul", { class: "plain-list" }, check.found.map((v) => h("li", {}, h("code", {}, v)))),
      ],
    ]),
    h(
      "p",
      { class: "hint" },
      "DNS changes can take a while to appear; verify again in a few minutes.",
    ),
  );
}

const domainPath = (project, domain) =>
  projectPath(project.id, `/domains/${encodeURIComponent(domain.id)}`);

/**
 * The Verify button: checks the domain, redraws its item and shows the check's
 * result in the new item.
 */
function verifyButton(app, project, domain, { item, messages, hooks }) {
  const verified = domain.verificationStatus === "verified";
  const verify = h("button", {
    type: "button",
    class: `btn ${verified ? "btn-secondary" : "btn-primary"} btn-small verify-button`,
    "aria-label": `Verify ${domain.domain}`,
    on: {
      click: () =>
        runButton(verify, messages, async () => {
          hooks.onVerify();
          const result = await app.api.post(`${domainPath(project, domain)}/verify`);
          const next = domainItem(app, project, result.domain, hooks);
          item.replaceWith(next);
          const slot = next.querySelector(".form-errors");
          replace(
            slot,
            result.check ? checkResult(result.check) : successAlert(`${domain.domain} is verified`),
          );
          next.querySelector(".verify-button").focus();
        }),
    },
  }, "Verify");
  return verify;
}

function removeAction(app, project, domain, { messages, hooks }) {
  return confirmAction({
    label: "Remove",
    ariaLabel: `Remove ${domain.domain}`,
    question: `Remove ${domain.domain}?`,
    errorSlot: messages,
    run: async () => {
      await app.api.delete(domainPath(project, domain));
      await hooks.onDeleted(domain);
    },
  });
}

/** The TXT record: in the open while pending, folded away once verified. */
function recordPart(domain, instructions) {
  const record = txtRecord(instructions);
  return domain.verificationStatus === "verified"
    ? [
      h(
        "p",
        {},
        `Once ${domain.domain} points at this service, it serves the project's latest published profile.`,
      ),
      h("details", { class: "disclosure" }, h("summary", {}, "Verification record"), record),
    ]
    : [
      h("h4", {}, "Prove you own it"),
      h("p", {}, "Publish this TXT record at your DNS provider, then verify:"),
      record,
    ];
}

/**
 * One domain with its record and actions. `hooks.onVerify` runs before a
 * check, `hooks.onDeleted(domain)` after a removal.
 */
function domainItem(app, project, summary, hooks) {
  const { domain, instructions, expiresAt } = summary;
  const messages = h("div", { class: "form-errors" });
  const headingId = `domain-${domain.id}`;
  const item = h("article", { class: "domain", "aria-labelledby": headingId });
  const parts = { item, messages, hooks };
  return replace(
    item,
    h(
      "div",
      { class: "domain-head" },
      h("h3", { id: headingId }, domain.domain),
      statusBadge(domain),
      h(
        "div",
        { class: "row-actions" },
        verifyButton(app, project, domain, parts),
        removeAction(app, project, domain, parts),
      ),
    ),
    h(
      "p",
      { class: "domain-meta" },
      `Added ${formatDate(domain.createdAt)}`,
      " · ",
      domain.lastCheckedAt ? ["Last checked ", timeAgo(domain.lastCheckedAt)] : "Not checked yet",
      expiresAt ? ` · Verify by ${formatDate(expiresAt)}, or the claim lapses` : "",
    ),
    recordPart(domain, instructions),
    pointingInstructions(app, domain),
    messages,
  );
}

function addForm(errorSlot) {
  return h(
    "form",
    { class: "form" },
    field(
      "Domain",
      h("input", {
        name: "domain",
        required: true,
        maxlength: "253",
        class: "input-mono",
        autocomplete: "off",
        spellcheck: "false",
        placeholder: "trust.example.com",
      }),
      "A host name you control, without https:// or a path.",
    ),
    errorSlot,
    h(
      "div",
      { class: "form-actions" },
      h("button", { type: "submit", class: "btn btn-primary" }, "Add domain"),
    ),
  );
}

/** Adds the domain, reloads the list and moves the focus into the new domain's record. */
async function addDomain(app, project, data, { form, messages, load }) {
  const { domain } = await app.api.post(projectPath(project.id, "/domains"), {
    domain: String(data.get("domain")).trim(),
  });
  form.reset();
  await load();
  replace(
    messages,
    successAlert(`${domain.domain.domain} added: publish its TXT record, then verify`),
  );
  document.getElementById(`domain-${domain.domain.id}`)?.closest("article").querySelector("input")
    ?.focus();
}

export async function domainsSection(app, project) {
  const listSlot = h("div", { class: "domain-list" });
  const messages = h("div", { class: "form-errors" });
  const path = projectPath(project.id, "/domains");
  const hooks = {
    onVerify: () => replace(messages),
    onDeleted: async (removed) => {
      await load();
      replace(messages, successAlert(`${removed.domain} was removed`));
    },
  };
  const more = showMore({
    noun: ["domain", "domains"],
    next: async (cursor) => {
      const page = await app.api.get(withQuery(path, "cursor", cursor));
      return { items: page.domains, nextCursor: page.nextCursor };
    },
    add: (items) => {
      const added = items.map((d) => domainItem(app, project, d, hooks));
      listSlot.append(...added);
      return added;
    },
    errorSlot: messages,
  });
  async function load() {
    const { domains, nextCursor } = await app.api.get(path);
    replace(
      listSlot,
      domains.length === 0
        ? emptyState("No custom domains", "Add one to serve the trust profile at your own address.")
        : domains.map((d) => domainItem(app, project, d, hooks)),
    );
    more.reset(nextCursor, domains.length);
  }
  const errorSlot = h("div", { class: "form-errors" });
  const form = addForm(errorSlot);
  handleSubmit(form, errorSlot, (data) => addDomain(app, project, data, { form, messages, load }));
  await load();
  return h(
    "div",
    { class: "layout-split" },
    card("Custom domains", [messages, listSlot, more.element], {
      description:
        "Serve the published trust profile at your own host name, proven by a DNS TXT record.",
    }),
    card(
      "Add a domain",
      [
        form,
        h(
          "p",
          { class: "hint form-footnote" },
          "The public pages answer on a custom domain only once it is verified and the project is public.",
        ),
      ],
    ),
  );
}
