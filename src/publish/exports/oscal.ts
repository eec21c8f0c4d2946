/** OSCAL Assessment Results (NIST OSCAL 1.0.6 JSON) of one version. */
import type { PublishedTrustControl } from "../../domain/publish.ts";
import { criteriaOfControl, criterionOf } from "../../evaluate/frameworks.ts";
import { type ExportInput, resolve, type Resolved, text, token, uuidV5 } from "./_input.ts";

/** The OSCAL version whose schema the assessment results follow (validated in tests). */
export const OSCAL_VERSION = "1.0.6";

/** OSCAL Assessment Results for one version. */
export function renderOscalAssessmentResults(given: ExportInput): Record<string, unknown> {
  const input = resolve(given);
  const { profile, urls } = input;
  const ns = urls.evaluationRules;
  const name = (suffix: string) => uuidV5(`${urls.versionTrustJson}#oscal/${suffix}`);
  const prop = (propName: string, value: string) => ({ name: propName, ns, value });
  const observations = profile.controls.map((control) => observation(control, name, prop, input));
  const custom = input.customCriteria ?? new Map();
  // Each framework criterion the control supports: class names the framework, value its id.
  const criteria = (key: string) =>
    criteriaOfControl(key, custom).map((ref) => ({
      name: "framework-criterion",
      ns: `${input.baseUrl}/public/frameworks`,
      value: ref.id,
      class: ref.framework,
      remarks: criterionOf(ref)?.title ?? ref.id,
    }));
  const findings = profile.controls.map((control) => ({
    uuid: name(`finding/${control.key}`),
    title: text(control.name, control.key),
    description: text(
      control.description ?? `${control.name}: ${control.state}`,
      control.key,
    ),
    props: [
      prop("state", control.state),
      prop("confidence", String(control.confidence)),
      ...criteria(control.key),
    ],
    target: {
      type: "objective-id",
      "target-id": token(control.key),
      title: text(control.name, control.key),
      status: {
        state: control.state === "pass" ? "satisfied" : "not-satisfied",
        reason: control.state === "pass" ? "pass" : control.state === "fail" ? "fail" : "other",
      },
    },
    "related-observations": [{ "observation-uuid": name(`observation/${control.key}`) }],
  }));
  const result: Record<string, unknown> = {
    uuid: name("result"),
    title: `Trust profile version ${profile.version}`,
    description: `The controls of ${
      text(profile.project.name, profile.project.slug)
    } as published in version ${profile.version}; overall state ${profile.summary.overallState}.`,
    start: profile.publishedAt,
    end: profile.publishedAt,
    props: [
      prop("overall-state", profile.summary.overallState),
      prop("trust-json-digest", input.trustJsonDigest),
    ],
    links: [{ href: urls.versionTrustJson, rel: "source", "media-type": "application/json" }],
    "reviewed-controls": { "control-selections": [{ "include-all": {} }] },
  };
  if (observations.length) result.observations = observations;
  if (findings.length) result.findings = findings;
  return {
    "assessment-results": {
      uuid: name("document"),
      metadata: {
        title: `${
          text(profile.project.name, profile.project.slug)
        } trust profile, version ${profile.version}`,
        published: profile.publishedAt,
        "last-modified": profile.publishedAt,
        version: String(profile.version),
        "oscal-version": OSCAL_VERSION,
        links: [{ href: urls.page, rel: "alternate", "media-type": "text/html" }],
      },
      "import-ap": {
        href: urls.evaluationRules,
        remarks: "The service's evaluation rules stand in for an assessment plan.",
      },
      results: [result],
    },
  };
}

function observation(
  control: PublishedTrustControl,
  name: (suffix: string) => string,
  prop: (name: string, value: string) => { name: string; ns: string; value: string },
  input: Resolved,
): Record<string, unknown> {
  const digest = control.evidence?.digest ?? null;
  const observedAt = control.evidence?.observedAt ?? control.latestEvidenceAt;
  const props = [
    prop("control-key", text(control.key, "control")),
    prop("category", control.category),
    prop("state", control.state),
  ];
  if (control.group !== undefined) props.push(prop("group", control.group));
  if (digest) props.push(prop("evidence-digest", digest));
  const observed: Record<string, unknown> = {
    uuid: name(`observation/${control.key}`),
    title: text(control.name, control.key),
    description: text(control.reason ?? `State ${control.state}`, `State ${control.state}`),
    props,
    methods: ["TEST"],
    types: ["control-objective"],
    collected: observedAt ?? input.profile.publishedAt,
  };
  if (digest) {
    observed["relevant-evidence"] = [{
      description: `Evidence ${digest}${observedAt ? `, observed ${observedAt}` : ""}`,
    }];
  }
  if (control.freshUntil) observed.expires = control.freshUntil;
  return observed;
}
