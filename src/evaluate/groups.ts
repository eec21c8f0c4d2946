/**
 * The categories a buyer reads a trust page by. Each probe of the registry names its
 * group; a control takes the group of the probe that reads its evidence type, so custom
 * controls land beside the default control of the same evidence type.
 */
import type { ControlRule, EvidenceType } from "../domain/control.ts";
import { defaultProbeFor } from "./registry.ts";
import type { BuyerGroupId } from "./probes/types.ts";

export type { BuyerGroupId } from "./probes/types.ts";

/** A buyer category: its stable id, heading and one line on what it covers. */
export interface BuyerGroup {
  id: BuyerGroupId;
  label: string;
  about: string;
}

/** Every group, in the order trust pages show them. */
export const BUYER_GROUPS: readonly BuyerGroup[] = [
  {
    id: "supply_chain",
    label: "Supply chain",
    about: "What the software is made of and how it was built",
  },
  {
    id: "vulnerability_management",
    label: "Vulnerability management",
    about: "Known vulnerabilities in what is shipped",
  },
  {
    id: "runtime",
    label: "Runtime",
    about: "The health of what is deployed",
  },
  {
    id: "policy",
    label: "Policy",
    about: "Automated policy checks on code and infrastructure",
  },
  {
    id: "liveness",
    label: "Liveness",
    about: "Whether evidence is still being collected",
  },
];

const BY_ID = new Map(BUYER_GROUPS.map((group) => [group.id, group]));

/** The group with `id`. */
export function buyerGroup(id: BuyerGroupId): BuyerGroup {
  return BY_ID.get(id)!;
}

/** The group of a control reading `evidenceType` (null: the collector heartbeat). */
export function groupOf(evidenceType: EvidenceType | null): BuyerGroupId {
  return defaultProbeFor(evidenceType).group!;
}

/** The part of a control its description depends on. */
export interface DescribedControl {
  evidenceType: EvidenceType | null;
  rule: ControlRule | null;
}

/**
 * "What this checks", one plain line: the registry's line for the probe that reads the
 * control's evidence, or, for a custom rule, the rule itself on that evidence.
 */
export function describeControl(control: DescribedControl): string {
  const probe = defaultProbeFor(control.evidenceType);
  if (control.rule === null) return probe.checks;
  const { path, op, value } = control.rule;
  const operand = value === undefined ? "" : ` ${JSON.stringify(value)}`;
  const on = control.evidenceType === null
    ? "the latest evidence"
    : `the latest ${control.evidenceType.replaceAll("_", " ")} evidence`;
  return `Custom rule on ${on}: ${path} ${op}${operand}`;
}
