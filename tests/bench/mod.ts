/**
 * `deno task bench`: every benchmark, each printed as a ratio to a baseline
 * measured in the same run.
 */
import { benchIngest } from "./ingest.ts";
import { benchLive } from "./live.ts";
import { benchRecompute } from "./recompute.ts";
import { benchTrustJson } from "./trust_json.ts";
import { benchTrustPage } from "./trust_page.ts";

for (const bench of [benchIngest, benchRecompute, benchTrustJson, benchTrustPage, benchLive]) {
  console.log((await bench()).line);
}
