/**
 * What leaves a questionnaire: the gap list (questions the knowledge base cannot answer yet,
 * also as CSV), the buyer's own file with the answer and evidence columns filled, the signed
 * manifest beside it, and sharing the answered file with the buyer: one flow from "Share" to
 * the link the buyer uses (the NDA written on the way when there is none), saying in plain
 * words what happens next and whether email carries it.
 */
import { field, h, handleSubmit, replace } from "../../dom.js";
import { href } from "../../routes.js";
import { copyField, runButton, saveFile } from "../../widgets.js";
import { dataTable, emptyState } from "../layout.js";
import { questionnairePath } from "./common.js";

/** How many gaps the card lists before pointing at the CSV. */
const SHOWN_GAPS = 10;

/** A file name from the questionnaire's name: letters, digits, spaces, dots and dashes. */
const safeName = (name) => name.replace(/[^\p{L}\p{N} ._-]+/gu, "").trim() || "questionnaire";

/** A button that downloads `path` (`type` in Accept) as `fallbackName` unless the API names it. */
function downloadButton(app, errorSlot, { label, path, type, fallbackName, primary = false }) {
  const button = h("button", {
    type: "button",
    class: `btn ${primary ? "btn-primary" : "btn-secondary"}`,
  }, label);
  button.addEventListener("click", () =>
    runButton(button, errorSlot, async () => {
      const { blob, filename } = await app.api.download(path, type);
      saveFile(blob, filename ?? fallbackName);
    }));
  return button;
}

/** The gap list's body: the first questions, and the CSV of all of them. */
export async function gapsContent(app, organization, questionnaire) {
  const path = questionnairePath(organization.id, questionnaire.id, "/gaps");
  const csvPath = `${path}?format=csv`;
  const { gaps } = await app.api.get(path);
  const errorSlot = h("div", { class: "form-errors" });
  if (gaps.length === 0) {
    return emptyState("No gaps", "The knowledge base has a suggestion for every question.");
  }
  return h(
    "div",
    {},
    h(
      "p",
      {},
      gaps.length === 1
        ? "1 question has no answer in the knowledge base. "
        : `${gaps.length} questions have no answer in the knowledge base. `,
      "Answer them in ",
      h("a", { href: href.answers(organization.id) }, "Answers"),
      " with their ids, or edit the rows here and save them to the knowledge base.",
    ),
    dataTable(
      "Questions without an answer",
      [
        {
          label: "Question",
          cell: (g) => h("span", { class: "question-text" }, g.question),
        },
        { label: "Id", cell: (g) => (g.questionId ? h("code", {}, g.questionId) : "None") },
        { label: "Where", cell: (g) => `${g.sheet}, row ${g.row}` },
      ],
      gaps.slice(0, SHOWN_GAPS),
      { className: "gaps-table" },
    ),
    gaps.length > SHOWN_GAPS
      ? h("p", { class: "hint" }, `The first ${SHOWN_GAPS} are listed; the CSV has all of them.`)
      : null,
    errorSlot,
    h(
      "div",
      { class: "form-actions" },
      downloadButton(app, errorSlot, {
        label: "Download the gap list (CSV)",
        path: csvPath,
        type: "text/csv",
        fallbackName: `${safeName(questionnaire.name)} gaps.csv`,
      }),
    ),
  );
}

/** What happens after the buyer has the link, in plain words; honest about email. */
function nextSteps(app, organization) {
  const mail = app.config?.mail === true;
  return h(
    "ol",
    { class: "share-steps" },
    h(
      "li",
      {},
      "The buyer opens the link, accepts your NDA and asks for the answered questionnaire " +
        "(and the signature file that lets them check it).",
    ),
    h(
      "li",
      {},
      mail
        ? "You get an email when they ask. "
        : "This service does not send email, so nobody is told when they ask: check ",
      mail ? "Approve their request in " : null,
      h("a", { href: href.documents(organization.id) }, "Documents"),
      mail ? ", under Access requests." : ", under Access requests, and approve it there.",
    ),
    h(
      "li",
      {},
      mail
        ? "Once you approve, they get an email with a download link, valid for 7 days. Every download is logged."
        : "Once you approve, the download link is shown to you: copy it and send it to the buyer " +
          "yourself (it is valid for 7 days, and every download is logged).",
    ),
  );
}

/** The link for the buyer, with what happens next. */
function shareResult(app, organization, result) {
  const heading = h("h3", { class: "share-title", tabindex: "-1" }, "Send this link to the buyer");
  const panel = h(
    "div",
    { class: "share-result" },
    heading,
    copyField("Link for the buyer", result.requestAccessUrl, {
      what: "The link",
      button: "Copy link",
      hint:
        "Only people with this link can ask for the file: it is not listed on your trust center.",
    }),
    result.warning
      ? h(
        "p",
        { class: "alert alert-warning" },
        "Buyers cannot ask for it yet: your NDA is missing. Write it in ",
        h("a", { href: href.documents(organization.id) }, "Documents"),
        ", then share again.",
      )
      : nextSteps(app, organization),
  );
  return { panel, heading };
}

