/**
 * The one stylesheet of public trust pages, inlined into every page so a page is a single
 * self-contained response; the CSP allows exactly this text by hash and nothing else.
 * Kept ASCII-only so its hash never depends on how a proxy re-encodes the page.
 */
import { createHash } from "node:crypto";
import { DESIGN_TOKENS_CSS } from "../../lib/design_tokens.ts";

/** The CSS inside the `<style>` element of every trust page, byte for byte. */
export const TRUST_PAGE_STYLE = `
${DESIGN_TOKENS_CSS}*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;text-size-adjust:100%}
body{margin:0;background:var(--bg);color:var(--fg);overflow-wrap:anywhere;
font:16px/1.55 var(--font)}
a{color:var(--accent);text-underline-offset:.18em}
a:focus-visible{outline:2px solid var(--accent);outline-offset:2px;border-radius:3px}
code{font:.8125rem/1.4 var(--mono)}
svg{flex:none}
.wrap{max-width:72rem;margin:0 auto;padding-left:1rem;padding-right:1rem}
.vh{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);
white-space:nowrap}
.skip{position:absolute;left:-100vw}
.skip:focus{left:1rem;top:.5rem;background:var(--surface);padding:.25rem .5rem}
.top{background:var(--surface);border-bottom:1px solid var(--border)}
.top .wrap{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;
gap:.5rem 1.5rem;padding-top:.75rem;padding-bottom:.75rem}
.brand{display:flex;align-items:center;gap:.5rem;font-weight:650;margin:0}
.brand svg{width:1.375rem;height:1.375rem;color:var(--accent)}
.top ul{display:flex;flex-wrap:wrap;gap:.25rem 1.25rem;margin:0;padding:0;list-style:none;
font-size:.875rem}
main{padding-top:1.5rem;padding-bottom:1rem}
section{margin:0 0 2rem}
h1,h2,h3{line-height:1.2;margin:0}
h2{font-size:1.25rem;margin-bottom:.75rem}
.card{background:var(--surface);border:1px solid var(--border);border-radius:14px}
.hero{display:grid;gap:1.5rem;padding:1.5rem}
.hero>:only-child{grid-column:1/-1}
.eyebrow{margin:0 0 .4rem;color:var(--muted);font-size:.8125rem;font-weight:600;
letter-spacing:.06em;text-transform:uppercase}
h1{font-size:clamp(1.6rem,4.5vw,2.4rem);letter-spacing:-.01em}
.lede{margin:.6rem 0 0;color:var(--muted);max-width:40rem}
.facts{display:flex;flex-wrap:wrap;gap:.75rem 2rem;margin:1.25rem 0 0}
.facts div{min-width:6rem}
.facts dt{color:var(--muted);font-size:.8125rem;font-weight:600}
.facts dd{margin:0;font-weight:600}
.overall{display:flex;gap:1rem;align-items:center;border-radius:12px;padding:1.25rem;
background:var(--st-bg);color:var(--st)}
.overall svg{width:3rem;height:3rem}
.overall p{margin:0}
.overall .label{font-size:.8125rem;font-weight:650;letter-spacing:.06em;text-transform:uppercase}
.overall .state{font-size:2rem;font-weight:750;line-height:1.1}
.overall .why{font-weight:550}
.s-pass{--st:var(--pass);--st-bg:var(--pass-bg)}
.s-fail{--st:var(--fail);--st-bg:var(--fail-bg)}
.s-degraded{--st:var(--degraded);--st-bg:var(--degraded-bg)}
.s-stale{--st:var(--stale);--st-bg:var(--stale-bg)}
.s-unknown{--st:var(--unknown);--st-bg:var(--unknown-bg)}
.counts{display:grid;grid-template-columns:repeat(auto-fit,minmax(9rem,1fr));gap:.75rem;
margin:0;padding:0;list-style:none}
.counts li{background:var(--surface);border:1px solid var(--border);
border-top:4px solid var(--st);border-radius:10px;padding:.75rem 1rem}
.counts .n{display:block;font-size:1.75rem;font-weight:750;line-height:1.2}
.counts .what{display:flex;align-items:center;gap:.35rem;color:var(--st);font-weight:600}
.counts svg,.pill svg{width:1rem;height:1rem}
.note{margin:-.25rem 0 .75rem;color:var(--muted);font-size:.875rem}
.table{overflow:hidden}
table{width:100%;border-collapse:collapse}
thead th{background:var(--neutral-soft);color:var(--muted);font-size:.8125rem;font-weight:650;
text-align:left;padding:.6rem 1rem;overflow-wrap:break-word}
tbody th,tbody td{text-align:left;vertical-align:top;padding:.85rem 1rem;
border-top:1px solid var(--border)}
tbody th{font-weight:600;min-width:10rem;overflow-wrap:break-word}
.key{display:block;color:var(--muted);font-size:.8125rem;font-weight:400;margin-top:.2rem;
overflow-wrap:anywhere}
.key code{font-size:1em}
tbody time{white-space:normal}
.pill{display:inline-flex;align-items:center;gap:.35rem;padding:.15rem .65rem .15rem .5rem;
border-radius:999px;background:var(--st-bg);color:var(--st);font-weight:650;font-size:.875rem;
white-space:nowrap}
time{display:block;white-space:nowrap}
.d{white-space:nowrap}
.rel{display:block;color:var(--muted);font-size:.8125rem}
.none{color:var(--muted)}
.downloads{display:grid;grid-template-columns:repeat(auto-fit,minmax(16rem,1fr));
gap:1rem 2rem;padding:1rem 1.25rem}
.dlg h3{font-size:1rem;margin:0 0 .4rem}
.dlg ul{display:grid;gap:.45rem;margin:0;padding:0;list-style:none}
.dlg a{font-weight:650}
.about{display:block;color:var(--muted);font-size:.8125rem}
.cmd{margin:0 0 1rem;padding:.75rem 1rem;background:var(--surface);
border:1px solid var(--border);border-radius:10px}
.cmd code{user-select:all;-webkit-user-select:all;cursor:text;overflow-wrap:anywhere}
.org{margin:.35rem 0 0;color:var(--muted)}
.org strong{color:var(--fg);font-weight:650}
.projects{display:grid;gap:.75rem;margin:0;padding:0;list-style:none}
.projects li{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;
gap:.5rem 1.5rem;padding:1rem 1.25rem}
.projects h3{font-size:1.125rem}
.projects p{margin:.2rem 0 0;color:var(--muted);font-size:.875rem}
.projects time{display:inline}
.changes,.versions{display:grid;gap:.75rem;margin:0;padding:0;list-style:none}
.changes li{background:var(--surface);border:1px solid var(--border);border-radius:10px;
padding:.75rem 1rem}
.changes p{margin:0}
.cname{font-weight:600}
.move{display:flex;flex-wrap:wrap;align-items:center;gap:.35rem .5rem;padding:.4rem 0}
.reason{font-size:.875rem}
.reason.none{color:var(--muted)}
.version{padding:1rem 1.25rem}
.vhead{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;
gap:.5rem 1rem}
.version h2{font-size:1.125rem;margin:0}
.version h3{font-size:1rem;margin:.9rem 0 .5rem}
.version .note{margin:0}
.meta{display:flex;flex-wrap:wrap;align-items:baseline;gap:.25rem .75rem;margin:.35rem 0 0;
color:var(--muted);font-size:.875rem}
.meta time{display:inline}
.pager{display:flex;flex-wrap:wrap;gap:.5rem 1.5rem;margin:1.5rem 0 0;padding:0;list-style:none;
font-weight:650}
.group{margin:0 0 1.5rem}
.group h3{font-size:1.0625rem;margin:0 0 .35rem}
.checks{display:block;color:var(--muted);font-size:.875rem;font-weight:400;margin-top:.2rem}
.reason{overflow-wrap:anywhere}
@media (min-width:64rem){.reason{min-width:12rem}}
.digest{margin-top:.35rem;font-size:.8125rem}
.digest summary{cursor:pointer;color:var(--muted)}
.digest>code{display:block;margin-top:.25rem;overflow-wrap:anywhere}
.signals{display:grid;grid-template-columns:repeat(auto-fit,minmax(13rem,1fr));gap:.75rem 1.5rem;
margin:0;padding:1rem 1.25rem}
.signals dt{color:var(--muted);font-size:.8125rem;font-weight:600}
.signals dd{margin:0;font-weight:550}
.note time{display:inline}
:root{--brand:var(--accent)}
.vendor{display:flex;flex-wrap:wrap;align-items:center;gap:.75rem 1.25rem;padding:1rem 1.25rem;
margin:0 0 1rem;border-left:6px solid var(--brand)}
.vendor img{width:3.5rem;height:3.5rem;object-fit:contain;border-radius:8px;flex:none}
.vendor div{flex:1 1 16rem;min-width:0}
.vendor p{margin:.15rem 0 0;color:var(--muted);font-size:.875rem}
.vendor .who{margin:0;color:var(--fg);font-size:1.0625rem;font-weight:650}
.vendor ul{display:flex;flex-wrap:wrap;gap:.25rem 1.25rem;margin:.35rem 0 0;padding:0;
list-style:none;font-size:.875rem}
.tag{display:inline-block;margin-left:.5rem;padding:.05rem .55rem;border-radius:999px;
background:var(--brand);color:#fff;font-size:.75rem;font-weight:650;vertical-align:.1em}
footer{color:var(--muted);font-size:.875rem;padding-bottom:2rem}
footer p{margin:0 0 .4rem;max-width:48rem}
@media (min-width:52rem){.wrap{padding-left:2rem;padding-right:2rem}
main{padding-top:2.5rem}.hero{grid-template-columns:minmax(0,1.6fr) minmax(16rem,1fr);
padding:2rem;align-items:center}}
@media (max-width:63.99rem){.table{background:none;border:0;border-radius:0}
table,tbody{display:block}
thead{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%)}
tbody tr{display:grid;grid-template-columns:repeat(auto-fit,minmax(9rem,1fr));gap:.9rem 1rem;
background:var(--surface);border:1px solid var(--border);border-radius:10px;padding:1rem;
margin-bottom:.75rem}
tbody th,tbody td{display:block;border:0;padding:0;min-width:0}
tbody th{grid-column:1/-1;font-size:1.0625rem}
tbody td.reason{grid-column:1/-1}
tbody td::before{content:attr(data-label);display:block;margin-bottom:.2rem;color:var(--muted);
font-size:.75rem;font-weight:650;letter-spacing:.04em;text-transform:uppercase}}
@media (max-width:40rem){.counts{grid-template-columns:1fr;gap:.5rem}
.counts li{display:grid;grid-template-columns:2.75rem minmax(0,1fr);align-items:center;
border-top-width:1px;border-left:4px solid var(--st);padding:.6rem .85rem}
.counts .n{grid-row:span 2}
.counts .rel{grid-column:2}}
`;

