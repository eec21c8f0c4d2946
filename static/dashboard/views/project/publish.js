/**
 * Publishing: review what the next version would change, publish it, turn automatic
 * publishing on or off, see the latest version with its public addresses, and every earlier
 * version. A private project's public addresses answer 404, and the notice beside the button
 * says so.
 */
import { badge, describeError, errorAlert, h, icon, replace, successAlert } from "../../dom.js";
import { href } from "../../routes.js";
import { runButton } from "../../widgets.js";
import { card, dataTable, dateTime, emptyState, facts, timeAgo } from "../layout.js";
import { projectPath, publicUrls } from "./common.js";
import { previewPanel } from "./publish_preview.js";
import { unreportedNotice } from "./unreported.js";

/** DESIGN.md §7: the dashboard says a private project's pages answer 404, next to the button. */
function privateBeside(project) {
  return h(
    "p",
    { id: "publish-private-notice", class: "publish-notice" },
    icon("lock"),
    h(
      "span",
      {},
      h("strong", {}, "Private project: "),
      "its public pages answer 404 until the visibility is public. Change it in ",
      h("a", { href: href.project(project.id, "settings") }, "Settings"),
      ".",
    ),
  );
}

/** A public address, shown by its path (the host is this service's). */
const urlLink = (url) => h("a", { href: url, class: "url-link" }, new URL(url).pathname);

function latestVersion(project, latest) {
  if (!latest) {
    return emptyState(
      "Not published yet",
      "Publish to create version 1: trust.json, its signature, the trust page, the feed and the badge.",
    );
  }
  const urls = publicUrls(project);
  const isPublic = project.visibility === "public";
  return h(
    "div",
    { class: "latest" },
    h(
      "div",
      { class: "latest-head" },
      h("p", { class: "latest-version" }, `Version ${latest.version}`),
      h(
        "p",
        { class: "latest-time" },
        "Published ",
        dateTime(latest.publishedAt),
        " · ",
        timeAgo(latest.publishedAt),
      ),
      isPublic &&
        h("img", {
          class: "latest-badge",
          src: urls.badge,
          alt: "Badge showing the overall state of the latest version",
          height: "20",
        }),
    ),
    facts([
      ["Trust page", urlLink(urls.page)],
      ["trust.json", urlLink(urls.trustJson)],
      ["Signature (JWS)", urlLink(urls.signature)],
      ["Atom feed", urlLink(urls.feed)],
      ["Badge", urlLink(urls.badge)],
      ["Documents", urlLink(urls.documents)],
    ]),
    !isPublic &&
      h("p", { class: "hint" }, "These addresses answer 404 while the project is private."),
  );
}

function versionsTable(project, versions) {
  if (versions.length === 0) return emptyState("No versions", "Every publication is listed here.");
  const urls = publicUrls(project);
  const isPublic = project.visibility === "public";
  return dataTable("Published versions", [
    {
      label: "Version",
      cell: (v) => [
        h("span", { class: "cell-primary" }, `Version ${v.version}`),
        v === versions[0] && [" ", badge("Latest", "info")],
      ],
    },
    { label: "Published", cell: (v) => dateTime(v.publishedAt) },
    {
      label: "Documents",
      cell: (v) =>
        isPublic
          ? h(
            "span",
            { class: "link-list" },
            h("a", { href: urls.version(v.version, "index.html") }, "Page"),
            h("a", { href: urls.version(v.version, "trust.json") }, "trust.json"),
            h("a", { href: urls.version(v.version, "trust.json.jws") }, "Signature"),
          )
          : h("span", { class: "muted" }, "Readable once the project is public"),
    },
  ], versions);
}

/** Shows what the next version would change, with the button that publishes it. */
async function review(view) {
  const { app, project, messages, previewSlot } = view;
  const { preview } = await app.api.get(projectPath(project.id, "/publish/preview"));
  const confirm = h("button", {
    type: "button",
    class: "btn btn-primary",
    on: { click: () => runButton(confirm, messages, () => publish(view)) },
  }, `Publish version ${preview.version}`);
  const cancel = h("button", {
    type: "button",
    class: "btn btn-secondary",
    on: {
      click: () => {
        replace(previewSlot);
        view.button.focus();
      },
    },
  }, "Cancel");
  // Before the first version, the controls that never reported are suggested for switching
  // off: once published, a buyer sees each of them as "not reported".
  const unreported = preview.previousVersion === null
    ? await firstPublishNotice(app, project)
    : null;
  replace(previewSlot, unreported, previewPanel(preview, { confirm, cancel }));
  replace(messages);
  previewSlot.querySelector("h3").focus();
}

