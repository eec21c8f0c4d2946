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

/** Shows a signing secret once, above the list; dismissing it returns focus to the list. */
function showSecret(view, webhook, secret, rotated) {
  const { secretSlot, listSlot } = view;
  const dismiss = () => {
    replace(secretSlot);
    const heading = listSlot.closest("section").querySelector("h2");
    heading.tabIndex = -1;
    heading.focus();
  };
  replace(secretSlot, secretPanel(webhook, secret, { rotated, dismiss }));
  secretSlot.querySelector("input").focus();
}

/** Opens or closes the delivery log of `webhook` in a row under its own. */
async function toggleLog(view, button, webhook) {
  const rowId = `deliveries-${webhook.id}`;
  const open = document.getElementById(rowId);
  if (open) {
    open.remove();
    button.setAttribute("aria-expanded", "false");
    return;
  }
  const log = deliveryLog(view.app, {
    path: view.itemPath(webhook),
    webhook,
    messages: view.messages,
  });
  await log.load();
  const row = button.closest("tr");
  row.after(detailRow(rowId, row.children.length, log.node));
  button.setAttribute("aria-expanded", "true");
}

/** A small row button that runs `run` and reports its errors in the section's messages. */
function rowButton(view, label, attributes, run) {
  const button = h("button", {
    type: "button",
    class: "btn btn-secondary btn-small",
    ...attributes,
    on: { click: () => runButton(button, view.messages, () => run(button)) },
  }, label);
  return button;
}

function logButton(view, webhook) {
  return rowButton(view, "Deliveries", {
    "aria-expanded": "false",
    "aria-controls": `deliveries-${webhook.id}`,
    "aria-label": `Deliveries to ${webhook.url}`,
  }, (button) => toggleLog(view, button, webhook));
}

function testButton(view, webhook) {
  return rowButton(view, "Send test", { "aria-label": `Send test to ${webhook.url}` }, async () => {
    await view.app.api.post(`${view.itemPath(webhook)}/test`);
    replace(view.messages, successAlert(`A webhook.test delivery to ${webhook.url} is queued`));
  });
}

function enableButton(view, webhook) {
  const verb = toggleLabel(webhook);
  return rowButton(view, verb, { "aria-label": `${verb} ${webhook.url}` }, async () => {
    await view.app.api.patch(view.itemPath(webhook), { enabled: !webhook.enabled });
    await view.load();
    if (failing(webhook)) {
      replace(view.messages, successAlert(`${webhook.url} is enabled again`));
    }
  });
}

function rotateAction(view, webhook) {
  return confirmAction({
    label: "Rotate secret",
    ariaLabel: `Rotate secret of ${webhook.url}`,
    question: "Rotate? The old secret keeps signing for 24 hours.",
    confirmLabel: "Rotate",
    danger: false,
    errorSlot: view.messages,
    run: async () => {
      const result = await view.app.api.post(`${view.itemPath(webhook)}/rotate-secret`);
      await view.load();
      showSecret(view, result.webhook, result.secret, true);
    },
  });
}

function removeAction(view, webhook) {
  return confirmAction({
    label: "Remove",
    ariaLabel: `Remove ${webhook.url}`,
    question: "Remove this webhook?",
    errorSlot: view.messages,
    run: async () => {
      await view.app.api.delete(view.itemPath(webhook));
      await view.load();
      replace(view.messages, successAlert(`${webhook.url} was removed`));
    },
  });
}

function rowActions(view, webhook) {
  return h(
    "div",
    { class: "row-actions" },
    logButton(view, webhook),
    testButton(view, webhook),
    enableButton(view, webhook),
    webhook.signing === "hmac" && rotateAction(view, webhook),
    removeAction(view, webhook),
  );
}

function webhookTable(view, webhooks) {
  return dataTable(
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
      { label: "Status", cell: statusCell },
      { label: "Actions", className: "cell-actions", cell: (w) => rowActions(view, w) },
    ],
    webhooks,
    { rowId: (w) => w.id },
  );
}

function renderList(view, webhooks) {
  replace(
    view.listSlot,
    failingNotice(webhooks),
    webhooks.length === 0
      ? emptyState("No webhooks yet", "Add an endpoint to have trust events pushed to it.")
      : webhookTable(view, webhooks),
  );
}

export async function webhooksSection(app, project) {
  const base = projectPath(project.id, "/webhooks");
  const view = {
    app,
    itemPath: (webhook) => `${base}/${encodeURIComponent(webhook.id)}`,
    secretSlot: h("div", { class: "secret-slot" }),
    listSlot: h("div", {}),
    messages: h("div", { class: "form-errors" }),
    load: async () => renderList(view, (await app.api.get(base)).webhooks),
  };
  await view.load();
  const create = async (body) => {
    const result = await app.api.post(base, body);
    await view.load();
    replace(view.messages, successAlert(`${result.webhook.url} was added`));
    if (result.secret) showSecret(view, result.webhook, result.secret, false);
  };
  return [
    view.secretSlot,
    card("Webhooks", [view.messages, view.listSlot], {
      description:
        "Endpoints that receive this project's trust events, signed per the Standard Webhooks specification and retried until they answer 2xx.",
    }),
    card("Add a webhook", createForm(create)),
  ];
}
