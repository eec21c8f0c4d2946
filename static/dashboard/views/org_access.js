/**
 * Access to restricted documents, for the organization's Documents view: requests with
 * Approve and Deny (owners), the links granted with Revoke, and the download log. An
 * approval shows whether the link was emailed; without email it shows the link to copy. An
 * automatic approval whose email failed leaves the request pending, and owners are told.
 */
import { errorAlert, h } from "../dom.js";
import { formatDate } from "../format.js";
import { copyField, runButton } from "../widgets.js";
import { card, dataTable, emptyState } from "./layout.js";

const base = (id) => `/organizations/${encodeURIComponent(id)}`;
const when = (iso) => h("time", { datetime: iso }, formatDate(iso, true));

/** What the last approval produced: a notice and, when not emailed, the link to copy. */
function approvalNotice(approval) {
  if (!approval) return null;
  if (approval.email.sent) {
    return h(
      "p",
      { class: "alert alert-success", role: "status" },
      `Approved. ${approval.email.detail}.`,
    );
  }
  return h(
    "div",
    { class: "alert alert-warning", role: "status" },
    h("p", {}, `Approved, but not emailed: ${approval.email.detail}.`),
    copyField("Access link", approval.link.url, {
      what: "Link",
      hint: `Send it to ${approval.request.email} yourself. It is shown only now.`,
    }),
  );
}

/** A request's status; a failed automatic approval says why and when. */
function statusCell(r) {
  const status = r.autoApproved
    ? "Approved (automatic)"
    : r.status[0].toUpperCase() + r.status.slice(1);
  if (!r.autoApproval) return status;
  return h(
    "div",
    {},
    status,
    h(
      "div",
      { class: "hint" },
      "Automatic approval failed ",
      when(r.autoApproval.failedAt),
      `: ${r.autoApproval.detail}. No link was sent.`,
    ),
  );
}

/** Pending requests whose automatic approval could not be emailed, for owners to act on. */
function failedAutoApprovals(ctx, requests) {
  const failed = requests.filter((r) => r.status === "pending" && r.autoApproval);
  if (failed.length === 0 || ctx.organization.role !== "owner") return null;
  const who = failed.map((r) => r.email).join(", ");
  return h(
    "p",
    { class: "alert alert-warning", role: "status" },
    `${failed.length === 1 ? "One automatic approval" : `${failed.length} automatic approvals`}` +
      ` could not be emailed (${who}). Approve by hand: the link is shown to copy if email fails again.`,
  );
}

/** The Approve or Deny button of a request; errors go to `errorSlot`. */
function decideButton(app, ctx, { request: r, verb, errorSlot }) {
  const button = h("button", {
    type: "button",
    class: `btn ${verb === "approve" ? "btn-primary" : "btn-secondary"} btn-small`,
    "aria-label": `${verb === "approve" ? "Approve" : "Deny"} the request of ${r.email}`,
  }, verb === "approve" ? "Approve" : "Deny");
  button.addEventListener("click", () =>
    runButton(button, errorSlot, async () => {
      const path = `${base(ctx.organization.id)}/access-requests/${r.id}/${verb}`;
      const result = await app.api.post(path, verb === "approve" ? {} : undefined);
      await ctx.reload(
        verb === "approve" ? null : `Request of ${r.email} denied`,
        verb === "approve" ? result : null,
      );
    }));
  return button;
}

function requesterCell(r) {
  return h(
    "div",
    {},
    h("strong", {}, r.name),
    h("div", {}, r.email),
    h("div", { class: "hint" }, r.company),
  );
}

function requestTable(app, ctx, requests, titles) {
  if (requests.length === 0) {
    return emptyState(
      "No requests yet",
      "Visitors request restricted documents from the trust center.",
    );
  }
  const owner = ctx.organization.role === "owner";
  const errorSlot = h("div", { class: "form-errors" });
  const decide = (request, verb) => decideButton(app, ctx, { request, verb, errorSlot });
  return h(
    "div",
    {},
    dataTable("Access requests, newest first", [
      { label: "Requester", cell: requesterCell },
      {
        label: "Documents",
        cell: (r) => r.documentIds.map((id) => titles.get(id) ?? "(removed)").join(", "),
      },
      {
        label: "NDA",
        cell: (r) => `v${r.nda.version}, accepted ${formatDate(r.nda.acceptedAt, true)}`,
      },
      { label: "Status", cell: statusCell },
      {
        label: "Actions",
        cell: (r) =>
          owner && r.status === "pending"
            ? h("div", { class: "row-actions" }, decide(r, "approve"), decide(r, "deny"))
            : "",
      },
    ], requests),
    errorSlot,
  );
}