let cachedHash: string | null = null;

/**
 * The CSP source expression that allows the trust-page stylesheet and nothing else,
 * `'sha256-<base64>'` of the exact text of TRUST_PAGE_STYLE (what the browser hashes is
 * the element's text, which the renderers write verbatim). Serve trust pages with
 * `style-src` set to this value.
 */
export function styleHash(): string {
  cachedHash ??= cssHash(TRUST_PAGE_STYLE);
  return cachedHash;
}

/** The CSP source expression `'sha256-<base64>'` of one `<style>` element's exact text. */
export function cssHash(css: string): string {
  return `'sha256-${createHash("sha256").update(css).digest("base64")}'`;
}

/** What a page shows beyond the shared stylesheet. */
export interface CspOptions {
  /** Further `<style>` texts on the page (the vendor's brand colour), allowed by hash. */
  styles?: readonly string[];
  /** The page shows images served by the service itself (the vendor's logo). */
  images?: boolean;
}

/**
 * The complete Content-Security-Policy value for a trust page: nothing may load, run,
 * submit, frame or rebase; only the inline stylesheets apply, and, on pages that show a
 * logo, images from the service itself (`img-src 'self'`).
 */
export function trustPageCsp(options: CspOptions = {}): string {
  const styles = [styleHash(), ...(options.styles ?? []).map(cssHash)];
  return [
    "default-src 'none'",
    `style-src ${styles.join(" ")}`,
    ...(options.images ? ["img-src 'self'"] : []),
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
}
