/**
 * The design tokens of every page the service draws: the public trust pages (which
 * inline them), the sign-in and documentation pages and the dashboard (which load
 * them as /static/tokens.css). One source, so colours cannot drift between the page a
 * buyer reads and the dashboard an operator uses. Every text colour meets WCAG AA on
 * the backgrounds it is used with, in both schemes. ASCII only: the trust pages' CSP
 * allows their stylesheet by hash.
 */

const LIGHT = {
  bg: "#f4f6f9",
  surface: "#ffffff",
  "surface-muted": "#f8f9fb",
  fg: "#161b22",
  muted: "#505a66",
  border: "#d5dbe3",
  "border-strong": "#b7c0cc",
  accent: "#0a58ca",
  "accent-hover": "#084298",
  "accent-soft": "#e7f0fd",
  "on-accent": "#ffffff",
  focus: "#1f6feb",
  danger: "#b42318",
  "danger-soft": "#fdecea",
  info: "#0a4fb3",
  "info-soft": "#e8f0fe",
  "neutral-fg": "#39424e",
  "neutral-soft": "#eceff3",
  pass: "#146c2e",
  "pass-bg": "#e6f4ea",
  fail: "#b42318",
  "fail-bg": "#fdecea",
  degraded: "#8a4600",
  "degraded-bg": "#fff4e0",
  stale: "#7a4522",
  "stale-bg": "#f6eae0",
  unknown: "#4b5560",
  "unknown-bg": "#eceff3",
  shadow: "0 1px 2px rgb(16 24 40 / 6%), 0 1px 3px rgb(16 24 40 / 8%)",
} as const;

const DARK: Record<keyof typeof LIGHT, string> = {
  bg: "#0d1117",
  surface: "#161b22",
  "surface-muted": "#1c222b",
  fg: "#e6edf3",
  muted: "#a4afbb",
  border: "#30363d",
  "border-strong": "#48515c",
  accent: "#5b9cf8",
  "accent-hover": "#84b6fb",
  "accent-soft": "#16263d",
  "on-accent": "#0d1117",
  focus: "#79b0ff",
  danger: "#ff8a80",
  "danger-soft": "#3a1714",
  info: "#8ab8ff",
  "info-soft": "#15243a",
  "neutral-fg": "#c9d1d9",
  "neutral-soft": "#262d36",
  pass: "#6fd58b",
  "pass-bg": "#12301c",
  fail: "#ff8a80",
  "fail-bg": "#3a1714",
  degraded: "#f0b55a",
  "degraded-bg": "#33260f",
  stale: "#e2b08b",
  "stale-bg": "#33241a",
  unknown: "#b6c0ca",
  "unknown-bg": "#232a32",
  shadow: "none",
};

/** The colour tokens of each scheme, for tests that check the contrast of their pairs. */
export const SCHEME_TOKENS: Readonly<Record<"light" | "dark", Readonly<Record<string, string>>>> = {
  light: LIGHT,
  dark: DARK,
};

/** Tokens that are the same in both schemes. */
const SHARED = {
  radius: "10px",
  font: 'system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif',
  mono: 'ui-monospace,SFMono-Regular,"SF Mono",Menlo,Consolas,"Liberation Mono",monospace',
  // Semantic names the dashboard uses, resolved to the state colours.
  success: "var(--pass)",
  "success-soft": "var(--pass-bg)",
  warning: "var(--degraded)",
  "warning-soft": "var(--degraded-bg)",
} as const;

/** Every token name, for tests that check a stylesheet uses no other. */
export const DESIGN_TOKEN_NAMES: readonly string[] = [
  ...Object.keys(LIGHT),
  ...Object.keys(SHARED),
];

const declarations = (tokens: Record<string, string>) =>
  Object.entries(tokens).map(([name, value]) => `--${name}:${value}`).join(";");

/** The tokens as CSS custom properties on `:root`, light by default, dark by preference. */
export const DESIGN_TOKENS_CSS = `:root{color-scheme:light dark;${declarations(LIGHT)};${
  declarations(SHARED)
}}\n@media (prefers-color-scheme:dark){:root{${declarations(DARK)}}}\n`;
