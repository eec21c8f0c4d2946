/** Accepting an invitation opened from its link (`#invitation=<token>`), once signed in. */
import { describeError, h } from "../dom.js";
import { href } from "../routes.js";

/** Accept calls already made in this page, so a re-render never posts twice. */
const accepted = new Map();

function accept(app, token) {
  if (!accepted.has(token)) {
    accepted.set(
      token,
      app.api.post(`/invitations/${encodeURIComponent(token)}/accept`, undefined),
    );
  }
  return accepted.get(token);
}

function panel(title, ...content) {
  return h(
    "div",
    { class: "narrow" },
    h(
      "section",
      { class: "card", "aria-labelledby": "invitation-title" },
      h("h1", { id: "invitation-title", tabindex: "-1" }, title),
      content,
    ),
  );
}

/** Why the invitation was not accepted, with a way on: switch account or go home. */
function refusedPanel(app, error) {
  const wrongAccount = error.status === 403;
  return panel(
    "Invitation not accepted",
    h("div", { class: "alert alert-error", role: "alert" }, describeError(error)),
    wrongAccount
      ? h(
        "p",
        {},
        `You are signed in as ${app.me.user.email}. Sign out, then sign in with the address the invitation was sent to; this link is kept for that.`,
      )
      : h("p", {}, "Ask an owner of the organization for a new invitation."),
    h(
      "div",
      { class: "form-actions" },
      wrongAccount &&
        h("button", {
          type: "button",
          class: "btn btn-primary",
          on: { click: () => app.signOut({ keepHash: true }) },
        }, "Sign out and switch account"),
      h("a", {
        class: "btn btn-secondary",
        href: href.home(),
      }, "Go to the dashboard"),
    ),
  );
}

function acceptedPanel(membership, name) {
  return panel(
    "Invitation accepted",
    h(
      "div",
      { class: "alert alert-success", role: "status" },
      `You are now a${membership.role === "owner" ? "n owner" : " member"} of ${name}.`,
    ),
    h(
      "div",
      { class: "form-actions" },
      h(
        "a",
        { class: "btn btn-primary", href: href.organization(membership.organizationId) },
        `Open ${name}`,
      ),
    ),
  );
}

export async function invitationView(app, token) {
  app.setTitle("Invitation");
  let membership;
  try {
    ({ membership } = await accept(app, token));
  } catch (error) {
    accepted.delete(token);
    if (error.status === 401) throw error;
    return refusedPanel(app, error);
  }
  await app.loadMe({ force: true });
  app.refreshTopbar();
  const organization = app.me.organizations.find((o) => o.id === membership.organizationId);
  // The token is spent: keep it out of the address bar and history.
  history.replaceState(null, "", `/dashboard/${href.organization(membership.organizationId)}`);
  app.setCurrentOrganization(membership.organizationId);
  return acceptedPanel(membership, organization?.name ?? "the organization");
}
