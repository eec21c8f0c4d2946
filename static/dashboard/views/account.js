/**
 * The signed-in person's account: who they are, and deleting the account (docs/lifecycle.md):
 * typed confirmation of the email; the API refuses an organization's last owner (409), shown
 * inline. Deleting ends every session, so the dashboard signs out with a notice.
 */
import { field, h, handleSubmit } from "../dom.js";
import { card, pageHeader } from "./layout.js";

function deleteAccountForm(app, user) {
  const errorSlot = h("div", { class: "form-errors" });
  const form = h(
    "form",
    { class: "form" },
    h(
      "p",
      {},
      "Deleting your account removes it at once, with your memberships, sessions and sign-in ",
      "links. What you wrote in your organizations stays, under an anonymous id. If you are the ",
      "only owner of an organization, make another member an owner or delete it first.",
    ),
    field(
      `Type ${user.email} to confirm`,
      h("input", {
        name: "confirm",
        type: "email",
        required: true,
        autocomplete: "off",
        spellcheck: "false",
        maxlength: "254",
      }),
      "Your email address, exactly as shown",
    ),
    errorSlot,
    h(
      "div",
      { class: "form-actions" },
      h("button", { type: "submit", class: "btn btn-danger" }, "Delete my account"),
    ),
  );
  handleSubmit(form, errorSlot, async (data) => {
    await app.api.delete("/me", { confirm: String(data.get("confirm") ?? "").trim() });
    app.signOut({ notice: "Your account was deleted." });
  });
  return form;
}

export function accountView(app) {
  const { user } = app.me;
  app.setTitle("Account");
  return h(
    "div",
    { class: "constrained" },
    pageHeader({ title: "Your account", meta: [user.email] }),
    card("Danger zone", deleteAccountForm(app, user), {
      description: "Only you can delete your account.",
    }),
  );
}