/**
 * "Share with the buyer": one flow to a link the buyer can use. Buyers accept the
 * organization's NDA before they can ask, so when none is set it is written here first.
 */
function shareFlow(app, organization, questionnaire, slot, opener) {
  const base = questionnairePath(organization.id, questionnaire.id, "/share");
  const errorSlot = h("div", { class: "form-errors" });
  const close = () => {
    replace(slot);
    opener.setAttribute("aria-expanded", "false");
    opener.focus();
  };
  const form = h("form", { class: "form share-form", "aria-label": "Share with the buyer" });
  const done = (result) => {
    const { panel, heading } = shareResult(app, organization, result);
    replace(slot, panel);
    opener.setAttribute("aria-expanded", "false");
    heading.focus();
  };
  const draw = (nda) => {
    const intro = h(
      "p",
      {},
      "The buyer gets a link to ask for the answered questionnaire. Nothing is sent yet, and " +
        "nothing is public: you approve each request before anything can be downloaded.",
    );
    const ndaPart = nda
      ? h(
        "p",
        { class: "hint" },
        `Before asking, the buyer accepts your NDA (version ${nda.version}).`,
      )
      : [
        h(
          "p",
          {},
          "Before asking, the buyer accepts your non-disclosure agreement. You have not " +
            "written one yet: write it here. It applies to every document buyers ask you for.",
        ),
        field(
          "Your NDA",
          h("textarea", { name: "nda", rows: "6", maxlength: "20000", required: true }),
          "Plain text. You can change it later in Documents; buyers accept the version shown to them.",
        ),
      ];
    replace(
      form,
      intro,
      ndaPart,
      errorSlot,
      h(
        "div",
        { class: "form-actions" },
        h(
          "button",
          { type: "submit", class: "btn btn-primary" },
          nda ? "Create the link" : "Save the NDA and create the link",
        ),
        h("button", { type: "button", class: "btn btn-secondary", on: { click: close } }, "Cancel"),
      ),
    );
  };
  handleSubmit(form, errorSlot, async (data) => {
    const text = data.get("nda");
    if (text !== null) {
      await app.api.put(`/organizations/${encodeURIComponent(organization.id)}/nda`, {
        text: String(text),
      });
    }
    done(await app.api.post(base));
  });
  return {
    async open() {
      const { current } = await app.api.get(
        `/organizations/${encodeURIComponent(organization.id)}/nda`,
      );
      draw(current);
      replace(slot, form);
      opener.setAttribute("aria-expanded", "true");
      (form.querySelector("textarea") ?? form.querySelector("button[type=submit]"))?.focus();
    },
  };
}

/** The export card's body: the answered file, the manifest, and sharing. */
export function exportContent(app, organization, questionnaire) {
  const base = (rest) => questionnairePath(organization.id, questionnaire.id, rest);
  const errorSlot = h("div", { class: "form-errors" });
  const shared = h("div", { class: "share-slot" });
  const owner = organization.role === "owner";
  const share = owner
    ? h("button", {
      type: "button",
      class: "btn btn-secondary",
      "aria-expanded": "false",
    }, "Share with the buyer")
    : null;
  share?.addEventListener("click", () =>
    runButton(share, errorSlot, async () => {
      if (share.getAttribute("aria-expanded") === "true") return;
      await shareFlow(app, organization, questionnaire, shared, share).open();
    }));
  return h(
    "div",
    {},
    h(
      "p",
      {},
      "The buyer's own file with the answer column filled (accepted and edited rows; " +
        "“No answer” elsewhere) and an evidence column linking each answer to its public source, " +
        "pinned to the published version. The signed manifest lists every answered row's hashes " +
        "and citations, so the buyer can check them offline with the verifier kit.",
    ),
    errorSlot,
    h(
      "div",
      { class: "form-actions" },
      downloadButton(app, errorSlot, {
        label: "Download the answered file",
        path: base("/export"),
        fallbackName: `${safeName(questionnaire.name)} answered.${questionnaire.format}`,
        primary: true,
      }),
      downloadButton(app, errorSlot, {
        label: "Download the signed manifest",
        path: base("/manifest"),
        type: "application/jose",
        fallbackName: `${safeName(questionnaire.name)} manifest.jws`,
      }),
      share,
    ),
    owner ? null : h("p", { class: "hint" }, "Owners share the answered file with the buyer."),
    shared,
  );
}
