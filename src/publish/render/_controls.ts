/**
 * The controls section of the HTML trust page: one table per buyer category, each row with
 * the control's plain-language name and "what this checks", its state and confidence, the
 * evaluator's reason, the evidence it was decided from (observation time and payload
 * digest, short with the full value one click away) and its freshness: one column, saying
 * until when the evidence counts as fresh and, only when it is another instant, when the
 * state changes next.
 */
import type { PublishedTrustControl, PublishedTrustProfile } from "../../domain/publish.ts";
import { type Html, html } from "../../lib/html.ts";
import { type Anchor, nowAnchor, percent, publicationAnchor } from "./_format.ts";
import { type ControlGroup, groupControls, shortDigest } from "./_groups.ts";
import { moment, pill, time } from "./_page.ts";
import { relative } from "./_format.ts";

function digestOf(control: PublishedTrustControl): Html {
  const digest = control.evidence?.digest;
  if (!digest) return html``;
  const short = html`<span class="vh">Evidence digest </span><code>${shortDigest(digest)}</code>`;
  return html`
    <details class="digest">
      <summary title="${digest}">${short}</summary>
      <code>${digest}</code>
    </details>
  `;
}

/**
 * The freshness cell: "Fresh until" (or "Fresh until … passed" once it has) with its offset
 * from the anchor, then the next change of state only when it falls at another instant (a
 * degraded control turning stale); without a window, why.
 */
function freshness(control: PublishedTrustControl, observed: boolean, schedule: Anchor): Html {
  const { freshUntil, nextCheckAt } = control;
  if (freshUntil === null) {
    const why = observed ? "No freshness window" : "Awaiting evidence";
    const next = nextCheckAt === null
      ? html``
      : html`<span class="rel">Next change ${relative(nextCheckAt, schedule)}</span>`;
    return html`<span class="none">${why}</span>${next}`;
  }
  const lapsed = Date.parse(freshUntil) < Date.parse(schedule.at);
  const then = nextCheckAt !== null && nextCheckAt !== freshUntil
    ? html`<span class="rel">Next change of state: ${time(nextCheckAt)}</span>`
    : html``;
  return html`<span class="rel">${lapsed ? "Was fresh until" : "Fresh until"}</span>${
    moment(freshUntil, schedule, "")
  }${then}`;
}

function controlRow(control: PublishedTrustControl, evidence: Anchor, schedule: Anchor): Html {
  // Long keys may wrap after a dot rather than anywhere inside a word.
  const code = control.key.split(".").map((part, i) =>
    i === 0 ? html`${part}` : html`.<wbr>${part}`
  );
  const checks = control.description === undefined
    ? html``
    : html`<span class="checks">${control.description}</span>`;
  const key = html`<span class="key"><code>${code}</code></span>`;
  const required = control.required === true
    ? html`<span class="rel">Required by the vendor</span>`
    : html``;
  const observed = control.latestEvidenceAt !== null;
  const observedAt = control.evidence?.observedAt ?? control.latestEvidenceAt;
  const latest = moment(observedAt, evidence, "No evidence yet");
  const fresh = freshness(control, observed, schedule);
  const reason = control.reason === undefined
    ? html`<span class="none">Not recorded in this version</span>`
    : html`${control.reason}`;
  return html`
    <tr id="control-${control.key}">
      <th scope="row">${control.name}${required}${checks}${key}</th>
      <td data-label="State">${pill(control.state)}<span class="rel">Confidence ${percent(
        control.confidence,
      )}</span></td>
      <td data-label="Why" class="reason">${reason}</td>
      <td data-label="Evidence">${latest}${digestOf(control)}</td>
      <td data-label="Freshness">${fresh}</td>
    </tr>
  `;
}

function groupTable(group: ControlGroup, version: number, anchors: [Anchor, Anchor]): Html {
  const id = `group-${group.id}`;
  const caption = `${group.label} controls of version ${version}, with state, reason and evidence`;
  return html`
    <section class="group" aria-labelledby="${id}">
      <h3 id="${id}">${group.label}</h3>
      <p class="note">${group.about}.</p>
      <div class="card table">
        <table>
          <caption class="vh">${caption}</caption>
          <thead>
            <tr>
              <th scope="col">Control</th>
              <th scope="col">State</th>
              <th scope="col">Why</th>
              <th scope="col">Evidence</th>
              <th scope="col">Freshness</th>
            </tr>
          </thead>
          <tbody>${group.controls.map((c) => controlRow(c, ...anchors))}</tbody>
        </table>
      </div>
    </section>
  `;
}

/**
 * Every control of `profile` under its buyer category, or a sentence saying there is
 * none. Evidence times are worded from the publication; freshness from `now` when given.
 */
export function controlGroupsHtml(profile: PublishedTrustProfile, now?: string): Html {
  if (profile.controls.length === 0) {
    const why = "No control is enabled for this project yet, so its overall state is unknown.";
    return html`<p class="card hero">${why}</p>`;
  }
  const evidence = publicationAnchor(profile.publishedAt);
  const schedule = now === undefined ? evidence : nowAnchor(now);
  return html`${
    groupControls(profile.controls).map((g) => groupTable(g, profile.version, [evidence, schedule]))
  }`;
}
