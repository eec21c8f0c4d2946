/**
 * The trust center's own availability (FRR-ADS-01's "availability status and recent
 * disruptions", TC-07): every answer of a public route (`/trust/…`, `/public/…`) is counted by
 * the instance that gave it, per UTC hour, as served (below 500) or failed (5xx). Counts gather
 * in memory and are added to one KV record per hour at most once a minute (and whenever the
 * hour turns), so the cost is one small write per instance and minute, not per request. Records
 * expire after 40 days; the status reads the last 30.
 */
import type { PublicStatus } from "../domain/public_status.ts";

const HOUR_MS = 3600_000;
const DAY_MS = 24 * HOUR_MS;
/** How often an instance adds what it counted to the KV. */
export const STATUS_FLUSH_MS = 60_000;
/** How long an hour's record is kept. */
const KEEP_MS = 40 * DAY_MS;
/** Days the status covers. */
export const STATUS_DAYS = 30;
const MAX_ATTEMPTS = 10;
/** Most disruptions listed. */
const MAX_DISRUPTIONS = 20;

/** One hour's counts. */
export interface HourCounts {
  served: number;
  failed: number;
}

export const publicStatusHourKey = (hour: string) => ["public_status_hours", hour] as const;
const PREFIX = ["public_status_hours"] as const;

/** The hour of `at` as `YYYY-MM-DDTHH` (UTC). */
export function hourOf(at: Date): string {
  return at.toISOString().slice(0, 13);
}

/** Whether a path is one of the public routes the status measures. */
export function isPublicRoute(path: string): boolean {
  return path === "/trust" || path.startsWith("/trust/") || path.startsWith("/public/");
}

/** Counts answers per hour in memory and adds them to the KV now and then. */
export class StatusRecorder {
  #pending = new Map<string, HourCounts>();
  #lastFlush: number | null = null;
  #flushing: Promise<void> | null = null;

  constructor(private readonly kv: Deno.Kv) {}

  /** Counts one answer given at `at`; true when the counts are due to be written. */
  count(at: Date, status: number): boolean {
    const hour = hourOf(at);
    const counts = this.#pending.get(hour) ?? { served: 0, failed: 0 };
    if (status >= 500) counts.failed++;
    else counts.served++;
    this.#pending.set(hour, counts);
    const ms = at.getTime();
    this.#lastFlush ??= ms;
    return ms - this.#lastFlush >= STATUS_FLUSH_MS || this.#pending.size > 1;
  }

  /** Adds what was counted to the KV (a failed write keeps the counts for the next one). */
  async flush(at: Date): Promise<void> {
    if (this.#flushing) return await this.#flushing;
    this.#flushing = this.#write(at.getTime()).finally(() => this.#flushing = null);
    await this.#flushing;
  }

  async #write(now: number): Promise<void> {
    const pending = [...this.#pending];
    this.#pending.clear();
    this.#lastFlush = now;
    for (const [hour, counts] of pending) {
      if (!(await addHour(this.kv, hour, counts))) {
        const kept = this.#pending.get(hour) ?? { served: 0, failed: 0 };
        this.#pending.set(hour, {
          served: kept.served + counts.served,
          failed: kept.failed + counts.failed,
        });
      }
    }
  }
}

async function addHour(kv: Deno.Kv, hour: string, add: HourCounts): Promise<boolean> {
  const key = publicStatusHourKey(hour);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    try {
      const entry = await kv.get<HourCounts>(key);
      const current = entry.value ?? { served: 0, failed: 0 };
      const next = { served: current.served + add.served, failed: current.failed + add.failed };
      const result = await kv.atomic().check(entry).set(key, next, { expireIn: KEEP_MS }).commit();
      if (result.ok) return true;
    } catch {
      return false;
    }
  }
  return false;
}

/** The status over the last {@linkcode STATUS_DAYS} days as of `now`, from the hours recorded. */
export async function readPublicStatus(kv: Deno.Kv, now: Date): Promise<PublicStatus> {
  const end = hourOf(now);
  const startMs = Date.parse(`${end}:00:00Z`) - (STATUS_DAYS * 24 - 1) * HOUR_MS;
  const start = hourOf(new Date(startMs));
  const hours = new Map<string, HourCounts>();
  const iter = kv.list<HourCounts>(
    { start: [...PREFIX, start], end: [...PREFIX, `${end}~`] },
    { limit: STATUS_DAYS * 24 + 1 },
  );
  for await (const entry of iter) hours.set(entry.key[1] as string, entry.value);
  const nowMs = now.getTime();
  const window = (ms: number) => {
    let served = 0, failed = 0;
    for (const [hour, counts] of hours) {
      if (Date.parse(`${hour}:00:00Z`) > nowMs - ms) {
        served += counts.served;
        failed += counts.failed;
      }
    }
    const answers = served + failed;
    return { answers, failed, availability: answers ? served / answers : null };
  };
  const days = new Map<string, HourCounts>();
  for (const [hour, counts] of hours) {
    const day = hour.slice(0, 10);
    const sum = days.get(day) ?? { served: 0, failed: 0 };
    days.set(day, { served: sum.served + counts.served, failed: sum.failed + counts.failed });
  }
  // A disruption: consecutive hours with failed answers.
  const disruptions: PublicStatus["disruptions"] = [];
  const sorted = [...hours].filter(([, c]) => c.failed > 0).sort(([a], [b]) => a.localeCompare(b));
  for (const [hour, counts] of sorted) {
    const startAt = `${hour}:00:00.000Z`;
    const last = disruptions.at(-1);
    if (last && last.end === startAt) {
      last.end = new Date(Date.parse(startAt) + HOUR_MS).toISOString();
      last.failed += counts.failed;
      last.answers += counts.failed + counts.served;
    } else {
      disruptions.push({
        start: startAt,
        end: new Date(Date.parse(startAt) + HOUR_MS).toISOString(),
        failed: counts.failed,
        answers: counts.failed + counts.served,
      });
    }
  }
  const recorded = [...hours.keys()].sort()[0];
  return {
    measuredAt: now.toISOString(),
    measuredSince: recorded ? `${recorded}:00:00.000Z` : null,
    last24Hours: window(DAY_MS),
    last7Days: window(7 * DAY_MS),
    last30Days: window(STATUS_DAYS * DAY_MS),
    days: [...days].sort(([a], [b]) => b.localeCompare(a)).map(([day, c]) => ({
      day,
      answers: c.served + c.failed,
      failed: c.failed,
    })),
    disruptions: disruptions.reverse().slice(0, MAX_DISRUPTIONS),
  };
}
