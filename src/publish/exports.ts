/**
 * Standard exports of a published version, rendered at publish time beside trust.json and
 * stored the same way (immutable blobs served as stored bytes):
 *
 * - OSCAL Assessment Results (NIST OSCAL 1.0.6 JSON): one result per version, each control
 *   an observation (its reason and evidence digest) and a finding (its state);
 * - an in-toto Statement with a SLSA Verification Summary (v1) predicate whose subject is
 *   this version's trust.json, in a DSSE envelope signed with the publication key;
 * - an OpenSSF Security Insights (v2) document in its JSON form, with only the fields the
 *   service can vouch for.
 *
 * The OSCAL and Security Insights documents are signed like trust.json (a compact JWS over
 * their exact bytes). Everything here is a pure function of its input and the key, so a
 * version renders the same bytes forever (UUIDs are name-based, v5).
 */
import { createHash } from "node:crypto";
import type { SigningKey } from "../auth/keys.ts";
import type { TrustSignalDetection } from "../domain/collector.ts";
import type { PublishedTrustControl, PublishedTrustProfile } from "../domain/publish.ts";
import type { Config } from "../config.ts";
import type { VerifyLinks } from "./render/_links.ts";
import { signDocument } from "./sign.ts";
import { publicUrls } from "./urls.ts";

/** The OSCAL version whose schema the assessment results follow (validated in tests). */
export const OSCAL_VERSION = "1.0.6";
export const SECURITY_INSIGHTS_VERSION = "2.0.0";
export const DSSE_PAYLOAD_TYPE = "application/vnd.in-toto+json";
export const IN_TOTO_STATEMENT = "https://in-toto.io/Statement/v1";
export const VSA_PREDICATE = "https://slsa.dev/verification_summary/v1";
/**
 * `verifiedLevels` of a passing version. The service checks a trust profile, not a SLSA
 * build track, so it claims no SLSA level; the VSA spec allows custom values that do not
 * start with `SLSA_`.
 */
export const VSA_PASS_LEVEL = "TRUST_PROFILE_PASS";

/** File names of the exports, the same under /trust/{slug}/ and /versions/{n}/. */
export const EXPORT_FILES = {
  oscal: "oscal-assessment-results.json",
  oscalJws: "oscal-assessment-results.json.jws",
  attestation: "vsa.intoto.json",
  securityInsights: "security-insights.json",
  securityInsightsJws: "security-insights.json.jws",
} as const;
export type ExportName = keyof typeof EXPORT_FILES;

export interface ExportInput {
  profile: PublishedTrustProfile;
  /** `sha256:<hex>` of this version's trust.json bytes. */
  trustJsonDigest: string;
  /** The repository signals published with this version, when any. */
  signals: TrustSignalDetection | null;
  config: Pick<Config, "baseUrl">;
}

interface Resolved extends ExportInput {
  baseUrl: string;
  urls: {
    page: string;
    evaluationRules: string;
    /** This version's immutable trust.json address. */
    versionTrustJson: string;
    /** This version's immutable address of an export file. */
    versionDocument: (file: string) => string;
  };
}

function resolve(input: ExportInput): Resolved {
  const urls = publicUrls(input.config, input.profile.project.slug);
  const version = input.profile.version;
  return {
    ...input,
    baseUrl: input.config.baseUrl,
    urls: {
      page: urls.page,
      evaluationRules: urls.evaluationRules,
      versionTrustJson: urls.versionTrustJson(version),
      versionDocument: (file) => urls.versionDocument(version, file),
    },
  };
}

const encoder = new TextEncoder();

function serialize(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value, null, 2) + "\n");
}

