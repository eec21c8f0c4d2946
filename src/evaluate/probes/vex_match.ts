/**
 * Applies VEX statements to a scan's findings. A statement suppresses a finding only when
 * it names one of the finding's vulnerability ids or aliases and one of its products
 * matches the finding's package (or, with subcomponents, the scanned artifact as the
 * product and the package as a subcomponent); of all statements matching a finding, the
 * latest decides, and only `not_affected` and `fixed` suppress.
 */
import { readVex, type VexComponent, type VexProduct, type VexStatement } from "./vex.ts";

/** The newest VEX documents a project's vulnerability scans are judged with. */
export const MAX_VEX_DOCUMENTS = 10;

/** A VEX document stored as evidence: its payload and when it was observed. */
export interface VexEvidence {
  payload: unknown;
  observedAt: string;
  evidenceRecordId: string;
}

/** One finding of a scan: its vulnerability ids (with aliases) and package identifiers. */
export interface ScanFinding<S> {
  severity: S;
  ids: string[];
  /** Package purls and `name@version`. */
  packages: string[];
}

/** Findings the statements suppressed, grouped by the statement that did. */
export interface VexOutcome<S> {
  kept: ScanFinding<S>[];
  suppressed: Array<{ statement: VexStatement; findings: number }>;
  /** Documents read and statements found in them; unreadable documents are skipped. */
  documents: number;
  statements: number;
}

interface Ranked {
  statement: VexStatement;
  /** Statement time in ms, then document and statement order, for "latest wins". */
  rank: [number, number, number];
}

/**
 * Splits `findings` into kept and suppressed by the statements of `vex` (oldest
 * observation first). `artifacts` are the identifiers of what was scanned (image name,
 * digests and their `pkg:oci` purls), the products a statement with subcomponents names.
 */
export function applyVex<S>(
  findings: ScanFinding<S>[],
  artifacts: string[],
  vex: readonly VexEvidence[],
): VexOutcome<S> {
  const byVulnerability = new Map<string, Ranked[]>();
  let documents = 0;
  let statements = 0;
  for (const [docIndex, evidence] of vex.entries()) {
    const reading = readVex(evidence.payload);
    if (reading === null || "error" in reading) continue;
    documents++;
    const observed = Date.parse(evidence.observedAt);
    for (const [i, statement] of reading.statements.entries()) {
      statements++;
      const at = statement.timestamp === null ? observed : Date.parse(statement.timestamp);
      const ranked: Ranked = { statement, rank: [at, docIndex, i] };
      for (const id of new Set(statement.vulnerability.map((v) => v.toLowerCase()))) {
        const list = byVulnerability.get(id) ?? [];
        list.push(ranked);
        byVulnerability.set(id, list);
      }
    }
  }
  const matcher = new Matcher();
  const kept: ScanFinding<S>[] = [];
  const counts = new Map<VexStatement, number>();
  for (const finding of findings) {
    let latest: Ranked | null = null;
    for (const id of new Set(finding.ids.map((v) => v.toLowerCase()))) {
      for (const candidate of byVulnerability.get(id) ?? []) {
        if (latest !== null && !later(candidate.rank, latest.rank)) continue;
        if (candidate.statement.products.some((p) => matcher.applies(p, finding, artifacts))) {
          latest = candidate;
        }
      }
    }
    const status = latest?.statement.status;
    if (latest !== null && (status === "not_affected" || status === "fixed")) {
      counts.set(latest.statement, (counts.get(latest.statement) ?? 0) + 1);
    } else {
      kept.push(finding);
    }
  }
  const suppressed = [...counts].map(([statement, n]) => ({ statement, findings: n }));
  return { kept, suppressed, documents, statements };
}

function later(a: [number, number, number], b: [number, number, number]): boolean {
  for (let i = 0; i < 3; i++) {
    const [x, y] = [
      Number.isFinite(a[i]) ? a[i] : -Infinity,
      Number.isFinite(b[i]) ? b[i] : -Infinity,
    ];
    if (x !== y) return x > y;
  }
  return false;
}

/** Component matching with each identifier's purl parsed once. */
class Matcher {
  #purls = new Map<string, Purl | null>();

