/**
 * Builds DOM nodes. Strings always become text nodes and attribute values,
 * never markup: nothing in the dashboard parses HTML, so names and messages
 * from users and vendors cannot turn into elements or scripts.
 */

/**
 * Properties set after the children exist (a select's value needs its
 * options). `checked` sets the default state, which a form reset restores.
 */
const LATE_PROPS = new Map([["value", "value"], ["checked", "defaultChecked"]]);

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
  for (const [key, value] of late) el[LATE_PROPS.get(key)] = value;
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
  // A required control is marked beside its label (the label keeps its exact text); the
  // `required` attribute tells assistive technology.
  const labelNode = h("label", { for: id }, label);
  const parts = [
    control.required
      ? h(
        "span",
        { class: "field-label" },
        labelNode,
        h("span", { class: "required-mark", "aria-hidden": "true" }, "(required)"),
      )
      : labelNode,
    control,
  ];
  if (hint) {
    const hintId = `${id}-hint`;
    control.setAttribute("aria-describedby", hintId);
    parts.push(h("p", { class: "hint", id: hintId }, hint));
  }
  return h("div", { class: "field" }, parts);
}

/** A small status label: `tone` is neutral, success, info, warning or danger. */
export function badge(text, tone = "neutral", iconName) {
  return h("span", { class: `badge badge-${tone}` }, iconName && icon(iconName), text);
}

/** An inline alert for an error; `role="alert"` so screen readers announce it. */
export function errorAlert(message) {
  return h("div", { class: "alert alert-error", role: "alert" }, message);
}

/** An announced confirmation after an action succeeded. */
export function successAlert(message) {
  return h("div", { class: "alert alert-success", role: "status" }, message);
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

const SVG_NS = "http://www.w3.org/2000/svg";

/** Stroke paths of the dashboard's icons, on a 24×24 grid. */
const ICONS = {
  check: ["M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18Z", "m8 12.5 2.7 2.7L16.2 9.6"],
  cross: ["M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18Z", "m9 9 6 6", "m15 9-6 6"],
  warning: [
    "M10.3 4.2 2.6 18a2 2 0 0 0 1.7 3h15.4a2 2 0 0 0 1.7-3L13.7 4.2a2 2 0 0 0-3.4 0Z",
    "M12 9.5v4",
    "M12 17h.01",
  ],
  clock: ["M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18Z", "M12 7.5V12l3 2"],
  question: [
    "M12 21a9 9 0 1 0 0-18 9 9 0 0 0 0 18Z",
    "M9.6 9.3a2.5 2.5 0 0 1 4.8.9c0 1.7-2.4 2.2-2.4 3.6",
    "M12 17h.01",
  ],
  plus: ["M12 5v14", "M5 12h14"],
  lock: ["M6 11h12v10H6z", "M8.5 11V7.5a3.5 3.5 0 0 1 7 0V11"],
  refresh: [
    "M20 11a8 8 0 0 0-14.6-4.5L4 8",
    "M4 3v5h5",
    "M4 13a8 8 0 0 0 14.6 4.5L20 16",
    "M20 21v-5h-5",
  ],
};

/** A decorative icon (hidden from assistive technology: its text sits beside it). */
export function icon(name) {
  const svg = document.createElementNS(SVG_NS, "svg");
  for (
    const [key, value] of Object.entries({
      class: `icon icon-${name}`,
      viewBox: "0 0 24 24",
      fill: "none",
      stroke: "currentColor",
      "stroke-width": "2",
      "stroke-linecap": "round",
      "stroke-linejoin": "round",
      "aria-hidden": "true",
      focusable: "false",
    })
  ) svg.setAttribute(key, value);
  for (const d of ICONS[name]) {
    const path = document.createElementNS(SVG_NS, "path");
    path.setAttribute("d", d);
    svg.append(path);
  }
  return svg;
}
