/**
 * Organization logos: accepting uploaded bytes (sniffed, size-limited, stored
 * content-addressed), reading them back for their public URL, and forgetting the logo of a
 * deleted organization. Only bytes accepted as a logo are ever served from that URL, with the
 * type they were accepted as.
 */
import type { BlobStore } from "../blobs/mod.ts";
import { AppError, badRequest, notFound } from "../domain/errors.ts";
import { MAX_LOGO_BYTES, MAX_LOGO_PIXELS, type StoredLogo } from "../domain/vendor.ts";
import {
  IMAGE_TYPES,
  imageSize,
  type ImageType,
  looksLikeMarkup,
  sniffImageType,
} from "../lib/image_type.ts";
import { sha256HexSync } from "../lib/hash.ts";
import { logoKey } from "../store/keys.ts";
import { getLogo } from "../store/org_profiles.ts";

const ACCEPTED = "PNG, JPEG or WebP";
const FILE_NAME = /^([0-9a-f]{64})\.(png|jpg|webp)$/;

/**
 * Checks uploaded logo bytes and stores them under their digest. The type is read from the
 * bytes (the declared Content-Type is not trusted): SVG and other markup are 415 with a
 * message that says why, anything else that is not a whole PNG, JPEG or WebP file is 415,
 * an empty body 400, more than 256 KiB 413, and an image whose header declares more than
 * MAX_LOGO_PIXELS in width or height 413 (a header without a size is 415). Nothing is
 * stored when refused.
 */
export async function storeLogo(blobs: BlobStore, bytes: Uint8Array): Promise<StoredLogo> {
  if (bytes.byteLength === 0) throw badRequest(`The request body must be a ${ACCEPTED} image`);
  if (bytes.byteLength > MAX_LOGO_BYTES) {
    throw new AppError("payload_too_large", `A logo may be at most ${MAX_LOGO_BYTES} bytes`);
  }
  const contentType = sniffImageType(bytes);
  if (contentType === null) {
    const why = looksLikeMarkup(bytes)
      ? "SVG and other markup can carry scripts, so logos must be raster images"
      : "the bytes are not a whole image of an accepted type";
    throw new AppError("unsupported_media_type", `Logo refused: ${why} (${ACCEPTED}).`);
  }
  const size = imageSize(bytes, contentType);
  if (size === null || size.width === 0 || size.height === 0) {
    throw new AppError(
      "unsupported_media_type",
      `Logo refused: the image header declares no size (${ACCEPTED}).`,
    );
  }
  if (!withinLimit(bytes, contentType)) {
    throw new AppError(
      "payload_too_large",
      `A logo may be at most ${MAX_LOGO_PIXELS} × ${MAX_LOGO_PIXELS} pixels; this one declares ` +
        `${size.width} × ${size.height}`,
    );
  }
  const sha256 = sha256HexSync(bytes);
  await blobs.put("logo", bytes);
  return { sha256, contentType, size: bytes.byteLength };
}

/** A public logo by its file name (`<sha256>.<ext>`): its bytes and type, or 404. */
export async function readLogo(
  source: { kv: Deno.Kv; blobs: BlobStore },
  fileName: string,
): Promise<{ bytes: Uint8Array; contentType: StoredLogo["contentType"]; sha256: string }> {
  const match = fileName.match(FILE_NAME);
  const record = match ? await getLogo(source.kv, match[1]) : null;
  if (!match || !record || IMAGE_TYPES[record.contentType] !== match[2]) {
    throw notFound("No logo by that name");
  }
  const bytes = await source.blobs.get(`logo/${match[1]}`);
  if (!bytes) throw notFound("No logo by that name");
  // Logos stored before the pixel limit are measured again: an oversized one is not served.
  if (!withinLimit(bytes, record.contentType)) throw notFound("No logo by that name");
  return { bytes, contentType: record.contentType, sha256: match[1] };
}

/** Attempts at removing a logo's record while profiles keep choosing it. */
const FORGET_ATTEMPTS = 5;

/** Whether some organization's profile shows the logo `sha256` (reads every profile once). */
async function shownByAProfile(kv: Deno.Kv, sha256: string): Promise<boolean> {
  const profiles = kv.list<{ logo?: { sha256?: string } | null }>(
    { prefix: ["organization_profiles"] },
    { batchSize: 500 },
  );
  for await (const entry of profiles) if (entry.value?.logo?.sha256 === sha256) return true;
  return false;
}

/**
 * Forgets the logo `sha256` of a deleted organization unless another organization's profile
 * shows the same bytes: its record goes, so its public URL answers 404 and the blob collector
 * (which counts the record as a reference) may remove its bytes. A profile that chooses the
 * same logo meanwhile writes the record again, which the removal is checked against: it then
 * looks again. Returns whether the record was removed. Call once the organization's own
 * profile is gone.
 */
export async function forgetUnsharedLogo(kv: Deno.Kv, sha256: string): Promise<boolean> {
  for (let attempt = 0; attempt < FORGET_ATTEMPTS; attempt++) {
    const record = await kv.get(logoKey(sha256));
    if (record.versionstamp === null || await shownByAProfile(kv, sha256)) return false;
    if ((await kv.atomic().check(record).delete(record.key).commit()).ok) return true;
  }
  throw new Error(`The logo ${sha256} kept being chosen while it was being forgotten`);
}

/** Whether the image's declared size is known and at most MAX_LOGO_PIXELS each way. */
function withinLimit(bytes: Uint8Array, type: ImageType): boolean {
  const size = imageSize(bytes, type);
  return size !== null && size.width <= MAX_LOGO_PIXELS && size.height <= MAX_LOGO_PIXELS;
}
