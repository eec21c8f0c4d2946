/**
 * The evaluation contract as Markdown, generated from the code that applies it: the probe
 * registry, the default catalog and the state machine's constants. Served as
 * /docs/evaluation.md so readers of a trust page can check how every state was reached.
 */
import { formatSeconds } from "../lib/duration.ts";
import { DEFAULT_CATALOG } from "./catalog.ts";
import { CONFIDENCE, WORST_FIRST } from "./evaluate.ts";
import { EVIDENCE_FORMATS } from "../domain/evidence_formats.ts";
import { FORMAT_GUIDES } from "./formats.ts";
import { BUYER_GROUPS } from "./groups.ts";
import { type ProbeInput, PROBES } from "./registry.ts";

const INTRO = `# Evaluation rules

Every control state on a trust page comes from the rules below, applied by a pure,
deterministic evaluator: the same observation evaluated at the same instant always gives
the same state, confidence and reason. This page is generated from the evaluator's own
probe registry and default catalog, so it describes exactly what runs.`;

const TERMS = `## Terms

| Symbol | Meaning |
|---|---|
| L | Time of the latest observation: the latest evidence of the control's evidence type, or the newest \`lastSeenAt\` of the project's active collectors (collector controls) |
| T | Evaluation time |
| age | T − L, counted as 0 when L is after T (clock skew between collector and service) |
| W | Freshness window: \`freshnessPolicyJson.windowSeconds\` when its kind is \`time_window\`; unset for kind \`none\` |
| D | \`degradationPolicyJson.degradedAfterSeconds\`, or unset when null |
| S | \`degradationPolicyJson.staleAfterSeconds\`, or unset when null |`;

const RULES = `## State rules

The first rule that applies decides the state:

1. No observation: \`unknown\`.
2. S is set and age ≥ S: \`stale\`.
3. D is set and age ≥ D: \`degraded\`.
4. W is set and age ≥ W: \`degraded\` when S or D is set, otherwise \`stale\`.
5. Otherwise the control's probe reads the observation: \`pass\` or \`fail\`, or
   \`unknown\` with a reason when it cannot read the payload.

One exception keeps age from ever improving a state: when the latest evidence fails its
probe, the control stays \`fail\` however old that evidence grows (rules 2-4 would otherwise
turn it into \`degraded\` or \`stale\`, which rank better than \`fail\`); only new evidence
changes it. Likewise rule 4 answers \`degraded\` when D is set, so a control never goes from
\`stale\` back to \`degraded\`.

Thresholds are inclusive: evidence exactly W old is past its window, evidence one
millisecond younger is not. Policies are validated so that D ≤ S when both are set.

## Timestamps

- \`latestEvidenceAt\` is L.
- \`freshUntil\` is L + W, or null when the freshness kind is \`none\`.
- \`nextCheckAt\` is the earliest of L + W, L + D and L + S that is strictly after T, or
  null when none is; the service evaluates the control again at that instant, and
  whenever new evidence arrives.`;

const SELECTION = `## Which probe judges a control

- A control with a \`rule: { path, op, value }\` is judged by \`doesRuleHold\` alone.
- A default catalog control is judged by the probe its catalog entry names (table below).
- Any other control is judged by the probe registered for its evidence type, and a
  control without an evidence type by \`hasActiveCollector\`.`;

function readingSection(): string {
  return `## How a record is read

When evidence arrives, the probe registered for its evidence type reads the payload once,
and the ingest response and the evidence listing report it as \`reading: { format,
understood, summary }\`: \`format\` is the shape recognized (one of ${
    EVIDENCE_FORMATS.map((f) => `\`${f}\``).join(", ")
  }) or null, \`understood\` is true when the probe reached \`pass\` or \`fail\` and false
when it would answer \`unknown\`, and \`summary\` is the probe's reason. A payload may be a
JSON object or a JSON array (conftest's \`--output json\` is an array). The collector CLI
exits with status 4 when the service did not understand a record, so a CI job cannot stay
green on evidence nobody can read; controls with a custom rule may still read such a
payload, and \`--allow-unrecognized\` accepts it.`;
}

function formatsSection(): string {
  return [
    "## Evidence formats",
    "",
    "Every format the probes recognize, by the `reading.format` id ingest reports, with the",
    "command that produces it and how it counts. A payload that matches none is `unknown`,",
    "and its reason names the format that shares most top-level fields with it (or the",
    "evidence type's usual one) and how to produce it. Severities map to critical, high,",
    "medium and low; `unrated` findings do not fail unless the format says so.",
    "",
    row(["Format", "Sent as", "Produced by", "How it counts"]),
    "|---|---|---|---|",
    ...EVIDENCE_FORMATS.map((format) => {
      const guide = FORMAT_GUIDES[format];
      return row([
        `\`${format}\`: ${guide.label}`,
        guide.types.map((type) => `\`${type}\``).join(", "),
        `\`${guide.produce}\`${guide.also ? `; ${guide.also}` : ""}`,
        guide.counts,
      ]);
    }),
  ].join("\n");
}

