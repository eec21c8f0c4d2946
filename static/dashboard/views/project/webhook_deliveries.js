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

/**
 * The log of `webhook` (path `path`), with a Refresh button and older pages; `messages`
 * receives confirmations and errors.
 */
export function deliveryLog(app, { path, webhook, messages }) {
  const slot = h("div", { class: "delivery-log" });
  const tableSlot = h("div", {});
  const more = h("div", { class: "form-actions" });
  let deliveries = [];

  const redeliverButton = (delivery) => {
    if (delivery.status === "pending") return h("span", { class: "muted" }, "In progress");
    const button = h("button", {
      type: "button",
      class: "btn btn-secondary btn-small",
      "aria-label": `Redeliver ${delivery.type} of ${timeAgo(delivery.createdAt).textContent}`,
      on: {
        click: () =>
          runButton(button, messages, async () => {
            await app.api.post(`${path}/deliveries/${encodeURIComponent(delivery.id)}/redeliver`);
            await load();
            replace(messages, successAlert(`The ${delivery.type} delivery was queued again`));
          }),
      },
    }, "Redeliver");
    return button;
  };

  const render = () =>
    replace(
      tableSlot,
      deliveries.length === 0
        ? emptyState("No deliveries yet", "Events this endpoint subscribed to will show here.")
        : dataTable(
          `Deliveries to ${webhook.url}`,
          [
            { label: "Event", cell: (d) => h("code", {}, d.type) },
            { label: "Status", cell: statusBadge },
            { label: "Attempts", cell: attemptsCell },
            { label: "Last attempt", cell: lastAttempt },
            {
              label: "Created",
              cell: (d) => timeAgo(d.createdAt),
            },
            { label: "Actions", className: "cell-actions", cell: redeliverButton },
          ],
          deliveries,
          { rowId: (d) => d.id, className: "deliveries-table" },
        ),
    );

  const page = async (cursor) => {
    const query = cursor ? `?cursor=${encodeURIComponent(cursor)}` : "";
    const result = await app.api.get(`${path}/deliveries${query}`);
    deliveries = cursor ? [...deliveries, ...result.deliveries] : result.deliveries;
    render();
    const older = result.cursor &&
      h("button", {
        type: "button",
        class: "btn btn-secondary btn-small",
        on: {
          click: (event) => runButton(event.currentTarget, messages, () => page(result.cursor)),
        },
      }, "Older deliveries");
    replace(more, older || null);
  };
  const load = () => page(null);

  const refresh = h("button", {
    type: "button",
    class: "btn btn-secondary btn-small",
    "aria-label": `Refresh the deliveries to ${webhook.url}`,
    on: { click: (event) => runButton(event.currentTarget, messages, load) },
  }, "Refresh");
  replace(
    slot,
    h("div", { class: "delivery-log-head" }, h("h3", {}, "Deliveries"), refresh),
    tableSlot,
    more,
  );
  return { node: slot, load };
}
