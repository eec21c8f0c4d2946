/** What every export is rendered from, and the small encoders they share. */
import { createHash } from "node:crypto";
import type { TrustSignalDetection } from "../../domain/collector.ts";
import type { CriterionRef } from "../../domain/frameworks.ts";
import type { PublishedTrustProfile } from "../../domain/publish.ts";
import type { Config } from "../../config.ts";
import { publicUrls } from "../urls.ts";

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
  /**
   * The framework criteria members mapped custom controls to at publication, by control key
   * (default catalog controls carry the built-in mapping). Absent: custom controls map to none.
   */
  customCriteria?: ReadonlyMap<string, readonly CriterionRef[]>;
}

export interface Resolved extends ExportInput {
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

export function resolve(input: ExportInput): Resolved {
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

export const encoder = new TextEncoder();

export function serialize(value: unknown): Uint8Array {
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
export function token(key: string): string {
  const cleaned = key.replace(/[^\p{L}\p{N}._-]/gu, "_");
  return /^[\p{L}_]/u.test(cleaned) ? cleaned : `_${cleaned}`;
}

/** A non-empty OSCAL string (no leading or trailing whitespace). */
export function text(value: string, fallback: string): string {
  const trimmed = value.trim();
  return trimmed === "" ? fallback : trimmed;
}

export function hexOf(digest: string | null | undefined): string | null {
  const match = digest?.match(/^sha256:([0-9a-f]{64})$/);
  return match ? match[1] : null;
}