async function firstPublishNotice(app, project) {
  const [{ controls }, { evaluations }] = await Promise.all([
    app.api.get(projectPath(project.id, "/controls")),
    app.api.get(projectPath(project.id, "/evaluations")),
  ]);
  return unreportedNotice(app, project, evaluations, controls);
}

async function publish(view) {
  const { app, project, messages } = view;
  const { publishedProfile } = await app.api.post(projectPath(project.id, "/publish"));
  replace(view.previewSlot);
  await view.load();
  replace(messages, successAlert(`Published version ${publishedProfile.version}`));
  view.button.focus();
}

/**
 * "Review and publish": shows what the next version changes, and only there the button that
 * publishes it ("Publish version N"); Cancel closes the review without publishing.
 */
function publishButton(view) {
  const button = h("button", {
    type: "button",
    class: "btn btn-primary",
    "aria-describedby": view.project.visibility !== "public" ? "publish-private-notice" : null,
    "aria-controls": "publish-review",
    on: { click: () => runButton(button, view.messages, () => review(view)) },
  }, "Review and publish");
  return button;
}

/**
 * The automatic-publishing switch: saved as soon as it changes, the outcome announced, and
 * put back when the change could not be saved.
 */
function autoPublishSwitch(view) {
  const { app, project } = view;
  const status = h("p", { class: "hint", role: "status" });
  const input = h("input", {
    type: "checkbox",
    id: "autoPublish",
    name: "autoPublish",
    checked: project.autoPublish,
    "aria-describedby": "autoPublish-description",
    on: {
      change: async () => {
        const wanted = input.checked;
        input.disabled = true;
        try {
          await app.api.patch(projectPath(project.id), { autoPublish: wanted });
          project.autoPublish = wanted;
          replace(status, wanted ? "Automatic publishing is on" : "Automatic publishing is off");
        } catch (error) {
          input.checked = !wanted;
          replace(status, errorAlert(describeError(error)));
        } finally {
          input.disabled = false;
        }
      },
    },
  });
  return h(
    "div",
    { class: "field auto-publish" },
    h(
      "div",
      { class: "choice" },
      input,
      h(
        "label",
        { for: "autoPublish" },
        h("span", { class: "choice-label" }, "Publish automatically"),
        h(
          "span",
          { class: "choice-description", id: "autoPublish-description" },
          "After the first version, every recompute that changes a control state publishes the next version by itself.",
        ),
      ),
    ),
    status,
  );
}

function publishCard(view) {
  const { project } = view;
  const isPrivate = project.visibility !== "public";
  return card(
    "Publish",
    [
      h("div", { class: "publish-bar" }, view.button, isPrivate && privateBeside(project)),
      view.previewSlot,
      view.messages,
      autoPublishSwitch(view),
    ],
    {
      description:
        "Publishing evaluates every enabled control now, signs trust.json and adds an immutable version. You review what changes before it goes out; earlier versions stay readable.",
    },
  );
}

export async function publishSection(app, project) {
  const latestSlot = h("div", {});
  const versionsSlot = h("div", {});
  const view = {
    app,
    project,
    previewSlot: h("div", { class: "preview-slot" }),
    messages: h("div", { class: "form-errors" }),
    load: async () => {
      const { publishedProfiles } = await app.api.get(
        projectPath(project.id, "/published-profiles"),
      );
      replace(latestSlot, latestVersion(project, publishedProfiles[0]));
      replace(versionsSlot, versionsTable(project, publishedProfiles));
    },
  };
  view.button = publishButton(view);
  view.previewSlot.id = "publish-review";
  await view.load();
  return [
    publishCard(view),
    card("Latest version", latestSlot),
    card("All versions", versionsSlot, {
      description: "Each version is signed and chained to the one before it.",
    }),
  ];
}
