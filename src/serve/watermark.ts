/**
 * Stamps a PDF with who it was provided to, at download time, through @cantoo/pdf-lib (the
 * maintained fork of pdf-lib): a line at the foot of every page and the same words in the
 * document's Subject. A PDF the library cannot rewrite (encrypted, damaged) is reported as
 * not watermarked, so the caller can serve the original and log that it did. The library loads
 * on the first PDF stamped or counted, not at start.
 */
import { pdfPageObjects } from "../lib/document_type.ts";
import type { LimiterOptions } from "../lib/limiter.ts";

let pdfLib: Promise<typeof import("@cantoo/pdf-lib")> | undefined;

/** @cantoo/pdf-lib, loaded on first use (a failed load is tried again next time). */
function loadPdfLib(): Promise<typeof import("@cantoo/pdf-lib")> {
  pdfLib ??= import("@cantoo/pdf-lib");
  pdfLib.catch(() => pdfLib = undefined);
  return pdfLib;
}

/**
 * PDF work one instance does at once: two stampings or page counts run, eight more wait up
 * to 30 s each, and anything beyond is answered 503 with Retry-After. A stamp of a
 * 2 000-page PDF (the upload limit) takes about a second, so a full queue drains in seconds.
 */
export const STAMPING_LIMITS: LimiterOptions = { concurrency: 2, maxWaiting: 8, maxWaitMs: 30_000 };

/** The words stamped on each page. */
export function watermarkText(email: string, at: Date): string {
  return `Provided to ${email} on ${at.toISOString().slice(0, 10)}`;
}

/** The stamped PDF, or null when this PDF cannot be stamped. */
export async function watermarkPdf(
  bytes: Uint8Array,
  options: { email: string; at: Date },
): Promise<Uint8Array | null> {
  const text = watermarkText(options.email, options.at);
  const { PDFDocument, rgb, StandardFonts } = await loadPdfLib();
  try {
    const doc = await PDFDocument.load(bytes, { updateMetadata: false });
    const font = await doc.embedFont(StandardFonts.Helvetica);
    for (const page of doc.getPages()) {
      const { width } = page.getSize();
      const size = Math.max(6, Math.min(9, (width - 40) / (text.length * 0.5)));
      page.drawText(text, { x: 20, y: 12, size, font, color: rgb(0.35, 0.35, 0.35) });
    }
    doc.setSubject(text);
    return await doc.save();
  } catch {
    return null;
  }
}

/**
 * How many pages a PDF has, counted for the upload limit: the page objects visible in its
 * uncompressed bytes first (so a huge PDF is refused without a parse), then, when those
 * stay within `limit`, the page tree as the library reads it (pages in compressed object
 * streams included). A PDF the library cannot read is counted by its visible page objects.
 */
export async function countPdfPages(bytes: Uint8Array, limit: number): Promise<number> {
  const visible = pdfPageObjects(bytes);
  if (visible > limit) return visible;
  const { PDFDocument } = await loadPdfLib();
  try {
    const doc = await PDFDocument.load(bytes, {
      updateMetadata: false,
      ignoreEncryption: true,
      throwOnInvalidObject: false,
    });
    return Math.max(visible, doc.getPageCount());
  } catch {
    return visible;
  }
}
