/**
 * What the collector CLI prints of the service's answers: how it read each sent document,
 * which documents it did not understand, and what happened to the controls they decide.
 *
 * @module
 */

export interface Reading {
  format?: string | null;
  understood?: boolean;
  summary?: string;
}

/**
 * Lines naming each sent file the service stored but did not understand, from the
 * records' `reading` (in request order); none when every reading understood its payload
 * or the service sends no readings.
 */
export function notUnderstood(files: readonly string[], records: unknown): string[] {
  if (!Array.isArray(records)) return [];
  return records.flatMap((record, i) => {
    const reading = (record as { reading?: Reading } | null)?.reading;
    if (reading?.understood !== false) return [];
    return [`${files[i] ?? `record ${i + 1}`}: ${reading.summary ?? "not understood"}`];
  });
}

export interface ControlEffect {
  key?: string;
  name?: string;
  previousState?: string | null;
  state?: string;
  reason?: string | null;
  evidenceRecordId?: string | null;
}

/**
 * What the service understood of each sent file, one line each: the format it recognized
 * and its one-line summary, or that it could not read the document and why.
 */
export function readingLines(files: readonly string[], records: unknown): string[] {
  if (!Array.isArray(records)) return [];
  return records.flatMap((record, i) => {
    const reading = (record as { reading?: Reading } | null)?.reading;
    if (!reading) return [];
    const file = files[i] ?? `record ${i + 1}`;
    const summary = reading.summary ?? "";
    if (reading.understood === false) return [`  ${file}: not understood: ${summary}`];
    const format = reading.format ? ` (format ${reading.format})` : "";
    return [`  ${file}: read${format}: ${summary}`];
  });
}

/**
 * One line per control that reads the evidence sent: its state before and now ("unknown ->
 * pass"), or that it stays, and why when the reason says more than the readings did. A
 * control decided by a record other than the ones sent (a newer observation) says so.
 */
export function controlLines(
  controls: unknown,
  sent: { ids: readonly string[]; summaries: readonly string[] },
): string[] {
  if (!Array.isArray(controls)) return [];
  return controls.map((control: ControlEffect) => {
    const name = `${control.name ?? control.key} (${control.key})`;
    const moved = control.previousState !== control.state;
    const state = moved
      ? `${control.previousState ?? "not evaluated"} -> ${control.state}`
      : `${control.state}, unchanged`;
    const newer = control.evidenceRecordId && !sent.ids.includes(control.evidenceRecordId)
      ? " (decided by a newer record)"
      : "";
    const reason = control.reason && !sent.summaries.includes(control.reason)
      ? `: ${control.reason}`
      : "";
    return `  control ${name}: ${state}${newer}${reason}`;
  });
}
