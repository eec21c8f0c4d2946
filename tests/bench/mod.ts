/**
 * `deno task bench`: every benchmark, each printed as a ratio to a baseline
 * measured in the same run.
 */
import { benchIngest } from "./ingest.ts";
import { benchRecompute } from "./recompute.ts";
import { benchTrustJson } from "./trust_json.ts";

for (const bench of [benchIngest, benchRecompute, benchTrustJson]) {
  console.log((await bench()).line);
}
