/**
 * A buyer's CSV read into a grid, and written back with chosen fields replaced.
 *
 * The encoding is read from the bytes: a byte order mark (UTF-8, UTF-16LE, UTF-16BE), else
 * UTF-16 recognised by its NUL bytes, else UTF-8 when the bytes are valid UTF-8, else
 * Windows-1252. The delimiter is the one of comma, semicolon and tab that splits the first
 * records most consistently. Fields follow RFC 4180 (quoted fields may hold delimiters, quotes
 * doubled, and line breaks); an unterminated quote, or text right after a closing quote, is
 * malformed. Writing keeps every record as it was, byte for byte once encoded, except the
 * replaced fields and fields a spreadsheet would read as a formula (made inert like the
 * answers export, see lib/spreadsheet_text.ts), and keeps the encoding (with its byte order mark), delimiter and each
 * record's own line ending.
 */
import { csvField, inertSpreadsheetText } from "../lib/spreadsheet_text.ts";
import { type Grid, newGrid, setCell } from "./grid.ts";
import { type CsvEncoding, QuestionnaireFileError, type QuestionnaireLimits } from "./types.ts";

export const CSV_SHEET = "CSV";

export interface CsvRecord {
  /** Each field as written (quotes included) and as read. */
  raw: string[];
  values: string[];
  /** The line ending after it: "\r\n", "\n", "\r" or "" at the end of the file. */
  ending: string;
}

export interface ParsedCsv {
  encoding: CsvEncoding;
  bom: boolean;
  delimiter: string;
  records: CsvRecord[];
}

function malformed(message: string): QuestionnaireFileError {
  return new QuestionnaireFileError("malformed", `Not a readable CSV file: ${message}.`);
}

/** The text of the bytes, with the encoding it was read in. */
export function decodeCsv(
  bytes: Uint8Array,
): { text: string; encoding: CsvEncoding; bom: boolean } {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    return { text: decode("utf-8", bytes.subarray(3)), encoding: "utf-8", bom: true };
  }
  if (bytes[0] === 0xff && bytes[1] === 0xfe) {
    return { text: decode("utf-16le", bytes.subarray(2)), encoding: "utf-16le", bom: true };
  }
  if (bytes[0] === 0xfe && bytes[1] === 0xff) {
    return { text: decode("utf-16be", bytes.subarray(2)), encoding: "utf-16be", bom: true };
  }
  const sample = bytes.subarray(0, 4096);
  let evenNuls = 0;
  let oddNuls = 0;
  for (let i = 0; i < sample.length; i++) {
    if (sample[i] === 0) {
      if (i % 2 === 0) evenNuls++;
      else oddNuls++;
    }
  }
  const half = sample.length / 2;
  if (oddNuls > half * 0.3 && evenNuls === 0) {
    return { text: decode("utf-16le", bytes), encoding: "utf-16le", bom: false };
  }
  if (evenNuls > half * 0.3 && oddNuls === 0) {
    return { text: decode("utf-16be", bytes), encoding: "utf-16be", bom: false };
  }
  if (evenNuls + oddNuls > 0) {
    throw new QuestionnaireFileError("unsupported_type", "The file is neither XLSX nor CSV text.");
  }
  try {
    return {
      text: new TextDecoder("utf-8", { fatal: true }).decode(bytes),
      encoding: "utf-8",
      bom: false,
    };
  } catch {
    return { text: decode("windows-1252", bytes), encoding: "windows-1252", bom: false };
  }
}

