/**
 * The form that registers a webhook: URL, events, signing method and a description.
 */
import { field, h, handleSubmit } from "../../dom.js";

const EVENTS = [
  ["version.published", "A new version is published"],
  ["control.regressed", "Controls went from pass to fail, stale or degraded"],
  ["control.recovered", "Regressed controls pass again"],
  ["update.posted", "An incident, advisory or change post"],
  ["subprocessor.changed", "The organization's subprocessors changed"],
];

function choice(type, name, value, label, description, checked) {
  const id = `webhook-${name}-${value.replace(".", "-")}`;
  return h(
    "div",
    { class: "choice" },
    h("input", { type, id, name, value, checked }),
    h(
      "label",
      { for: id },
      h("span", { class: "choice-label" }, label),
      description && h("span", { class: "choice-description" }, description),
    ),
  );
}

function urlField() {
  return field(
    "Endpoint URL",
    h("input", {
      name: "url",
      type: "url",
      required: true,
      maxlength: "2048",
      class: "input-mono",
      autocomplete: "off",
      spellcheck: "false",
      placeholder: "https://hooks.example.com/trust",
    }),
    "An https URL on the public internet; private and loopback addresses are refused.",
  );
}

function eventChoices() {
  return h(
    "fieldset",
    { class: "field choices" },
    h("legend", {}, "Events"),
    EVENTS.map(([value, description]) =>
      choice(
        "checkbox",
        "events",
        value,
        h("code", {}, value),
        description,
        value === "control.regressed",
      )
    ),
  );
}

function signingChoices() {
  return h(
    "fieldset",
    { class: "field choices" },
    h("legend", {}, "Signing"),
    choice(
      "radio",
      "signing",
      "ed25519",
      "Ed25519 (v1a)",
      "Verify with the service's public key, published in its JWKS.",
      true,
    ),
    choice(
      "radio",
      "signing",
      "hmac",
      "HMAC secret (v1)",
      "A shared whsec_ secret, shown once.",
      false,
    ),
  );
}

/** The request body of the form's data. */
function webhookBody(data) {
  const description = String(data.get("description") ?? "").trim();
  return {
    url: String(data.get("url")).trim(),
    events: data.getAll("events"),
    signing: String(data.get("signing")),
    ...(description ? { description } : {}),
  };
}

export function createForm(create) {
  const errorSlot = h("div", { class: "form-errors" });
  const form = h(
    "form",
    { class: "form" },
    urlField(),
    eventChoices(),
    signingChoices(),
    field(
      "Description",
      h("input", { name: "description", maxlength: "200", autocomplete: "off" }),
      "Optional: who or what receives it.",
    ),
    errorSlot,
    h(
      "div",
      { class: "form-actions" },
      h("button", { type: "submit", class: "btn btn-primary" }, "Add webhook"),
    ),
  );
  handleSubmit(form, errorSlot, async (data) => {
    await create(webhookBody(data));
    form.reset();
  });
  return form;
}