/** RFC 9562 name-based UUID (version 5, SHA-1) in the URL namespace. */
export function uuidV5(name: string): string {
  const namespace = Uint8Array.from(
    "6ba7b8119dad11d180b400c04fd430c8".match(/../g)!.map((h) => parseInt(h, 16)),
  );
  const hash = createHash("sha1").update(namespace).update(encoder.encode(name)).digest();
  const bytes = Uint8Array.from(hash.subarray(0, 16));
  bytes[6] = (bytes[6] & 0x0f) | 0x50;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${
    hex.slice(20)
  }`;
}

/** An OSCAL token (`^(\p{L}|_)(\p{L}|\p{N}|[.\-_])*$`) naming a control key. */
function token(key: string): string {
  const cleaned = key.replace(/[^\p{L}\p{N}._-]/gu, "_");
  return /^[\p{L}_]/u.test(cleaned) ? cleaned : `_${cleaned}`;
}

/** A non-empty OSCAL string (no leading or trailing whitespace). */
function text(value: string, fallback: string): string {
  const trimmed = value.trim();
  return trimmed === "" ? fallback : trimmed;
}

function hexOf(digest: string | null | undefined): string | null {
  const match = digest?.match(/^sha256:([0-9a-f]{64})$/);
  return match ? match[1] : null;
}

/** OSCAL Assessment Results for one version. */
export function renderOscalAssessmentResults(given: ExportInput): Record<string, unknown> {
  const input = resolve(given);
  const { profile, urls } = input;
  const ns = urls.evaluationRules;
  const name = (suffix: string) => uuidV5(`${urls.versionTrustJson}#oscal/${suffix}`);
  const prop = (propName: string, value: string) => ({ name: propName, ns, value });
  const observations = profile.controls.map((control) => observation(control, name, prop, input));
  const findings = profile.controls.map((control) => ({
    uuid: name(`finding/${control.key}`),
    title: text(control.name, control.key),
    description: text(
      control.description ?? `${control.name}: ${control.state}`,
      control.key,
    ),
    props: [prop("state", control.state), prop("confidence", String(control.confidence))],
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

/** The in-toto Statement (SLSA Verification Summary v1) of one version. */
export function vsaStatement(given: ExportInput): Record<string, unknown> {
  const input = resolve(given);
  const { profile, urls } = input;
  const passed = profile.summary.overallState === "pass";
  const inputAttestations = profile.controls.flatMap((control) => {
    const hex = hexOf(control.evidence?.digest);
    return hex ? [{ name: control.key, digest: { sha256: hex } }] : [];
  });
  const predicate: Record<string, unknown> = {
    verifier: { id: input.baseUrl },
    timeVerified: profile.publishedAt,
    resourceUri: urls.page,
    policy: { uri: urls.evaluationRules },
  };
  if (inputAttestations.length) predicate.inputAttestations = inputAttestations;
  predicate.verificationResult = passed ? "PASSED" : "FAILED";
  predicate.verifiedLevels = [passed ? VSA_PASS_LEVEL : "FAILED"];
  return {
    _type: IN_TOTO_STATEMENT,
    subject: [{ name: urls.versionTrustJson, digest: { sha256: hexOf(input.trustJsonDigest)! } }],
    predicateType: VSA_PREDICATE,
    predicate,
  };
}

/** DSSE pre-authentication encoding: "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body. */
export function pae(payloadType: string, payload: Uint8Array): Uint8Array<ArrayBuffer> {
  const type = encoder.encode(payloadType);
  const head = encoder.encode(`DSSEv1 ${type.length} ${payloadType} ${payload.length} `);
  const out = new Uint8Array(head.length + payload.length);
  out.set(head);
  out.set(payload, head.length);
  return out;
}

function base64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** A DSSE envelope of `statement`, signed (Ed25519) with the publication key. */
export async function signDsse(key: SigningKey, statement: unknown): Promise<Uint8Array> {
  const payload = encoder.encode(JSON.stringify(statement));
  const signature = new Uint8Array(
    await crypto.subtle.sign("Ed25519", key.privateKey, pae(DSSE_PAYLOAD_TYPE, payload)),
  );
  return serialize({
    payloadType: DSSE_PAYLOAD_TYPE,
    payload: base64(payload),
    signatures: [{ keyid: key.kid, sig: base64(signature) }],
  });
}

/**
 * OpenSSF Security Insights v2 (JSON form) with what the service knows: the header, and a
 * project section naming the project, its trust page, how to verify signatures and, when
 * the collector found one, the security contact. Fields the schema requires but the service
 * cannot know (administrators, repositories, bug bounty) are left out, never guessed.
 */
export function renderSecurityInsights(given: ExportInput): Record<string, unknown> {
  const input = resolve(given);
  const { profile, signals, urls } = input;
  const date = profile.publishedAt.slice(0, 10);
  const notes = [
    `Published by ${input.baseUrl} with trust profile version ${profile.version} ` +
    `(overall state ${profile.summary.overallState}).`,
    "Only fields the service can vouch for are present; a project's own security-insights.yml completes it.",
  ];
  if (signals) {
    const ci = signals.ciCd.detected
      ? [...(signals.ciCd.tools ?? []), ...(signals.ciCd.providers ?? [])].join(", ") ||
        "detected"
      : "not detected";
    notes.push(
      `Repository signals detected ${signals.detectedAt} at commit ${signals.commitSha}: CI/CD ${ci}.`,
    );
  }
  const project: Record<string, unknown> = {
    name: text(profile.project.name, profile.project.slug),
    homepage: urls.page,
    documentation: { "signature-verification": `${input.baseUrl}/verify.ts` },
  };
  const contact = signals?.securityContact;
  if (contact?.detected && contact.email) {
    project["vulnerability-reporting"] = {
      "reports-accepted": true,
      contact: { name: contact.email, primary: true, email: contact.email },
    };
  }
  return {
    header: {
      "schema-version": SECURITY_INSIGHTS_VERSION,
      "last-updated": date,
      "last-reviewed": date,
      url: urls.versionDocument(EXPORT_FILES.securityInsights),
      comment: notes.join(" "),
    },
    project,
  };
}

/** The trust page's links to the exports (latest), the verifier kit and the log. */
export function verifyLinksOf(urls: ReturnType<typeof publicUrls>): VerifyLinks {
  return {
    verifyKit: urls.verifyKit,
    log: urls.log,
    logCheckpoint: urls.logCheckpoint,
    oscal: urls.document(EXPORT_FILES.oscal),
    oscalSignature: urls.document(EXPORT_FILES.oscalJws),
    attestation: urls.document(EXPORT_FILES.attestation),
    securityInsights: urls.document(EXPORT_FILES.securityInsights),
    securityInsightsSignature: urls.document(EXPORT_FILES.securityInsightsJws),
  };
}

/** Every export of one version, as the bytes to store. */
export async function renderExports(
  key: SigningKey,
  input: ExportInput,
): Promise<Record<ExportName, Uint8Array>> {
  const version = input.profile.version;
  const oscal = serialize(renderOscalAssessmentResults(input));
  const securityInsights = serialize(renderSecurityInsights(input));
  return {
    oscal,
    oscalJws: encoder.encode(await signDocument(key, oscal, { version, cty: "application/json" })),
    attestation: await signDsse(key, vsaStatement(input)),
    securityInsights,
    securityInsightsJws: encoder.encode(
      await signDocument(key, securityInsights, { version, cty: "application/json" }),
    ),
  };
}
