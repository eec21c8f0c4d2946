import assert from "node:assert/strict";
import { EvidenceType } from "../../src/domain/control.ts";
import {
  DEFAULT_CATALOG,
  defaultProbeFor,
  probeById,
  PROBES,
  renderEvaluationMarkdown,
} from "../../src/evaluate/mod.ts";

Deno.test("[evaluate] the registry documents every probe once", async (t) => {
  await t.step("ids are unique and resolve to themselves", () => {
    assert.equal(new Set(PROBES.map((p) => p.id)).size, PROBES.length);
    for (const probe of PROBES) assert.equal(probeById(probe.id), probe);
  });
  await t.step("every probe has a name, a one-line summary, documentation, remediation", () => {
    for (const probe of PROBES) {
      for (const text of [probe.name, probe.passesWhen, probe.documentation, probe.remediation]) {
        assert.ok(text.trim().length > 0 && !text.includes("\n"), probe.id);
      }
    }
  });
  await t.step("every evidence type has exactly one default probe", () => {
    for (const type of EvidenceType.options) {
      assert.equal(PROBES.filter((p) => p.reads === type).length, 1, type);
      assert.equal(defaultProbeFor(type).reads, type);
    }
    assert.equal(defaultProbeFor(null).id, "hasActiveCollector");
  });
  await t.step("every catalog entry names a probe reading its evidence type", () => {
    for (const entry of DEFAULT_CATALOG) {
      assert.equal(probeById(entry.probeId).reads, entry.evidenceType ?? "collector_heartbeat");
    }
  });
});

Deno.test("[evaluate] renderEvaluationMarkdown() is generated from the registry", async (t) => {
  const markdown = renderEvaluationMarkdown();
  await t.step("is deterministic", () => assert.equal(renderEvaluationMarkdown(), markdown));
  await t.step("states the five rules in order", () => {
    const rules = [
      "1. No observation: `unknown`.",
      "2. S is set and age ≥ S: `stale`.",
      "3. D is set and age ≥ D: `degraded`.",
      "4. W is set and age ≥ W: `degraded` when S or D is set, otherwise `stale`.",
      "5. Otherwise the control's probe reads the observation",
    ].map((rule) => markdown.indexOf(rule));
    assert.ok(rules.every((at, i) => at > 0 && (i === 0 || at > rules[i - 1])), String(rules));
  });
  await t.step("documents every probe with its paragraphs", () => {
    for (const probe of PROBES) {
      assert.ok(markdown.includes(`### \`${probe.id}\`: ${probe.name}\n`), probe.id);
      assert.ok(markdown.includes(probe.documentation), probe.id);
      assert.ok(markdown.includes(`**Remediation.** ${probe.remediation}`), probe.id);
    }
  });
  await t.step("lists every catalog key with its probe in a table row", () => {
    for (const entry of DEFAULT_CATALOG) {
      assert.match(
        markdown,
        new RegExp(`^\\| \`${entry.key}\` \\|.*\\| \`${entry.probeId}\` \\|`, "m"),
      );
    }
  });
  await t.step("gives confidence per state and the worst-first order", () => {
    assert.match(markdown, /^\| `degraded` \| 0\.5 \|$/m);
    assert.ok(markdown.includes("`fail` > `stale` > `degraded` > `unknown` > `pass`"));
  });
  await t.step("has one title, table separators that match headers, a final newline", () => {
    assert.equal(markdown.match(/^# /gm)?.length, 1);
    const lines = markdown.split("\n");
    lines.forEach((line, i) => {
      if (/^\|(---\|)+$/.test(line)) {
        assert.equal(line.split("|").length, lines[i - 1].split(/(?<!\\)\|/).length, lines[i - 1]);
      }
    });
    assert.ok(markdown.endsWith(")\n") || markdown.endsWith(".\n"));
  });
});
