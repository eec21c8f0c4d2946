/**
 * Deleting a project or an organization (docs/lifecycle.md#deletion): a "Danger zone" card
 * where an owner types the slug to schedule the deletion, and, while one is scheduled, a
 * banner saying when the data goes, with Undo. Members see the banner without the buttons.
 */
import { field, h, handleSubmit } from "../dom.js";
import { formatDate } from "../format.js";
import { card } from "./layout.js";

/** The scheduled deletion at `path` (…/deletion), or null. */
async function scheduled(app, path) {
  return (await app.api.get(path)).deletion;
}

function pendingBanner(app, deletion, options) {
  const errorSlot = h("div", { class: "form-errors" });
  const undo = h(
    "form",
    { class: "form-actions" },
    errorSlot,
    h("button", { type: "submit", class: "btn" }, `Undo the deletion of this ${options.kind}`),
  );
  handleSubmit(undo, errorSlot, async () => {
    await app.api.delete(options.path);
    app.flash(`The ${options.kind} is no longer being deleted`);
    app.rerender();
  });
  return h(
    "div",
    { class: "alert alert-warning", role: "alert" },
    h(
      "p",
      {},
      h("strong", {}, `This ${options.kind} will be deleted on `),
      h("time", { datetime: deletion.dueAt }, formatDate(deletion.dueAt, true)),
      `. Its public pages already answer “410 Gone” and search no longer lists it. `,
      "Its publication log entries stay, as hashes only.",
    ),
    options.owner ? undo : h("p", {}, "An owner can undo it until then."),
  );
}

function deleteForm(app, options) {
  const errorSlot = h("div", { class: "form-errors" });
  const input = h("input", {
    name: "confirm",
    required: true,
    autocomplete: "off",
    spellcheck: "false",
    class: "input-mono",
    maxlength: "200",
  });
  const form = h(
    "form",
    { class: "form" },
    h(
      "p",
      {},
      `Deleting this ${options.kind} removes ${options.what} after 7 days. Until then its public `,
      "pages answer “410 Gone” and you can undo it. Its publication log entries stay, as hashes only.",
    ),
    field(
      `Type ${options.slug} to confirm`,
      input,
      `The ${options.kind}'s slug, exactly as shown`,
    ),
    errorSlot,
    h(
      "div",
      { class: "form-actions" },
      h("button", { type: "submit", class: "btn btn-danger" }, `Delete this ${options.kind}`),
    ),
  );
  handleSubmit(form, errorSlot, async (data) => {
    await app.api.post(options.path, { confirm: String(data.get("confirm") ?? "").trim() });
    app.flash(`The ${options.kind} will be deleted in 7 days`);
    app.rerender();
  });
  return form;
}

/**
 * The banner of a scheduled deletion (with Undo for owners), or null: `kind` "project" |
 * "organization", `path` its API path (…/deletion), `owner` whether the viewer is an owner.
 */
export async function deletionBanner(app, options) {
  const deletion = await scheduled(app, options.path);
  return deletion ? pendingBanner(app, deletion, options) : null;
}

/**
 * The danger zone of a project or an organization for its owners, while no deletion is
 * scheduled: the options of `deletionBanner`, plus `slug` and `what` it removes, in words.
 */
export async function dangerZone(app, options) {
  if (!options.owner || (await scheduled(app, options.path))) return null;
  return h(
    "div",
    { class: "constrained" },
    card("Danger zone", deleteForm(app, options), {
      description: `Only owners can delete the ${options.kind}.`,
    }),
  );
}
