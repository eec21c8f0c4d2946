/**
 * An organization's live work: whether the job worker runs (its mode, the oldest due job's
 * wait, the dead-lettered jobs of the whole service, the problems in words when it is not
 * ready) and the organization's jobs that failed every attempt, each with Run again.
 */
import { badge, h, icon, replace, successAlert } from "../dom.js";
import { formatDuration, plural } from "../format.js";
import { href } from "../routes.js";
import { runButton } from "../widgets.js";
import { card, dataTable, dateTime, emptyState, facts, timeAgo } from "./layout.js";
import { liveWarning, loadLiveStatus, WORKER_MODES } from "./live_status.js";
import { organizationHeader } from "./organization.js";

const orgPath = (id) => `/organizations/${encodeURIComponent(id)}`;

/** The count of dead jobs is capped by the API at 1000. */
const DEAD_COUNT_CAP = 1000;

function statusContent(live) {
  const oldest = live.oldestDueSeconds;
  return [
    liveWarning(live, null),
    facts([
      [
        "Live work",
        live.ready
          ? badge("Running", "success", "check")
          : badge("Not running", "danger", "warning"),
      ],
      ["Job worker", WORKER_MODES[live.worker.mode] ?? live.worker.mode],
      ["Oldest due job", oldest === null ? "None is waiting" : `Waiting ${formatDuration(oldest)}`],
      [
        "Dead-lettered jobs (whole service)",
        live.deadJobs >= DEAD_COUNT_CAP ? `${DEAD_COUNT_CAP} or more` : String(live.deadJobs),
      ],
      [
        "Last look for due jobs",
        live.worker.lastCheckAt ? timeAgo(live.worker.lastCheckAt) : "Not yet",
      ],
    ]),
  ];
}

function projectCell(job, { projects, complete }) {
  if (job.projectId === null) return h("span", { class: "muted" }, "Whole organization");
  const project = projects.find((p) => p.id === job.projectId);
  if (!project) {
    return h("span", { class: "muted" }, complete ? "A deleted project" : "A project");
  }
  return h("a", { href: href.project(project.id) }, project.name);
}

function errorLine(error) {
  return [
    h("span", { class: "job-error" }, error.error),
    h("span", { class: "cell-sub" }, `Attempt ${error.attempt} · `, timeAgo(error.at)),
  ];
}

function lastErrorCell(job) {
  const last = job.errors.at(-1);
  if (!last) return h("span", { class: "muted" }, "No error recorded");
  const earlier = job.errors.slice(0, -1).reverse();
  return h(
    "div",
    { class: "cell-name" },
    errorLine(last),
    earlier.length > 0 &&
      h(
        "details",
        { class: "job-errors" },
        h("summary", {}, `Earlier errors (${earlier.length})`),
        h("ul", { class: "plain-list" }, earlier.map((e) => h("li", {}, errorLine(e)))),
      ),
  );
}

function jobsTable(jobs, { projects, complete, retry }) {
  if (jobs.length === 0) {
    return emptyState(
      "No job has failed.",
      "A job that fails every attempt shows here with its errors, so it can be run again.",
    );
  }
  const projectName = (job) => projects.find((p) => p.id === job.projectId)?.name;
  return dataTable(
    "Dead-lettered jobs",
    [
      {
        label: "Job",
        cell: (job) =>
          h(
            "div",
            { class: "cell-name" },
            h("span", { class: "cell-primary" }, job.summary),
            h("code", {}, job.kind),
          ),
      },
      { label: "Project", cell: (job) => projectCell(job, { projects, complete }) },
      {
        label: "Attempts",
        className: "cell-number",
        cell: (job) => `${job.attempt} of ${job.maxAttempts}`,
      },
      {
        label: "Dead since",
        cell: (job) => (job.deadAt ? dateTime(job.deadAt) : h("span", { class: "muted" }, "—")),
      },
      { label: "Last error", className: "cell-error", cell: lastErrorCell },
      {
        label: "Actions",
        className: "cell-actions",
        cell: (job) => {
          const where = projectName(job);
          const button = h(
            "button",
            {
              type: "button",
              class: "btn btn-secondary btn-small",
              "aria-label": `Run again: ${job.summary}${where ? ` (${where})` : ""}`,
              on: { click: () => retry(job, button) },
            },
            icon("refresh"),
            "Run again",
          );
          return button;
        },
      },
    ],
    jobs,
    { rowId: (job) => job.id, className: "jobs-table" },
  );
}

export async function liveWorkView(app, organizationId) {
  const organization = await app.requireOrganization(organizationId);
  app.setTitle("Live work", organization.name);
  // Jobs name their project from this list, read up to getAll's bound.
  const { items: projects, complete } = await app.api.getAll(
    `${orgPath(organization.id)}/projects`,
    "projects",
  );
  const statusSlot = h("div", {});
  const listSlot = h("div", {});
  const messages = h("div", { class: "form-errors" });

  async function load() {
    const [live, { jobs }] = await Promise.all([
      loadLiveStatus(app),
      app.api.get(`${orgPath(organization.id)}/jobs`),
    ]);
    replace(statusSlot, statusContent(live));
    replace(listSlot, jobsTable(jobs, { projects, complete, retry }));
    return jobs;
  }

  function retry(job, button) {
    return runButton(button, messages, async () => {
      await app.api.post(
        `${orgPath(organization.id)}/jobs/${encodeURIComponent(job.id)}/retry`,
      );
      await load();
      replace(
        messages,
        successAlert(
          `“${job.summary}” was scheduled to run again. If it fails every attempt again, it comes back to this list.`,
        ),
      );
      // Its row (and the button) left the list: keep the focus in the section.
      listCard.querySelector("h2").focus();
    });
  }

  const refresh = h(
    "button",
    {
      type: "button",
      class: "btn btn-secondary btn-small",
      "aria-label": "Refresh live work",
      on: {
        click: (event) =>
          runButton(event.currentTarget, messages, async () => {
            const jobs = await load();
            replace(
              messages,
              successAlert(
                `Refreshed: ${plural(jobs.length, "dead-lettered job")} in this organization`,
              ),
            );
          }),
      },
    },
    icon("refresh"),
    "Refresh",
  );

  await load();
  const listCard = card("Dead-lettered jobs", [messages, listSlot], {
    description:
      "Jobs of this organization's projects (recomputes, trust events, webhook deliveries, emails) that failed every attempt, newest first. Jobs are idempotent: running one again never repeats what it already did.",
    actions: refresh,
  });
  listCard.querySelector("h2").setAttribute("tabindex", "-1");
  return h(
    "div",
    {},
    organizationHeader(organization, "live"),
    card("Status", statusSlot, {
      description:
        "Live work recomputes control states, publishes changes automatically and sends webhooks and email. This is what the instance that answered sees (the same as GET /health/ready).",
      className: "live-status",
    }),
    listCard,
  );
}
