/**
 * The latest repository signal detection of each project.
 */
import type { TrustSignalDetection } from "../domain/collector.ts";
import { touchCollector } from "./collectors.ts";
import { latestSignalsKey } from "./keys.ts";

export async function getLatestSignals(
  kv: Deno.Kv,
  projectId: string,
): Promise<TrustSignalDetection | null> {
  return (await kv.get<TrustSignalDetection>(latestSignalsKey(projectId))).value;
}

/**
 * Keeps `detection` when it is at least as new as the stored one; returns
 * the detection that is latest afterwards. The reporting collector's
 * activity, when given, is recorded in the same atomic.
 */
export async function recordSignals(
  kv: Deno.Kv,
  detection: TrustSignalDetection,
  options: { projectId: string; seenCollector?: { id: string; now: Date } },
): Promise<TrustSignalDetection> {
  const { projectId, seenCollector } = options;
  for (let attempt = 0; attempt < 10; attempt++) {
    const current = await kv.get<TrustSignalDetection>(latestSignalsKey(projectId));
    const keep = current.value &&
      Date.parse(current.value.detectedAt) > Date.parse(detection.detectedAt);
    const op = kv.atomic().check(current);
    if (!keep) op.set(latestSignalsKey(projectId), detection);
    if (seenCollector) touchCollector(op, seenCollector.id, seenCollector.now);
    if ((await op.commit()).ok) return keep ? current.value! : detection;
  }
  throw new Error("The signals changed repeatedly while being recorded");
}
