/**
 * Interactive pieces several views share: a value with a copy button, an
 * action that asks for confirmation in place, a button that runs a call, a "Show more" button
 * for a list in pages, and a file download.
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

/** "1 collector" or "3 collectors": `noun` is `[singular, plural]`. */
export const countOf = (n, [one, many]) => `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;

/**
 * The "Show more" control of a list the API gives in pages (`nextCursor`). `next(cursor)` fetches
 * the page after `cursor` and answers `{ items, nextCursor }`; `add(items)` appends them to the
 * list and returns the elements it added. A click fetches, appends, announces in a polite status
 * line how many were added and how many show now, and moves the focus to the first added entry
 * (the button is gone after the last page, so the focus never falls back to the page's start).
 * A failure shows in `errorSlot` and leaves the button. `reset(cursor, shown)` starts over after
 * the list's first page was drawn (again).
 */
export function showMore({ noun, next, add, errorSlot }) {
  const slot = h("div", { class: "load-more" });
  const status = h("p", { class: "visually-hidden", role: "status" });
  let shown = 0;
  function button(cursor) {
    if (!cursor) return null;
    const control = h("button", {
      type: "button",
      class: "btn btn-secondary",
      on: {
        click: () =>
          runButton(control, errorSlot, async () => {
            const page = await next(cursor);
            const added = add(page.items);
            shown += page.items.length;
            replace(slot, button(page.nextCursor));
            replace(
              status,
              `${countOf(page.items.length, noun)} added; ${countOf(shown, noun)} shown` +
                (page.nextCursor ? ", more to show" : ", all of them"),
            );
            const first = added[0];
            if (first) {
              if (!first.hasAttribute("tabindex")) first.tabIndex = -1;
              first.focus();
            } else if (page.nextCursor) slot.querySelector("button")?.focus();
          }),
      },
    }, `Show more ${noun[1]}`);
    return control;
  }
  return {
    element: h("div", {}, slot, status),
    reset(cursor, count) {
      shown = count;
      replace(slot, button(cursor));
      replace(status);
    },
  };
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
