/**
 * The provenance subject rule: a verified signature proves who built an artifact, not that
 * the artifact is this project's. When the project requires it, a SLSA provenance
 * statement counts only when one of its subjects is an artifact the project reports: a
 * digest in its latest deployment snapshot or SBOM, or a name matching a configured
 * pattern. Pure; the reported digests are read before verification.
 */
import { type ArtifactSource, subjectMatches, type SubjectRule } from "../domain/sigstore.ts";

/** What the rule concluded: the clause for the reason, or why the subjects do not count. */
export type SubjectCheck = { ok: true; clause: string } | { ok: false; reason: string };

/** Digest algorithms a subject may be matched by (weaker ones identify nothing here). */
const ALGORITHMS = new Set(["sha256", "sha384", "sha512"]);
/** Subjects read from one statement; a longer list is judged by its first ones. */
const MAX_SUBJECTS = 1000;

const SOURCE_LABELS: Record<ArtifactSource, string> = {
  deployment_snapshot: "deployment snapshot",
  sbom: "SBOM",
};

interface Subject {
  name: string;
  /** `alg:hex`, lowercase, for the algorithms in ALGORITHMS. */
  digests: string[];
}

/**
 * Applies `rule` to the statement in `envelope` (its payload bytes, already decoded). A
 * statement that is not SLSA provenance is not subject to it; without a rule, or with
 * `requireMatch` off, provenance passes this step and the clause says so.
 */
export function checkSubjects(
  envelope: { payload: Uint8Array; payloadType: string },
  rule: SubjectRule | undefined,
): SubjectCheck {
  const statement = parseStatement(envelope.payload);
  const predicateType = statement?.predicateType;
  if (
    typeof predicateType !== "string" || !predicateType.startsWith("https://slsa.dev/provenance/")
  ) {
    return { ok: true, clause: "" };
  }
  if (!rule || !rule.setting.requireMatch) {
    return { ok: true, clause: "subjects not matched to the project's artifacts (not required)" };
  }
  const subjects = readSubjects(statement?.subject);
  const { setting, reported } = rule;
  for (const source of setting.digestsFrom) {
    const digests = new Set(reported[source] ?? []);
    for (const subject of subjects) {
      const digest = subject.digests.find((d) => digests.has(d));
      if (digest) {
        return {
          ok: true,
          clause: `subject ${describe(subject, digest)} is an artifact the latest ` +
            `${SOURCE_LABELS[source]} reports`,
        };
      }
    }
  }
  for (const pattern of setting.artifactNames) {
    const subject = subjects.find((s) => subjectMatches(pattern, s.name));
    if (subject) {
      return {
        ok: true,
        clause: `subject ${show(subject.name)} matches the artifact name pattern ${show(pattern)}`,
      };
    }
  }
  return { ok: false, reason: mismatch(subjects, rule) };
}

function mismatch(subjects: Subject[], { setting, reported }: SubjectRule): string {
  const listed = subjects.length === 0
    ? "it names no subject"
    : `${subjects.slice(0, 3).map((s) => describe(s, s.digests[0])).join(", ")}${
      subjects.length > 3 ? ` and ${subjects.length - 3} more` : ""
    }`;
  const rules: string[] = [];
  if (setting.digestsFrom.length > 0) {
    const sources = setting.digestsFrom.map((source) =>
      `${SOURCE_LABELS[source]}${reported[source] ? "" : " (none received)"}`
    );
    rules.push(`is not a digest the latest ${sources.join(" or ")} reports`);
  }
  if (setting.artifactNames.length > 0) {
    rules.push(
      `matches none of the ${setting.artifactNames.length} artifact name ` +
        (setting.artifactNames.length === 1 ? "pattern" : "patterns"),
    );
  }
  return "Sigstore signature verifies, but no subject of its SLSA provenance is an artifact " +
    `the project reports: ${listed}${subjects.length === 0 ? "" : ` ${rules.join(" and ")}`}`;
}

function parseStatement(payload: Uint8Array): Record<string, unknown> | null {
  try {
    const value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(payload));
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

function readSubjects(list: unknown): Subject[] {
  if (!Array.isArray(list)) return [];
  const subjects: Subject[] = [];
  for (const entry of list.slice(0, MAX_SUBJECTS)) {
    if (typeof entry !== "object" || entry === null || Array.isArray(entry)) continue;
    const name = Object.hasOwn(entry, "name") && typeof entry.name === "string" ? entry.name : "";
    const digest = Object.hasOwn(entry, "digest") ? entry.digest : undefined;
    const digests: string[] = [];
    if (typeof digest === "object" && digest !== null && !Array.isArray(digest)) {
      for (const [alg, hex] of Object.entries(digest)) {
        const algorithm = alg.toLowerCase();
        if (ALGORITHMS.has(algorithm) && typeof hex === "string" && /^[0-9a-f]+$/i.test(hex)) {
          digests.push(`${algorithm}:${hex.toLowerCase()}`);
        }
      }
    }
    subjects.push({ name, digests });
  }
  return subjects;
}

/** `"name" (sha256:0123456789ab…)`, the digest shortened. */
function describe(subject: Subject, digest: string | undefined): string {
  const short = digest ? ` (${digest.slice(0, digest.indexOf(":") + 13)}…)` : "";
  return `${show(subject.name)}${short}`;
}

function show(text: string): string {
  return JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}…` : text);
}
