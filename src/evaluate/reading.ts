/**
 * How the evaluator reads a record: the default probe of its evidence type, run once at
 * ingest, says which format it recognized and whether it could conclude anything. Ingest
 * responses and evidence listings carry this, so a collector learns at once that the
 * service cannot read what it sent, instead of from an `unknown` control later.
 */
import type { EvidenceType } from "../domain/control.ts";
import type { EvidenceFormat } from "../domain/evidence_formats.ts";
import type { SignatureCheck } from "../domain/sigstore.ts";
import { describeVex, readVex } from "./probes/vex.ts";
import { defaultProbeFor } from "./registry.ts";

/** What the evaluator made of a payload (SPEC's records carry it as `reading`). */
export interface EvidenceReading {
  /** The format recognized, or null when the payload matched none. */
  format: EvidenceFormat | null;
  /** True when the probe reached a verdict (pass or fail); false when it is `unknown`. */
  understood: boolean;
  /** The probe's one-line reason, e.g. "Trivy report: 2 critical, 0 high, …". */
  summary: string;
}

/**
 * Reads `payload` as `evidenceType` evidence with the probe the default catalog uses for
 * that type (the one that judges the type's catalog control), without a clock: age never
 * matters here. A probe that throws yields a reading that understood nothing. Controls
 * with a custom rule may still read a payload this reading did not understand. A VEX
 * document sent as `vulnerability_scan` evidence is not judged on its own: it is understood
 * when its statements can be read, and applied to the project's scans. `signature` is the
 * verification of the Sigstore signature the payload carries, so a signed payload's reading
 * says whether it verified.
 */
export function readEvidence(
  evidenceType: EvidenceType,
  payload: unknown,
  signature?: SignatureCheck | null,
): EvidenceReading {
  const probe = defaultProbeFor(evidenceType);
  try {
    const vex = evidenceType === "vulnerability_scan" ? readVex(payload) : null;
    if (vex !== null) {
      return { format: vex.format, understood: !("error" in vex), summary: describeVex(vex) };
    }
    const result = probe.run(payload, null, { vex: [], signature });
    if (signature && !signature.verified) {
      return { format: result.format ?? null, understood: true, summary: signature.reason };
    }
    return {
      format: result.format ?? null,
      understood: result.outcome !== "unknown",
      summary: result.reason,
    };
  } catch {
    return { format: null, understood: false, summary: `Probe ${probe.id} could not read it` };
  }
}
