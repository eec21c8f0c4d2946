/**
 * Interactive pieces several views share: a value with a copy button, an
 * action that asks for confirmation in place, a button that runs a call, and a file download.
 */
import { describeError, errorAlert, h, replace, uniqueId } from "./dom.js";

/** Copies `text`, falling back to selecting `input` for a manual copy. */
async function copy(text, input, status, what) {
  try {
    await navigator.clipboard.writeText(text);
    replace(status, `${what} copied to the clipboard`);
  } catch {
    input.focus();
    input.select();
    replace(status, "Selected; press Ctrl+C (or ⌘C) to copy");
  }
}

/**
 * A labelled read-only value with a Copy button. `what` names the value in
 * the copy confirmation ("Secret copied…"); `hint` is announced with it;
 * `button` replaces the button's text (its accessible name is then the text).
 */
export function copyField(
  label,
  value,
  { hint, what = label, id = uniqueId("copy"), button } = {},
) {
  const hintId = hint ? `${id}-hint` : null;
  const input = h("input", {
    id,
    class: "input-mono",
    readonly: true,
    value,
    spellcheck: "false",
    "aria-describedby": hintId,
  });
  const status = h("p", { class: "copy-status", role: "status" });
  return h(
    "div",
    { class: "copy-field" },
    h("label", { for: id }, label),
    h(
      "div",
      { class: "copy-row" },
      input,
      h("button", {
        type: "button",
        class: "btn btn-secondary",
        "aria-label": button ? null : `Copy ${label.toLowerCase()}`,
        on: { click: () => copy(value, input, status, what) },
      }, button ?? "Copy"),
    ),
    hint && h("p", { class: "hint", id: hintId }, hint),
    status,
  );
}

/**
 * A button that turns into an inline question with confirm and cancel, so
 * nothing destructive happens on one stray click. `run` performs the action;
 * when it throws, the button comes back and the error shows in `errorSlot`.
 */
export function confirmAction(
  { label, ariaLabel, question, confirmLabel = label, danger = true, run, errorSlot },
) {
  const slot = h("div", { class: "row-actions" });
  const idle = () => {
    const button = h("button", {
      type: "button",
      class: "btn btn-secondary btn-small",
      "aria-label": ariaLabel,
      on: { click: confirming },
    }, label);
    replace(slot, button);
    return button;
  };
  const confirming = () => {
    const yes = h("button", {
      type: "button",
      class: `btn ${danger ? "btn-danger" : "btn-primary"} btn-small`,
      on: { click: confirm },
    }, confirmLabel);
    const cancel = h("button", {
      type: "button",
      class: "btn btn-secondary btn-small",
      on: { click: () => idle().focus() },
    }, "Cancel");
    replace(slot, h("span", { class: "confirm-text" }, question), yes, cancel);
    yes.focus();
  };
  async function confirm(event) {
    event.currentTarget.disabled = true;
    replace(errorSlot);
    try {
      await run();
    } catch (error) {
      idle().focus();
      replace(errorSlot, errorAlert(describeError(error)));
    }
  }
  idle();
  return slot;
}

/**
 * Runs `action` for a button click: the button is disabled meanwhile and a
 * failure is shown in `errorSlot`. Returns the action's result, or undefined.
 */
export async function runButton(button, errorSlot, action) {
  button.disabled = true;
  button.setAttribute("aria-busy", "true");
  replace(errorSlot);
  try {
    return await action();
  } catch (error) {
    replace(errorSlot, errorAlert(describeError(error)));
  } finally {
    button.disabled = false;
    button.removeAttribute("aria-busy");
  }
}

/**
 * Hands `blob` to the browser as a download named `filename`. The object URL lives only as long
 * as the click needs it; nothing is parsed or shown.
 */
export function saveFile(blob, filename) {
  const url = URL.createObjectURL(blob);
  const link = h("a", { href: url, download: filename, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
