/**
 * Double-submit CSRF protection for the service's own HTML forms (sign-in,
 * sign-up): a random value in a strict, HttpOnly cookie scoped to the form's
 * path, echoed in a hidden field, compared in constant time.
 */
import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { timingSafeEqual } from "../auth/password.ts";
import { randomToken } from "../lib/encoding.ts";
import type { AppEnv } from "./env.ts";

/** The form's token: the existing cookie's value, or a new one set now. */
export function issueCsrfToken(c: Context<AppEnv>, cookie: string, path: string): string {
  const token = getCookie(c, cookie) ?? randomToken(24);
  setCookie(c, cookie, token, {
    path,
    httpOnly: true,
    sameSite: "Strict",
    secure: c.var.services.config.baseUrl.startsWith("https:"),
  });
  return token;
}

/** Whether the submitted token matches the cookie. */
export function isCsrfTokenValid(c: Context<AppEnv>, cookie: string, submitted: string): boolean {
  const expected = getCookie(c, cookie) ?? "";
  const enc = new TextEncoder();
  return expected !== "" && timingSafeEqual(enc.encode(expected), enc.encode(submitted));
}
