/**
 * Getting started: the five steps from a new project to a page buyers read (a collector that
 * reports, the first evidence, the first publish, public visibility, and, optionally, a custom
 * domain), each marked done from the project's own data, with a link to where the next one is
 * done. Once the required steps are done, the checklist shrinks to one line that opens it.
 */
import { badge, h } from "../../dom.js";
import { href } from "../../routes.js";
import { card } from "../layout.js";
import { projectPath } from "./common.js";

/** The steps of `project`, in order, each with whether it is done and where to do it. */
export async function gettingStartedSteps(app, project) {
  const path = (rest) => projectPath(project.id, rest);
  // Collectors and domains are read up to getAll's bound: a step found done past it shows undone.
  const [{ items: collectors }, evidence, { publishedProfiles }, { items: domains }] = await Promise
    .all([
      app.api.getAll(path("/collectors"), "collectors"),
      app.api.get(path("/evidence?limit=1")),
      app.api.get(path("/published-profiles?limit=1")),
      app.api.getAll(path("/domains"), "domains"),
    ]);
  const active = collectors.filter((c) => c.status === "active");
  const reporting = active.some((c) => c.lastSeenAt);
  const link = (section) => href.project(project.id, section);
  return [
    {
      id: "collector",
      title: "Connect a collector",
      done: reporting,
      detail: reporting
        ? "A collector has reported."
        : active.length > 0
        ? "A collector exists but has not reported yet: run the setup guide's heartbeat."
        : "Create a collector and run the commands of the setup guide in your CI.",
      action: "Open Collectors",
      href: link("collectors"),
    },
    {
      id: "evidence",
      title: "Send the first evidence",
      done: evidence.records.length > 0,
      detail: "An SBOM, a vulnerability scan or test results, sent after a build.",
      action: evidence.records.length > 0 ? "Open Evidence" : "Open the setup guide",
      href: link(evidence.records.length > 0 ? "evidence" : "collectors"),
    },
    {
      id: "publish",
      title: "Publish the first version",
      done: publishedProfiles.length > 0,
      detail: "Review what the controls say and sign version 1 of the trust profile.",
      action: "Open Publish",
      href: link("publish"),
    },
    {
      id: "public",
      title: "Make the trust page public",
      done: project.visibility === "public",
      detail: "Until then the public trust page, trust.json and the feeds answer 404.",
      action: "Open Settings",
      href: link("settings"),
    },
    {
      id: "domain",
      title: "Add a custom domain",
      optional: true,
      done: domains.some((d) => d.verificationStatus === "verified"),
      detail: "Serve the trust page at an address of your own, e.g. trust.acme.example.",
      action: "Open Domains",
      href: link("domains"),
    },
  ];
}

/** Whether every step that is not optional is done: the project is set up. */
export const finished = (steps) => steps.every((s) => s.done || s.optional);

/** The steps as an ordered list, each with its state, title, link and detail. */
function stepList(steps, next) {
  return h(
    "ol",
    { class: "checklist" },
    steps.map((step) =>
      h(
        "li",
        { "data-step": step.id },
        h(
          "span",
          { class: "step-state" },
          step.done ? badge("Done", "success", "check") : badge("To do", "neutral"),
        ),
        h("span", { class: "step-title" }, step.title, step.optional && " (optional)"),
        !step.done && step !== next && h("a", { href: step.href }, step.action),
        h("p", { class: "step-detail" }, step.detail),
      )
    ),
  );
}

/**
 * The checklist once the project is set up: one line saying so, which opens the steps (an
 * optional one not done keeps its link there).
 */
function finishedLine(steps) {
  const done = steps.filter((s) => s.done).length;
  const open = steps.filter((s) => !s.done).map((s) => s.title.toLowerCase());
  return h(
    "details",
    { class: "card checklist-done" },
    h(
      "summary",
      {},
      badge("Set up", "success", "check"),
      h(
        "span",
        {},
        `Getting started: ${done} of ${steps.length} steps done`,
        open.length > 0 && ` (optional: ${open.join(", ")})`,
      ),
    ),
    stepList(steps, null),
  );
}

/**
 * The checklist card; the first step not done is the one its button leads to. Once every
 * required step is done, a single line instead.
 */
export function checklistCard(steps) {
  if (finished(steps)) return finishedLine(steps);
  const done = steps.filter((s) => s.done).length;
  const next = steps.find((s) => !s.done);
  const list = stepList(steps, next);
  return card(
    "Getting started",
    [
      h("p", { class: "muted" }, `${done} of ${steps.length} steps done.`),
      list,
      next &&
      h(
        "p",
        { class: "form-actions" },
        h("a", { class: "btn btn-primary", href: next.href }, `Next: ${next.title.toLowerCase()}`),
      ),
    ],
    { className: "checklist-card" },
  );
}