function linkTable(app, ctx, links, now) {
  if (links.length === 0) return emptyState("No links yet", "Approving a request creates one.");
  const owner = ctx.organization.role === "owner";
  const errorSlot = h("div", { class: "form-errors" });
  const state = (l) =>
    l.revokedAt ? "Revoked" : Date.parse(l.expiresAt) <= now ? "Expired" : "Active";
  const revoke = (l) => {
    const button = h("button", {
      type: "button",
      class: "btn btn-secondary btn-small",
      "aria-label": `Revoke the link of ${l.email}`,
    }, "Revoke");
    button.addEventListener("click", () =>
      runButton(button, errorSlot, async () => {
        await app.api.post(`${base(ctx.organization.id)}/access-links/${l.id}/revoke`);
        await ctx.reload(`Link of ${l.email} revoked`);
      }));
    return button;
  };
  return h(
    "div",
    {},
    dataTable("Access links, newest first", [
      { label: "Recipient", cell: (l) => l.email },
      { label: "Created", cell: (l) => when(l.createdAt) },
      { label: "Expires", cell: (l) => when(l.expiresAt) },
      { label: "State", cell: state },
      { label: "Actions", cell: (l) => owner && state(l) === "Active" ? revoke(l) : "" },
    ], links),
    errorSlot,
  );
}

function downloadTable(downloads) {
  if (downloads.length === 0) {
    return emptyState("No downloads yet", "Every download through a link is listed here.");
  }
  return dataTable("Downloads through access links, newest first", [
    { label: "When", cell: (d) => when(d.at) },
    { label: "Who", cell: (d) => d.email },
    { label: "Document", cell: (d) => d.title },
    { label: "From", cell: (d) => h("code", {}, d.ip) },
    { label: "Stamped", cell: (d) => (d.watermarked ? "Yes" : "No") },
  ], downloads);
}

/** How many requests wait for a decision, in words ("2 access requests wait…"). */
function pendingText(pending) {
  return pending === 1
    ? "1 access request waits for a decision"
    : `${pending} access requests wait for a decision`;
}

/**
 * The organization's pending requests as a notice linking to `href` (the Documents view),
 * or null when none waits. Owners are also emailed when a request arrives.
 */
export async function pendingRequestsNotice(app, organization, href) {
  const { requests } = await app.api.get(`${base(organization.id)}/access-requests`);
  const pending = requests.filter((r) => r.status === "pending").length;
  if (pending === 0) return null;
  return h(
    "p",
    { class: "alert alert-info pending-requests", role: "status" },
    `${pendingText(pending)}. `,
    h("a", { href }, "Review access requests"),
  );
}

/** The access cards for the Documents view; `approval` is the result of the last approval. */
export async function accessCards(app, ctx, documents, approval) {
  const path = base(ctx.organization.id);
  try {
    const [{ requests }, { links }, { downloads }] = await Promise.all([
      app.api.get(`${path}/access-requests`),
      app.api.get(`${path}/access-links`),
      app.api.get(`${path}/document-downloads`),
    ]);
    const titles = new Map(documents.map((d) => [d.id, d.title]));
    const pending = requests.filter((r) => r.status === "pending").length;
    return [
      card(
        pending === 0 ? "Access requests" : `Access requests (${pending} pending)`,
        h(
          "div",
          {},
          approvalNotice(approval),
          failedAutoApprovals(ctx, requests),
          requestTable(app, ctx, requests, titles),
        ),
        {
          description:
            "Owners approve or deny, and are emailed when a request arrives. Approval emails a link valid for 7 days.",
        },
      ),
      card("Access links", linkTable(app, ctx, links, Date.now())),
      card("Download log", downloadTable(downloads)),
    ];
  } catch (error) {
    return [errorAlert(error.message)];
  }
}
