/** The signed-out screen: one button that starts the OAuth sign-in. */
import { describeError, h, replace } from "../dom.js";

function signupHint(config, invitationToken) {
  if (!config.signup) return null;
  if (invitationToken) {
    return h(
      "p",
      {},
      "New to Trust Profile? ",
      h(
        "a",
        { href: `/signup?invitation=${encodeURIComponent(invitationToken)}` },
        "Create an account for this invitation",
      ),
      ".",
    );
  }
  if (config.signup === "open") {
    return h(
      "p",
      {},
      "New to Trust Profile? ",
      h("a", { href: "/signup" }, "Create an account"),
      ".",
    );
  }
  if (config.signup === "invite") {
    return h("p", {}, "Accounts are created from an invitation sent by an organization owner.");
  }
  return h(
    "p",
    {},
    "Setting up a new server? The first account is created with the one-time setup link printed in the server log.",
  );
}

/**
 * The sign-in card. `notice` explains why the user is here (signed out,
 * session ended); `error` is a failed sign-in; `invitationToken` is set when
 * the page was opened from an invitation link.
 */
export function signInView(app, { notice, error, invitationToken } = {}) {
  app.setTitle("Sign in");
  const errorSlot = h(
    "div",
    {},
    error && h("div", { class: "alert alert-error", role: "alert" }, error),
  );
  const button = h("button", {
    type: "button",
    class: "btn btn-primary btn-block",
    on: {
      click: async () => {
        button.disabled = true;
        try {
          await app.auth.beginSignIn(location.hash);
        } catch (err) {
          button.disabled = false;
          replace(
            errorSlot,
            h("div", { class: "alert alert-error", role: "alert" }, describeError(err)),
          );
        }
      },
    },
  }, "Sign in");
  return h(
    "div",
    { class: "auth-layout" },
    h(
      "section",
      { class: "card auth-card", "aria-labelledby": "signin-title" },
      h("h1", { id: "signin-title", tabindex: "-1" }, "Sign in to Trust Profile"),
      h(
        "p",
        { class: "lead" },
        invitationToken
          ? "You have been invited to an organization. Sign in with the email address the invitation was sent to, and it is accepted right away."
          : "Publish live, verifiable trust data about your software: controls, evidence and signed trust profiles.",
      ),
      notice && h("div", { class: "alert alert-info", role: "status" }, notice),
      errorSlot,
      button,
      h("div", { class: "auth-footer" }, signupHint(app.config, invitationToken)),
    ),
  );
}
