/**
 * The collector CLI: sends heartbeats, evidence and trust signals to the
 * Trust Profile Service from CI or a schedule. The service serves this entry
 * at /collector.ts and its modules (src/cli/collector/, one concern each,
 * importing nothing else) at /collector/{module}, so a pipeline runs it as
 *
 *   deno run --allow-net --allow-env --allow-read https://trust.example.com/collector.ts heartbeat
 *
 * and Deno loads the modules from the same service (an import from the entry's
 * own host needs no --allow-import); it talks to the service it was loaded from.
 * The collector secret is read from TRUST_COLLECTOR_SECRET only, never from a
 * flag (flags show up in process lists and CI logs), and is never printed.
 *
 * @module
 */
import { parseArgs } from "./collector/args.ts";
import { run } from "./collector/commands.ts";
import { exitStatus, UsageError } from "./collector/errors.ts";
import { readInput } from "./collector/input.ts";

export { EVIDENCE_TYPES, type Options, parseArgs, SOURCE_TYPES, usage } from "./collector/args.ts";
export { BATCH_SIZE, run } from "./collector/commands.ts";
export {
  exitStatus,
  NetworkError,
  NotUnderstoodError,
  ServiceError,
  UsageError,
} from "./collector/errors.ts";
export { post, retryDelayMs } from "./collector/http.ts";
export { readJsonDocument, readJsonObject, splitJsonStream } from "./collector/input.ts";
export { controlLines, notUnderstood, readingLines } from "./collector/output.ts";

if (import.meta.main) {
  try {
    const options = parseArgs(Deno.args, (name) => Deno.env.get(name), {
      now: new Date(),
      moduleUrl: import.meta.url,
    });
    await run(options, { read: readInput, out: (line) => console.log(line) });
  } catch (error) {
    console.error(`error: ${(error as Error).message}`);
    if (error instanceof UsageError) console.error("Run with --help for usage.");
    Deno.exit(exitStatus(error));
  }
}
