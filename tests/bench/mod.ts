/**
 * `deno task bench`: every benchmark, each printed as a ratio to a baseline
 * measured in the same run.
 */
import { benchIngest } from "./ingest.ts";
import { benchRecompute } from "./recompute.ts";

for (const bench of [benchIngest, benchRecompute]) {
  console.log((await bench()).line);
}
