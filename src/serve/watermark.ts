/**
 * Stamps a PDF with who it was provided to, at download time, through @cantoo/pdf-lib (the
 * maintained fork of pdf-lib): a line at the foot of every page and the same words in the
 * document's Subject. A PDF the library cannot rewrite (encrypted, damaged) is reported as
 * not watermarked, so the caller can serve the original and log that it did.
 */
import { PDFDocument, rgb, StandardFonts } from "@cantoo/pdf-lib";

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
