/**
 * Counts every answer of a public route for the trust center's status (src/store/public_status.ts):
 * after the answer is made, its status is counted by the instance's recorder, and the counts are
 * written at most once a minute, by the request that finds them due.
 */
import type { MiddlewareHandler } from "hono";
import { isPublicRoute, StatusRecorder } from "../store/public_status.ts";
import type { AppEnv } from "./env.ts";
import { memoKey } from "./memo.ts";

const RECORDER = memoKey<StatusRecorder>("public-status-recorder");

/** The instance's recorder. */
export function statusRecorder(services: AppEnv["Variables"]["services"]): StatusRecorder {
  return services.memo(RECORDER, () => new StatusRecorder(services.kv));
}

export function recordPublicStatus(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    if (!isPublicRoute(c.req.path)) return;
    const { services } = c.var;
    const recorder = statusRecorder(services);
    const now = services.clock.now();
    if (recorder.count(now, c.res.status)) await recorder.flush(now);
  };
}
