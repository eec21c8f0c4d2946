/**
 * Webhooks of a project: the endpoints with their events and signing, a form to add one,
 * the HMAC secret shown once (after creation or rotation), a test ping, enable/disable
 * (with the state of an endpoint the service disabled after failed deliveries, and its
 * Re-enable), removal, and each endpoint's delivery log with Redeliver.
 */
import { badge, h, icon, replace, successAlert } from "../../dom.js";
import { confirmAction, copyField, runButton } from "../../widgets.js";
import { card, dataTable, dateTime, detailRow, emptyState } from "../layout.js";
import { projectPath } from "./common.js";
import { deliveryLog } from "./webhook_deliveries.js";
import { createForm } from "./webhook_form.js";

function secretPanel(webhook, secret, { rotated, dismiss }) {
  return card(rotated ? "New signing secret" : "Signing secret", [
    h(
      "div",
      { class: "alert alert-warning alert-icon" },
      icon("warning"),
      h(
        "p",
        {},
        h("strong", {}, "Copy this secret now: it is shown only once. "),
        `Your receiver verifies ${webhook.url}'s deliveries with it (Standard Webhooks, v1).`,
        rotated ? " For 24 hours deliveries are signed with the previous secret too." : "",
      ),
    ),
    h(
      "div",
      { class: "secret-fields" },
      copyField("Webhook secret", secret.value, { what: "Secret" }),
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
  ], { className: "secret-card" });
}

function endpointCell(webhook) {
  return h(
    "div",
    { class: "cell-name" },
    h("code", { class: "cell-primary webhook-url" }, webhook.url),
    webhook.description ? h("span", { class: "muted" }, webhook.description) : null,
  );
}

const failing = (webhook) => !webhook.enabled && webhook.disabled?.reason === "failing";

function statusCell(webhook) {
  if (webhook.enabled) return badge("Enabled", "success");
  if (!failing(webhook)) return badge("Disabled");
  const { failedDeliveries, at } = webhook.disabled;
  return h(
    "div",
    { class: "cell-name" },
    h(
      "span",
      { class: "badge badge-danger badge-wrap" },
      icon("warning"),
      `Disabled after ${failedDeliveries} failed deliveries`,
    ),
    h("span", { class: "cell-sub" }, "Since ", dateTime(at)),
  );
}

/** A warning naming the endpoints the service disabled, and how to turn them back on. */
function failingNotice(webhooks) {
  const disabled = webhooks.filter(failing);
  if (disabled.length === 0) return null;
  return h(
    "div",
    { class: "alert alert-warning alert-icon" },
    icon("warning"),
    h(
      "p",
      {},
      h(
        "strong",
        {},
        disabled.length === 1
          ? "An endpoint was disabled after repeated failed deliveries. "
          : `${disabled.length} endpoints were disabled after repeated failed deliveries. `,
      ),
      "It receives no new events until it is re-enabled. Fix the receiver (its delivery log shows each failed attempt), then choose Re-enable.",
    ),
  );
}

function toggleLabel(webhook) {
  if (webhook.enabled) return "Disable";
  return failing(webhook) ? "Re-enable" : "Enable";
}

export async function webhooksSection(app, project) {
  const base = projectPath(project.id, "/webhooks");
  const itemPath = (webhook) => `${base}/${encodeURIComponent(webhook.id)}`;
  const secretSlot = h("div", { class: "secret-slot" });
  const listSlot = h("div", {});
  const messages = h("div", { class: "form-errors" });
  let webhooks = [];

  const showSecret = (webhook, secret, rotated) => {
    const dismiss = () => {
      replace(secretSlot);
      const heading = listSlot.closest("section").querySelector("h2");
      heading.tabIndex = -1;
      heading.focus();
    };
    replace(secretSlot, secretPanel(webhook, secret, { rotated, dismiss }));
    secretSlot.querySelector("input").focus();
  };

  const toggleLog = async (button, webhook) => {
    const rowId = `deliveries-${webhook.id}`;
    const open = document.getElementById(rowId);
    if (open) {
      open.remove();
      button.setAttribute("aria-expanded", "false");
      return;
    }
    const log = deliveryLog(app, { path: itemPath(webhook), webhook, messages });
    await log.load();
    const row = button.closest("tr");
    row.after(detailRow(rowId, row.children.length, log.node));
    button.setAttribute("aria-expanded", "true");
  };

  const actions = (webhook) => {
    const logButton = h("button", {
      type: "button",
      class: "btn btn-secondary btn-small",
      "aria-expanded": "false",
      "aria-controls": `deliveries-${webhook.id}`,
      "aria-label": `Deliveries to ${webhook.url}`,
      on: { click: () => runButton(logButton, messages, () => toggleLog(logButton, webhook)) },
    }, "Deliveries");
    const test = h("button", {
      type: "button",
      class: "btn btn-secondary btn-small",
      "aria-label": `Send test to ${webhook.url}`,
      on: {
        click: () =>
          runButton(test, messages, async () => {
            await app.api.post(`${itemPath(webhook)}/test`);
            replace(messages, successAlert(`A webhook.test delivery to ${webhook.url} is queued`));
          }),
      },
    }, "Send test");
    const toggle = h("button", {
      type: "button",
      class: "btn btn-secondary btn-small",
      "aria-label": `${toggleLabel(webhook)} ${webhook.url}`,
      on: {
        click: () =>
          runButton(toggle, messages, async () => {
            await app.api.patch(itemPath(webhook), { enabled: !webhook.enabled });
            await load();
            if (failing(webhook)) {
              replace(messages, successAlert(`${webhook.url} is enabled again`));
            }
          }),
      },
    }, toggleLabel(webhook));
    return h(
      "div",
      { class: "row-actions" },
      logButton,
      test,
      toggle,
      webhook.signing === "hmac" &&
        confirmAction({
          label: "Rotate secret",
          ariaLabel: `Rotate secret of ${webhook.url}`,
          question: "Rotate? The old secret keeps signing for 24 hours.",
          confirmLabel: "Rotate",
          danger: false,
          errorSlot: messages,
          run: async () => {
            const result = await app.api.post(`${itemPath(webhook)}/rotate-secret`);
            await load();
            showSecret(result.webhook, result.secret, true);
          },
        }),
      confirmAction({
        label: "Remove",
        ariaLabel: `Remove ${webhook.url}`,
        question: "Remove this webhook?",
        errorSlot: messages,
        run: async () => {
          await app.api.delete(itemPath(webhook));
          await load();
          replace(messages, successAlert(`${webhook.url} was removed`));
        },
      }),
    );
  };

  function render() {
    replace(
      listSlot,
      failingNotice(webhooks),
      webhooks.length === 0
        ? emptyState("No webhooks yet", "Add an endpoint to have trust events pushed to it.")
        : dataTable(
          "Webhooks of the project",
          [
            { label: "Endpoint", cell: endpointCell },
            {
              label: "Events",
              cell: (w) => h("span", { class: "chip-list" }, w.events.map((e) => h("code", {}, e))),
            },
            {
              label: "Signing",
              cell: (w) => badge(w.signing === "hmac" ? "HMAC (v1)" : "Ed25519 (v1a)"),
            },
            {
              label: "Status",
              cell: statusCell,
            },
            { label: "Actions", className: "cell-actions", cell: actions },
          ],
          webhooks,
          { rowId: (w) => w.id },
        ),
    );
  }
  async function load() {
    ({ webhooks } = await app.api.get(base));
    render();
  }

  await load();
  const create = async (body) => {
    const result = await app.api.post(base, body);
    await load();
    replace(messages, successAlert(`${result.webhook.url} was added`));
    if (result.secret) showSecret(result.webhook, result.secret, false);
  };
  return [
    secretSlot,
    card("Webhooks", [messages, listSlot], {
      description:
        "Endpoints that receive this project's trust events, signed per the Standard Webhooks specification and retried until they answer 2xx.",
    }),
    card("Add a webhook", createForm(create)),
  ];
}
