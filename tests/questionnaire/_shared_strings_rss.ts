/**
 * Run as its own process by tests/questionnaire/shared_strings_memory_test.ts (so the memory it
 * reports is the reading's alone): reads the workbook files named on the command line at once
 * (Promise.all) with readQuestionnaire, and prints one JSON line: the peak RSS growth while they
 * were read (Linux's VmHWM, reset just before through /proc/self/clear_refs) and each outcome
 * (the QuestionnaireFileError code, or "read").
 *
 * Usage: deno run -A --v8-flags=--expose-gc tests/questionnaire/_shared_strings_rss.ts <file>...
 */
import { readQuestionnaire } from "../../src/questionnaire/workbook.ts";
import { QuestionnaireFileError } from "../../src/questionnaire/types.ts";

const files = await Promise.all(Deno.args.map((path) => Deno.readFile(path)));
// fflate loads on first use: load it before measuring.
await readQuestionnaire(new TextEncoder().encode("Question\nWarm-up?\n"));
(globalThis as { gc?: () => void }).gc?.();

const status = () => Deno.readTextFileSync("/proc/self/status");
const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status())![1]) * 1024;
Deno.writeTextFileSync("/proc/self/clear_refs", "5"); // peak RSS := current RSS
const before = kib("VmRSS");
const started = performance.now();
const outcomes = await Promise.all(files.map(async (bytes) => {
  try {
    await readQuestionnaire(bytes);
    return "read";
  } catch (error) {
    if (error instanceof QuestionnaireFileError) return error.code;
    throw error;
  }
}));
console.log(JSON.stringify({
  growthBytes: kib("VmHWM") - before,
  ms: Math.round(performance.now() - started),
  outcomes,
}));
