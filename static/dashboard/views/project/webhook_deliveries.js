/**
 * The delivery log of one webhook endpoint: each delivery's event, status and attempts
 * (HTTP status, error, time), newest first, with Redeliver for deliveries that are over.
 */
import { badge, h, replace, successAlert } from "../../dom.js";
import { plural } from "../../format.js";
import { runButton } from "../../widgets.js";
import { dataTable, emptyState, timeAgo } from "../layout.js";

function statusBadge(delivery) {
  if (delivery.status === "delivered") return badge("Delivered", "success", "check");
  if (delivery.status === "failed") return badge("Failed", "danger", "cross");
  return badge("Pending", "warning", "clock");
}

function lastAttempt(delivery) {
  const last = delivery.attempts.at(-1);
  if (!last) return h("span", { class: "muted" }, "Not attempted yet");
  return h(
    "span",
    { class: "attempt" },
    timeAgo(last.at),
    last.statusCode ? [" ", h("code", {}, String(last.statusCode))] : null,
    last.error ? [" ", h("span", { class: "attempt-error" }, last.error)] : null,
  );
}

function attemptsCell(delivery) {
  const next = delivery.status === "pending" && delivery.nextAttemptAt
    ? [" · next ", timeAgo(delivery.nextAttemptAt)]
    : null;
  return h("span", {}, plural(delivery.attemptCount, "attempt"), next);
}

function redeliverButton(log, delivery) {
  if (delivery.status === "pending") return h("span", { class: "muted" }, "In progress");
  const { app, path, messages } = log;
  const button = h("button", {
    type: "button",
    class: "btn btn-secondary btn-small",
    "aria-label": `Redeliver ${delivery.type} of ${timeAgo(delivery.createdAt).textContent}`,
    on: {
      click: () =>
        runButton(button, messages, async () => {
          await app.api.post(`${path}/deliveries/${encodeURIComponent(delivery.id)}/redeliver`);
          await log.load();
          replace(messages, successAlert(`The ${delivery.type} delivery was queued again`));
        }),
    },
  }, "Redeliver");
  return button;
}

function deliveriesTable(log) {
  if (log.deliveries.length === 0) {
    return emptyState("No deliveries yet", "Events this endpoint subscribed to will show here.");
  }
  return dataTable(
    `Deliveries to ${log.webhook.url}`,
    [
      { label: "Event", cell: (d) => h("code", {}, d.type) },
      { label: "Status", cell: statusBadge },
      { label: "Attempts", cell: attemptsCell },
      { label: "Last attempt", cell: lastAttempt },
      {
        label: "Created",
        cell: (d) => timeAgo(d.createdAt),
      },
      { label: "Actions", className: "cell-actions", cell: (d) => redeliverButton(log, d) },
    ],
    log.deliveries,
    { rowId: (d) => d.id, className: "deliveries-table" },
  );
}

/** Loads one page of deliveries (the first when `cursor` is null) and shows them. */
async function loadPage(log, cursor) {
  const query = cursor ? `?cursor=${encodeURIComponent(cursor)}` : "";
  const result = await log.app.api.get(`${log.path}/deliveries${query}`);
  log.deliveries = cursor ? [...log.deliveries, ...result.deliveries] : result.deliveries;
  replace(log.tableSlot, deliveriesTable(log));
  const older = result.cursor &&
    h("button", {
      type: "button",
      class: "btn btn-secondary btn-small",
      on: {
        click: (event) =>
          runButton(event.currentTarget, log.messages, () => loadPage(log, result.cursor)),
      },
    }, "Older deliveries");
  replace(log.more, older || null);
}

/**
 * The log of `webhook` (path `path`), with a Refresh button and older pages; `messages`
 * receives confirmations and errors.
 */
export function deliveryLog(app, { path, webhook, messages }) {
  const log = {
    app,
    path,
    webhook,
    messages,
    tableSlot: h("div", {}),
    more: h("div", { class: "form-actions" }),
    deliveries: [],
    load: () => loadPage(log, null),
  };
  const refresh = h("button", {
    type: "button",
    class: "btn btn-secondary btn-small",
    "aria-label": `Refresh the deliveries to ${webhook.url}`,
    on: { click: (event) => runButton(event.currentTarget, messages, log.load) },
  }, "Refresh");
  const slot = h("div", { class: "delivery-log" });
  replace(
    slot,
    h("div", { class: "delivery-log-head" }, h("h3", {}, "Deliveries"), refresh),
    log.tableSlot,
    log.more,
  );
  return { node: slot, load: log.load };
}
