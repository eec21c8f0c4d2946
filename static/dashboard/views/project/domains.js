/**
 * Custom domains of a project: add one, publish the TXT record it needs,
 * verify it (showing what DNS answered when it fails), and remove it.
 */
import { badge, field, h, handleSubmit, replace, successAlert } from "../../dom.js";
import { formatDate } from "../../format.js";
import { confirmAction, copyField, runButton } from "../../widgets.js";
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

/**
 * One domain with its record and actions. `hooks.onVerify` runs before a
 * check, `hooks.onDeleted(domain)` after a removal.
 */
function domainItem(app, project, summary, hooks) {
  const { domain, instructions } = summary;
  const path = projectPath(project.id, `/domains/${encodeURIComponent(domain.id)}`);
  const messages = h("div", { class: "form-errors" });
  const verified = domain.verificationStatus === "verified";
  const headingId = `domain-${domain.id}`;
  const item = h("article", { class: "domain", "aria-labelledby": headingId });
  const verify = h("button", {
    type: "button",
    class: `btn ${verified ? "btn-secondary" : "btn-primary"} btn-small verify-button`,
    "aria-label": `Verify ${domain.domain}`,
    on: {
      click: () =>
        runButton(verify, messages, async () => {
          hooks.onVerify();
          const result = await app.api.post(`${path}/verify`);
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
  const record = txtRecord(instructions);
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
        verify,
        confirmAction({
          label: "Remove",
          ariaLabel: `Remove ${domain.domain}`,
          question: `Remove ${domain.domain}?`,
          errorSlot: messages,
          run: async () => {
            await app.api.delete(path);
            await hooks.onDeleted(domain);
          },
        }),
      ),
    ),
    h(
      "p",
      { class: "domain-meta" },
      `Added ${formatDate(domain.createdAt)}`,
      " · ",
      domain.lastCheckedAt ? ["Last checked ", timeAgo(domain.lastCheckedAt)] : "Not checked yet",
    ),
    verified
      ? [
        h(
          "p",
          {},
          `Once ${domain.domain} points at this service, it serves the project's latest published profile.`,
        ),
        h("details", { class: "disclosure" }, h("summary", {}, "Verification record"), record),
      ]
      : [h("p", {}, "Publish this TXT record at your DNS provider, then verify:"), record],
    messages,
  );
}

export async function domainsSection(app, project) {
  const listSlot = h("div", { class: "domain-list" });
  const messages = h("div", { class: "form-errors" });
  const load = async () => {
    const { domains } = await app.api.get(projectPath(project.id, "/domains"));
    replace(
      listSlot,
      domains.length === 0
        ? emptyState("No custom domains", "Add one to serve the trust profile at your own address.")
        : domains.map((d) =>
          domainItem(app, project, d, {
            onVerify: () => replace(messages),
            onDeleted: async (removed) => {
              await load();
              replace(messages, successAlert(`${removed.domain} was removed`));
            },
          })
        ),
    );
  };

  const errorSlot = h("div", { class: "form-errors" });
  const form = h(
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
  handleSubmit(form, errorSlot, async (data) => {
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
  });

  await load();
  return h(
    "div",
    { class: "layout-split" },
    card("Custom domains", [messages, listSlot], {
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
