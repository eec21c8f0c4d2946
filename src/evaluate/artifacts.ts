/**
 * The artifacts a project reports, as digests, for matching build provenance subjects:
 * the images its latest deployment snapshot runs and the component its latest SBOM
 * describes. Pure and bounded: a payload is walked once, at most `MAX_NODES` values.
 */
import type { ArtifactSource } from "../domain/sigstore.ts";
import { isObject, type JsonObject, own } from "./probes/_read.ts";

/** Values visited per payload; the rest of a larger document is not read. */
const MAX_NODES = 200_000;
/** `sha256:<64 hex>` and the longer SHA-2 digests, also URL-encoded (`sha256%3A…` in purls). */
const DIGEST = /\b(sha256|sha384|sha512)(?::|%3A)([0-9a-f]{64,128})\b/gi;
const LENGTHS: Record<string, number> = { sha256: 64, sha384: 96, sha512: 128 };
/** CycloneDX `hashes[].alg` and SPDX `checksums[].algorithm` names. */
const HASH_NAMES: Record<string, string> = {
  "sha-256": "sha256",
  "sha256": "sha256",
  "sha-384": "sha384",
  "sha384": "sha384",
  "sha-512": "sha512",
  "sha512": "sha512",
};

/**
 * The digests (`alg:hex`, lowercase, sorted) `payload` reports as `source` evidence:
 * for a deployment snapshot, every digest in an `image` or `imageID` string of any
 * workload, container or status in it (`ghcr.io/acme/app@sha256:…`); for an SBOM, the
 * hashes and digest-bearing strings (version, purl, properties) of the component a
 * CycloneDX document's `metadata.component` describes, or of the packages an SPDX
 * document describes (`documentDescribes`, or `DESCRIBES` relationships of the document).
 * Dependencies listed in an SBOM are not its artifact and do not count.
 */
export function reportedDigests(source: ArtifactSource, payload: unknown): string[] {
  const found = new Set<string>();
  if (source === "deployment_snapshot") {
    walk(payload, { budget: MAX_NODES }, (key, value) => {
      if ((key === "image" || key === "imageID") && typeof value === "string") {
        digestsIn(value, found);
      }
    });
  } else if (isObject(payload)) {
    for (const subject of sbomSubjects(payload)) {
      walk(subject, { budget: MAX_NODES }, (key, value, holder) => {
        if (typeof value === "string") digestsIn(value, found);
        if ((key === "content" || key === "checksumValue") && typeof value === "string") {
          const alg = own(holder, key === "content" ? "alg" : "algorithm");
          const name = typeof alg === "string" ? HASH_NAMES[alg.toLowerCase()] : undefined;
          if (name && value.length === LENGTHS[name] && /^[0-9a-f]+$/i.test(value)) {
            found.add(`${name}:${value.toLowerCase()}`);
          }
        }
      });
    }
  }
  return [...found].sort();
}

/** What an SBOM is about: CycloneDX `metadata.component`, or SPDX's described packages. */
function sbomSubjects(doc: JsonObject): unknown[] {
  const metadata = own(doc, "metadata");
  const component = isObject(metadata) ? own(metadata, "component") : undefined;
  if (isObject(component)) return [component];
  const packages = own(doc, "packages");
  if (!Array.isArray(packages)) return [];
  const described = new Set<string>();
  const listed = own(doc, "documentDescribes");
  if (Array.isArray(listed)) {
    for (const id of listed) if (typeof id === "string") described.add(id);
  }
  const relationships = own(doc, "relationships");
  const documentId = own(doc, "SPDXID");
  if (Array.isArray(relationships)) {
    for (const r of relationships) {
      if (
        isObject(r) && own(r, "relationshipType") === "DESCRIBES" &&
        own(r, "spdxElementId") === documentId && typeof own(r, "relatedSpdxElement") === "string"
      ) {
        described.add(own(r, "relatedSpdxElement") as string);
      }
    }
  }
  return packages.filter((p) => isObject(p) && described.has(own(p, "SPDXID") as string));
}

function digestsIn(text: string, found: Set<string>): void {
  for (const match of text.matchAll(DIGEST)) {
    const alg = match[1].toLowerCase();
    const hex = match[2].toLowerCase();
    if (hex.length === LENGTHS[alg]) found.add(`${alg}:${hex}`);
  }
}

/** Visits every (key, value, holder) below `value`, depth first, within `state.budget`. */
function walk(
  value: unknown,
  state: { budget: number },
  visit: (key: string, value: unknown, holder: JsonObject) => void,
): void {
  if (state.budget-- <= 0) return;
  if (Array.isArray(value)) {
    for (const item of value) {
      if (state.budget <= 0) return;
      walk(item, state, visit);
    }
  } else if (isObject(value)) {
    for (const key of Object.keys(value)) {
      if (state.budget <= 0) return;
      const child = value[key];
      visit(key, child, value);
      if (typeof child === "object" && child !== null) walk(child, state, visit);
      else state.budget--;
    }
  }
}
