/**
 * The trust center's own availability as the service measures it (src/store/public_status.ts):
 * answers of its public routes per window, per day, and the disruptions (hours with answers
 * that failed with a 5xx), newest first.
 */
import { z } from "@hono/zod-openapi";
import { DateTime } from "./common.ts";

const Window = z.object({
  answers: z.int().min(0).openapi({ description: "Answers of the public routes" }),
  failed: z.int().min(0).openapi({ description: "Of them, answers that failed (5xx)" }),
  availability: z.number().min(0).max(1).nullable().openapi({
    description: "Share of answers that did not fail; null without any answer",
  }),
});

export const PublicStatus = z.object({
  measuredAt: DateTime,
  measuredSince: DateTime.nullable().openapi({
    description: "The first hour with answers recorded in the last 30 days",
  }),
  last24Hours: Window,
  last7Days: Window,
  last30Days: Window,
  days: z.array(z.object({
    day: z.string().openapi({ example: "2026-03-01" }),
    answers: z.int().min(0),
    failed: z.int().min(0),
  })).openapi({ description: "Days with answers, newest first" }),
  disruptions: z.array(z.object({
    start: DateTime,
    end: DateTime,
    answers: z.int().min(0),
    failed: z.int().min(0),
  })).openapi({
    description:
      "Consecutive hours in which some answers failed (5xx), newest first, at most 20; measured per hour, so start and end are whole hours",
  }),
}).openapi("PublicStatus");
export type PublicStatus = z.infer<typeof PublicStatus>;

/** An availability as a percentage with two decimals, or "no answers". */
export function availabilityText(availability: number | null): string {
  if (availability === null) return "no answers yet";
  return `${(Math.floor(availability * 10000) / 100).toFixed(2)}%`;
}
