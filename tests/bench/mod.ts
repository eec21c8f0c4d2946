/**
 * `deno task bench`: every benchmark, each printed as a ratio to a baseline
 * measured in the same run.
 */
import { benchIngest } from "./ingest.ts";

for (const bench of [benchIngest]) {
  console.log((await bench()).line);
}
