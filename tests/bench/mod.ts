/**
 * `deno task bench`: every benchmark, each printed as a ratio to a baseline
 * measured in the same run (two instances: against one), or (live, edge) as times against the
 * product's target; the ingest, job and live figures again on the KV Connect test server.
 */
import { benchColdStart } from "./cold_start.ts";
import { benchEdge } from "./edge.ts";
import { benchGrowth } from "./growth.ts";
import { benchIngest } from "./ingest.ts";
import { benchKvConnect } from "./kv_connect.ts";
import { benchLive } from "./live.ts";
import { benchMatchingIsolation } from "./matching_isolation.ts";
import { benchQuestionnaire } from "./questionnaire.ts";
import { benchQuestionnaireEncoder } from "./questionnaire_encoder.ts";
import { benchQuestionnaireFiles } from "./questionnaire_files.ts";
import { benchRecompute } from "./recompute.ts";
import { benchTrustJson } from "./trust_json.ts";
import { benchTrustPage } from "./trust_page.ts";
import { benchTwoInstances } from "./two_instances.ts";
import { benchYear } from "./year.ts";

const BENCHMARKS = [
  benchIngest,
  benchRecompute,
  benchTrustJson,
  benchTrustPage,
  benchLive,
  benchTwoInstances,
  benchEdge,
  benchKvConnect,
  benchGrowth,
  benchQuestionnaire,
  benchQuestionnaireEncoder,
  benchMatchingIsolation,
  benchQuestionnaireFiles,
  benchYear,
];

for (const bench of [...BENCHMARKS, benchColdStart]) {
  console.log((await bench()).line);
}