/** Escapes a Markdown table cell. */
function cell(text: string): string {
  return text.replace(/\|/g, "\\|").replace(/\n/g, " ");
}

function row(cells: string[]): string {
  return `| ${cells.map(cell).join(" | ")} |`;
}

function reads(input: ProbeInput): string {
  if (input === "collector_heartbeat") return "collector heartbeat (`lastSeenAt`, no payload)";
  if (input === "any_evidence") return "the control's evidence type";
  return `\`${input}\` evidence`;
}

function threshold(seconds: number | null): string {
  return seconds === null ? "—" : formatSeconds(seconds);
}

function confidenceSection(): string {
  return [
    "## Confidence and overall state",
    "",
    "| State | Confidence |",
    "|---|---|",
    ...WORST_FIRST.map((state) => row([`\`${state}\``, String(CONFIDENCE[state])])),
    "",
    "A project's overall state is `unknown` when it has no enabled control, otherwise the",
    `worst state of its enabled controls, in the order ${
      WORST_FIRST.map((s) => `\`${s}\``).join(" > ")
    }.`,
  ].join("\n");
}

function catalogSection(): string {
  return [
    "## Default catalog",
    "",
    "Seeded into every new project; the keys are stable.",
    "",
    row([
      "Key",
      "Name",
      "Reads",
      "Probe",
      "Fresh for (W)",
      "Degraded after (D)",
      "Stale after (S)",
    ]),
    "|---|---|---|---|---|---|---|",
    ...DEFAULT_CATALOG.map((entry) =>
      row([
        `\`${entry.key}\``,
        entry.publicName,
        entry.evidenceType === null ? "collector heartbeat" : `\`${entry.evidenceType}\``,
        `\`${entry.probeId}\``,
        entry.freshness.kind === "time_window" ? formatSeconds(entry.freshness.windowSeconds) : "—",
        threshold(entry.degradation.degradedAfterSeconds),
        threshold(entry.degradation.staleAfterSeconds),
      ])
    ),
  ].join("\n");
}

function groupsSection(): string {
  return [
    "## Groups on trust pages",
    "",
    "Trust pages group controls by what a buyer asks about. A control is in the group of the",
    "probe registered for its evidence type (the table below), custom controls included, and",
    'its line "what this checks" is that probe\'s, or its rule for a custom rule.',
    "",
    row(["Group", "Heading", "Covers"]),
    "|---|---|---|",
    ...BUYER_GROUPS.map((g) => row([`\`${g.id}\``, g.label, g.about])),
  ].join("\n");
}

function probesSection(): string {
  const table = [
    "## Probes",
    "",
    "Each probe is a pure function named as a yes/no question. It answers `pass`, `fail` or",
    "`unknown` with a one-line reason; only the outcome counts towards the state.",
    "",
    row(["Probe", "Reads", "Passes when", "Trust page group", "What this checks"]),
    "|---|---|---|---|---|",
    ...PROBES.map((p) =>
      row([
        `\`${p.id}\``,
        reads(p.reads),
        p.passesWhen,
        p.group === null ? "the group of its evidence type" : `\`${p.group}\``,
        p.checks,
      ])
    ),
  ];
  const details = PROBES.map((p) =>
    [
      `### \`${p.id}\`: ${p.name}`,
      "",
      `Reads ${reads(p.reads)}.`,
      "",
      p.documentation,
      "",
      `**Remediation.** ${p.remediation}`,
    ].join("\n")
  );
  return [table.join("\n"), ...details].join("\n\n");
}

/**
 * The evaluation rules as a Markdown document: terms, the five state rules, timestamps,
 * confidence and overall state, probe selection, the default catalog with its policies,
 * and every registered probe with its accepted formats and remediation. Generated from
 * the registry and catalog on every call, and deterministic (no dates, stable order), so
 * the served document changes only when the code does.
 */
export function renderEvaluationMarkdown(): string {
  return [
    INTRO,
    TERMS,
    RULES,
    confidenceSection(),
    SELECTION,
    catalogSection(),
    groupsSection(),
    probesSection(),
    formatsSection(),
    readingSection(),
  ].join("\n\n") + "\n";
}