function decode(encoding: string, bytes: Uint8Array): string {
  try {
    return new TextDecoder(encoding, { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw malformed(`the bytes are not valid ${encoding}`);
  }
}

/** Control characters besides tab, line breaks and form feed: not a text file. */
export function looksBinary(text: string): boolean {
  const sample = text.slice(0, 8192);
  // deno-lint-ignore no-control-regex
  const controls = sample.match(/[\u0000-\u0008\u000e-\u001f\u007f]/g)?.length ?? 0;
  return controls > 0 && controls * 100 > sample.length;
}

/** Records split with a delimiter, limits checked; null fields past a malformed quote throw. */
export function splitCsv(
  text: string,
  delimiter: string,
  limits: QuestionnaireLimits,
  maxRecords = Infinity,
): CsvRecord[] {
  const records: CsvRecord[] = [];
  let raw: string[] = [];
  let values: string[] = [];
  let at = 0;
  const length = text.length;
  if (length === 0) return records;
  while (at <= length && records.length < maxRecords) {
    // One field.
    const start = at;
    let value: string;
    if (text[at] === '"') {
      let i = at + 1;
      const parts: string[] = [];
      for (;;) {
        const quote = text.indexOf('"', i);
        if (quote < 0) {
          throw malformed(`a quoted field opened in record ${records.length + 1} never ends`);
        }
        parts.push(text.slice(i, quote));
        if (text[quote + 1] === '"') {
          parts.push('"');
          i = quote + 2;
          continue;
        }
        at = quote + 1;
        break;
      }
      value = parts.join("");
      const next = text[at];
      if (at < length && next !== delimiter && next !== "\r" && next !== "\n") {
        throw malformed(`text follows a closing quote in record ${records.length + 1}`);
      }
    } else {
      let i = at;
      while (i < length) {
        const c = text[i];
        if (c === delimiter || c === "\r" || c === "\n") break;
        i++;
      }
      value = text.slice(at, i);
      at = i;
    }
    raw.push(text.slice(start, at));
    values.push(value);
    if (value.length > limits.maxCellChars) {
      throw new QuestionnaireFileError(
        "over_limit",
        `Record ${records.length + 1} has a field longer than ${limits.maxCellChars} characters.`,
      );
    }
    if (values.length > limits.maxColumns) {
      throw new QuestionnaireFileError(
        "over_limit",
        `Record ${records.length + 1} has more than ${limits.maxColumns} fields.`,
      );
    }
    if (at < length && text[at] === delimiter) {
      at++;
      if (at === length) {
        raw.push("");
        values.push("");
      } else continue;
    }
    let ending = "";
    if (text[at] === "\r" && text[at + 1] === "\n") ending = "\r\n";
    else if (text[at] === "\r" || text[at] === "\n") ending = text[at];
    at += ending.length;
    records.push({ raw, values, ending });
    raw = [];
    values = [];
    if (at >= length) break;
  }
  return records;
}

const DELIMITERS = [",", ";", "\t"];

/** The delimiter that splits the first records into the most consistent, widest rows. */
export function detectDelimiter(text: string, limits: QuestionnaireLimits): string {
  let best = ",";
  let bestScore = -1;
  for (const delimiter of DELIMITERS) {
    let records: CsvRecord[];
    try {
      records = splitCsv(text, delimiter, { ...limits, maxColumns: Infinity }, 20);
    } catch {
      continue;
    }
    const widths = records.map((record) => record.values.length).filter((n) => n > 1);
    if (widths.length === 0) continue;
    const counts = new Map<number, number>();
    for (const width of widths) counts.set(width, (counts.get(width) ?? 0) + 1);
    const [mode, consistent] = [...counts].sort((a, b) => b[1] - a[1] || b[0] - a[0])[0];
    const score = consistent * 1000 + mode;
    if (score > bestScore) {
      best = delimiter;
      bestScore = score;
    }
  }
  return best;
}

/** A CSV file read: encoding, delimiter, records; refused past the limits. */
export function parseCsv(bytes: Uint8Array, limits: QuestionnaireLimits): ParsedCsv {
  const { text, encoding, bom } = decodeCsv(bytes);
  if (looksBinary(text)) {
    throw new QuestionnaireFileError("unsupported_type", "The file is neither XLSX nor CSV text.");
  }
  const delimiter = detectDelimiter(text, limits);
  const records = splitCsv(text, delimiter, limits, limits.maxRowsPerSheet + 1);
  if (records.length > limits.maxRowsPerSheet) {
    throw new QuestionnaireFileError(
      "over_limit",
      `The CSV file has more than ${limits.maxRowsPerSheet} rows.`,
    );
  }
  return { encoding, bom, delimiter, records };
}

/** The records as a grid (one sheet named "CSV"). */
export function csvGrid(csv: ParsedCsv, limits: QuestionnaireLimits): Grid {
  const grid = newGrid(CSV_SHEET);
  csv.records.forEach((record, index) => {
    record.values.forEach((value, column) =>
      setCell(grid, index + 1, column + 1, value.trim(), limits)
    );
  });
  return grid;
}

/** The CSV with fields replaced (row → column → text), in the input's encoding and layout. */
export function writeCsv(csv: ParsedCsv, writes: Map<number, Map<number, string>>): Uint8Array {
  const lines = csv.records.map((record, index) => {
    const wanted = writes.get(index + 1);
    // The buyer's own fields that a spreadsheet would run as formulas are made inert too.
    const raw = record.raw.map((field, i) =>
      inertSpreadsheetText(record.values[i]) === record.values[i]
        ? field
        : csvField(record.values[i])
    );
    if (!wanted) return raw.join(csv.delimiter) + record.ending;
    const width = Math.max(raw.length, ...wanted.keys());
    while (raw.length < width) raw.push("");
    for (const [column, text] of wanted) raw[column - 1] = csvField(text);
    return raw.join(csv.delimiter) + record.ending;
  });
  return encodeText((csv.bom ? "\ufeff" : "") + lines.join(""), csv.encoding);
}

let windows1252: Map<string, number> | null = null;

/** Text in one of the encodings a CSV is read in; what Windows-1252 lacks becomes "?". */
export function encodeText(text: string, encoding: CsvEncoding): Uint8Array {
  if (encoding === "utf-8") return new TextEncoder().encode(text);
  if (encoding === "windows-1252") {
    if (!windows1252) {
      windows1252 = new Map();
      const decoder = new TextDecoder("windows-1252");
      for (let byte = 0; byte < 256; byte++) {
        windows1252.set(decoder.decode(new Uint8Array([byte])), byte);
      }
    }
    const table = windows1252;
    const out: number[] = [];
    for (const char of text) out.push(table.get(char) ?? 0x3f);
    return new Uint8Array(out);
  }
  const out = new Uint8Array(text.length * 2);
  const little = encoding === "utf-16le";
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    out[2 * i] = little ? code & 0xff : code >> 8;
    out[2 * i + 1] = little ? code >> 8 : code & 0xff;
  }
  return out;
}
