/**
 * Probe for `collector.heartbeat`.
 */
import { pass, type ProbeResult } from "./types.ts";

/**
 * Answers whether an active collector has been seen. The observation itself (the newest
 * `lastSeenAt` of the project's active collectors) is the evidence, so the probe passes
 * whenever it runs; revoked collectors never produce an observation and age does the rest
 * through the control's freshness policy. The argument is accepted for a uniform probe
 * signature and ignored.
 */
export function hasActiveCollector(_payload?: unknown): ProbeResult {
  return pass("An active collector has been seen");
}
