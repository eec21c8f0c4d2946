/**
 * Whether live work runs (recomputes, automatic publishing, webhooks, email), as
 * `GET /service/status` tells it, and the warning every overview shows when it does not:
 * a stopped live layer must never be silent.
 */
import { ApiError } from "../api.js";
import { describeError, h, icon } from "../dom.js";
import { href } from "../routes.js";

/** What the worker modes mean, for people. */
export const WORKER_MODES = {
  loop: "The job loop of the instance that answered",
  cron: "Deno.cron, every minute",
  off: "None: nothing runs jobs on the instance that answered",
};

/** The live layer's status (`LiveStatus`). */
export async function loadLiveStatus(app) {
  const { live } = await app.api.get("/service/status");
  return live;
}

/**
 * A warning that live work is not running, with its problems in words; null when it runs.
 * `organizationId` adds a link to the organization's Live work section.
 */
export function liveWarning(live, organizationId) {
  if (live.ready) return null;
  return warningBox(
    [
      h("strong", {}, "Live work is not running. "),
      "Recomputes, automatic publishing, webhooks and email wait until it runs again.",
    ],
    live.problems,
    organizationId,
  );
}

function warningBox(lead, problems, organizationId) {
  return h(
    "div",
    { class: "alert alert-warning alert-icon live-warning" },
    icon("warning"),
    h(
      "div",
      {},
      h("p", {}, lead),
      problems.length > 0 &&
        h("ul", { class: "live-problems" }, problems.map((p) => h("li", {}, p))),
      organizationId &&
        h("p", {}, h("a", { href: href.live(organizationId) }, "Open the Live work section")),
    ),
  );
}

/**
 * The warning for an overview: loads the status and returns the warning, or null when live
 * work runs. A status that cannot be read is said too (an ended session still signs out).
 */
export async function liveBanner(app, organizationId) {
  try {
    return liveWarning(await loadLiveStatus(app), organizationId);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) throw error;
    return warningBox(
      [
        h("strong", {}, "Whether live work runs could not be read. "),
        describeError(error),
      ],
      [],
      organizationId,
    );
  }
}
