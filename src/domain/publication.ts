/**
 * A published version as stored: the public version fields plus what the
 * service needs to serve and extend it (its artifacts and control states).
 */
import type { Coding } from "../lib/content_coding.ts";
import type { ControlState } from "./control.ts";
import type { PublishedTrustSummary, PublishedVersion } from "./publish.ts";

/**
 * A stored artifact: its blob key and the strong validator of its bytes, and the blob keys of
 * its compressed encodings (stored at publish time when smaller than the bytes themselves;
 * absent on versions published before encodings were stored).
 */
export interface Artifact {
  key: string;
  digest: string;
  encodings?: Partial<Record<Coding, string>>;
  /**
   * An artifact stored in parts (the feed: its head, each entry, its tail): its bytes are
   * these blobs joined in order (`key` is the first), `digest` the digest of the whole.
   * Without it, `key` holds the whole artifact.
   */
  parts?: string[];
}

/** Everything about one published version; the artifacts are immutable blobs. */
export interface Publication extends PublishedVersion {
  id: string;
  projectId: string;
  summary: PublishedTrustSummary;
  /**
   * The Content-Security-Policy of this version's HTML: its inline stylesheet's hash as
   * rendered then, so a later stylesheet change cannot unstyle an immutable page.
   */
  htmlCsp?: string;
  /** The version's leaf index in the publication log (absent on versions published before it). */
  logIndex?: number;
  /** State of every published control, by key, to describe the next version's changes. */
  states: Record<string, ControlState>;
  /**
   * Digest of the certifications the version declares (src/publish/certifications.ts);
   * absent when it declares none, and on versions published before declarations existed.
   */
  declaredDigest?: string;
  artifacts: {
    trustJson: Artifact;
    jws: Artifact;
    html: Artifact;
    markdown: Artifact;
    feed: Artifact;
    badgeSvg: Artifact;
    badgeJson: Artifact;
    /** The standard exports (src/publish/exports.ts); absent on versions published before them. */
    oscal?: Artifact;
    oscalJws?: Artifact;
    attestation?: Artifact;
    securityInsights?: Artifact;
    securityInsightsJws?: Artifact;
  };
}

/** Whether `controls` have exactly the states a version recorded (no more, no fewer). */
export function sameStates(
  states: Publication["states"],
  controls: readonly { key: string; state: string }[],
): boolean {
  return controls.length === Object.keys(states).length &&
    controls.every((c) => states[c.key] === c.state);
}
