/**
 * Builds DOM nodes. Strings always become text nodes and attribute values,
 * never markup: nothing in the dashboard parses HTML, so names and messages
 * from users and vendors cannot turn into elements or scripts.
 */

/** Properties set after the children exist (a select's value needs its options). */
const LATE_PROPS = new Set(["value", "checked"]);

/**
 * Creates `<tag>` with attributes from `props` and the given children.
 * `props.on` maps event names to listeners; `class` sets the class list;
 * `true` makes a boolean attribute; `null`, `undefined` and `false` are skipped.
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  const late = [];
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "on") {
      for (const [event, listener] of Object.entries(value)) el.addEventListener(event, listener);
    } else if (LATE_PROPS.has(key)) {
      late.push([key, value]);
    } else if (/^on/i.test(key)) {
      throw new Error(`Use the "on" map instead of the ${key} attribute`);
    } else {
      el.setAttribute(key === "className" ? "class" : key, value === true ? "" : String(value));
    }
  }
  append(el, children);
  for (const [key, value] of late) el[key] = value;
  return el;
}

/** Appends children: nodes as they are, strings and numbers as text, arrays flattened. */
export function append(parent, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else if (child instanceof Node) parent.append(child);
    else parent.append(document.createTextNode(String(child)));
  }
  return parent;
}

/** Replaces every child of `parent`. */
export function replace(parent, ...children) {
  parent.replaceChildren();
  return append(parent, children);
}

let uid = 0;
/** A document-unique id for pairing labels, hints and errors with their inputs. */
export function uniqueId(prefix) {
  uid += 1;
  return `${prefix}-${uid}`;
}

/**
 * A labelled form field. `control` is the input, select or textarea; `hint`
 * (text or nodes) is announced with it through aria-describedby.
 */
export function field(label, control, hint) {
  const id = control.id || uniqueId("field");
  control.id = id;
  const parts = [h("label", { for: id }, label), control];
  if (hint) {
    const hintId = `${id}-hint`;
    control.setAttribute("aria-describedby", hintId);
    parts.push(h("p", { class: "hint", id: hintId }, hint));
  }
  return h("div", { class: "field" }, parts);
}

/** A small status label: `tone` is neutral, success or info. */
export function badge(text, tone = "neutral") {
  return h("span", { class: `badge badge-${tone}` }, text);
}

/** An inline alert for an error; `role="alert"` so screen readers announce it. */
export function errorAlert(message) {
  return h("div", { class: "alert alert-error", role: "alert" }, message);
}

/**
 * Runs `action` for a form submit: disables the submit button, clears and
 * fills the error slot, and keeps the form usable after a failure.
 */
export function handleSubmit(form, errorSlot, action) {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const buttons = form.querySelectorAll("button[type=submit]");
    buttons.forEach((b) => (b.disabled = true));
    form.setAttribute("aria-busy", "true");
    replace(errorSlot);
    try {
      await action(new FormData(form));
    } catch (error) {
      replace(errorSlot, errorAlert(describeError(error)));
    } finally {
      buttons.forEach((b) => (b.disabled = false));
      form.removeAttribute("aria-busy");
    }
  });
  return form;
}

/** The message to show for a thrown value. */
export function describeError(error) {
  if (error && typeof error.message === "string" && error.message) return error.message;
  return "Something went wrong; please try again";
}