  /**
   * Whether `product` covers the finding: without subcomponents when it names the package
   * or the scanned artifact; with subcomponents when it names the artifact and one of
   * them names the package.
   */
  applies<S>(product: VexProduct, finding: ScanFinding<S>, artifacts: string[]): boolean {
    if (product.subcomponents.length === 0) {
      return this.#matches(product, finding.packages) || this.#matches(product, artifacts);
    }
    return this.#matches(product, artifacts) &&
      product.subcomponents.some((sub) => this.#matches(sub, finding.packages));
  }

  #matches(component: VexComponent, identifiers: string[]): boolean {
    for (const id of component.ids) {
      for (const identifier of identifiers) {
        if (id === identifier) return true;
        const general = this.#purl(id);
        const specific = general && this.#purl(identifier);
        if (general && specific && purlMatches(general, specific)) return true;
      }
    }
    return false;
  }

  #purl(value: string): Purl | null {
    if (!this.#purls.has(value)) this.#purls.set(value, parsePurl(value));
    return this.#purls.get(value)!;
  }
}

/** The parts of a package URL that matching compares. */
export interface Purl {
  type: string;
  namespace: string;
  name: string;
  version: string;
  qualifiers: Map<string, string>;
}

/** Qualifier defaults of purl-spec's types, for specific purls that leave them out. */
const DEFAULT_QUALIFIERS: Record<string, Record<string, string>> = { maven: { type: "jar" } };

/** Types whose namespace and name are case-insensitive (purl-spec's types list). */
const CASE_INSENSITIVE = new Set(["npm", "pypi", "github", "bitbucket", "deb", "apk", "oci"]);

/** Parses a package URL (`pkg:type/namespace/name@version?qualifiers#subpath`), or null. */
export function parsePurl(value: string): Purl | null {
  if (!value.toLowerCase().startsWith("pkg:")) return null;
  let rest = value.slice(4).replace(/^\/+/, "");
  const hash = rest.indexOf("#");
  if (hash >= 0) rest = rest.slice(0, hash);
  const qualifiers = new Map<string, string>();
  const question = rest.indexOf("?");
  try {
    if (question >= 0) {
      for (const pair of rest.slice(question + 1).split("&")) {
        const eq = pair.indexOf("=");
        if (eq <= 0) continue;
        const v = decodeURIComponent(pair.slice(eq + 1));
        if (v !== "") qualifiers.set(pair.slice(0, eq).toLowerCase(), v);
      }
      rest = rest.slice(0, question);
    }
    const at = rest.lastIndexOf("@");
    const version = at > rest.lastIndexOf("/") ? decodeURIComponent(rest.slice(at + 1)) : "";
    if (at > rest.lastIndexOf("/")) rest = rest.slice(0, at);
    const segments = rest.split("/").filter((s) => s !== "").map(decodeURIComponent);
    if (segments.length < 2) return null;
    const type = segments[0].toLowerCase();
    const fold = (s: string) => CASE_INSENSITIVE.has(type) ? s.toLowerCase() : s;
    let name = fold(segments[segments.length - 1]);
    if (type === "pypi") name = name.replaceAll("_", "-");
    return {
      type,
      namespace: fold(segments.slice(1, -1).join("/")),
      name,
      version,
      qualifiers,
    };
  } catch {
    return null;
  }
}

/**
 * OpenVEX purl matching: `general` matches `specific` when type, namespace and name are
 * equal, `general` has no version or the same version, and every qualifier of `general`
 * is in `specific` with the same value (`specific` may have more). A qualifier the purl
 * specification gives a default (Maven's `type=jar`) has that value when absent.
 */
export function purlMatches(general: Purl, specific: Purl): boolean {
  if (general.type !== specific.type || general.namespace !== specific.namespace) return false;
  if (general.name !== specific.name) return false;
  if (general.version !== "" && general.version !== specific.version) return false;
  for (const [key, value] of general.qualifiers) {
    const given = specific.qualifiers.get(key) ?? DEFAULT_QUALIFIERS[specific.type]?.[key];
    if (given !== value) return false;
  }
  return true;
}

/** `pkg:oci` purl for a `repository@sha256:…` reference, with its repository_url. */
export function ociPurl(reference: string): string | null {
  const at = reference.lastIndexOf("@");
  if (at <= 0) return null;
  const repository = reference.slice(0, at);
  const digest = reference.slice(at + 1);
  const name = repository.slice(repository.lastIndexOf("/") + 1).toLowerCase();
  if (!/^[a-z0-9]+:[0-9a-f]+$/i.test(digest) || name === "") return null;
  return `pkg:oci/${encodeURIComponent(name)}@${encodeURIComponent(digest)}` +
    `?repository_url=${encodeURIComponent(repository)}`;
}
