/**
 * Repository signals as a reader sees them (HTML and Markdown): the CI/CD, monitoring,
 * authentication and cloud providers the vendor's collector detected, and its security
 * contact, worded as of the detection the page was published with.
 */
import type { TrustSignalDetection } from "../../domain/collector.ts";

/** One line of the signals list: what was looked for and what was found. */
export interface SignalLine {
  label: string;
  /** The names found, or a sentence when there are none to name. */
  found: string;
  detected: boolean;
  /** The security contact's address, when one is published. */
  email?: string;
}

type Group = TrustSignalDetection["ciCd"];

function names(group: Group): string {
  if (!group.detected) return "Not detected";
  const found = [...(group.tools ?? []), ...(group.providers ?? [])];
  return found.length ? found.join(", ") : "Detected (no name reported)";
}

/** The five signals of a detection, in a fixed order. */
export function signalLines(signals: TrustSignalDetection): SignalLine[] {
  const contact = signals.securityContact;
  const groups: [string, Group][] = [
    ["CI/CD", signals.ciCd],
    ["Monitoring", signals.monitoring],
    ["Authentication provider", signals.authProvider],
    ["Cloud provider", signals.cloudProvider],
  ];
  return [
    ...groups.map(([label, group]) => ({ label, found: names(group), detected: group.detected })),
    {
      label: "Security contact",
      found: contact.email ??
        (contact.detected ? "Published (no address reported)" : "Not published"),
      detected: contact.detected,
      ...(contact.email ? { email: contact.email } : {}),
    },
  ];
}

/** The short commit a detection names ("3f2a9c1"), or the reference as sent. */
export function shortCommit(commitSha: string): string {
  return /^[0-9a-f]{40,64}$/i.test(commitSha) ? commitSha.slice(0, 7) : commitSha;
}
