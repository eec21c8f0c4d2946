/**
 * The API client: JSON in and out (text or a file's bytes on request, files as raw bodies), the
 * bearer token attached, one renewal and retry on 401, errors in the API's
 * `{ error: { code, message } }` envelope turned into ApiError, and lists in pages read whole
 * up to a bound.
 */

/** The largest page a paged list gives (`limit`), and how many entries `getAll` reads at most. */
export const MAX_PAGE = 500;
export const ALL_AT_MOST = 2000;

/** The hint of a picker fed by `getAll`: null when the list is whole, else what it leaves out. */
export function partialHint({ complete, items }, noun) {
  if (complete) return null;
  return `Only the first ${
    items.length.toLocaleString("en-US")
  } ${noun} (oldest first) are listed.`;
}

/** `path` with its query's `name` set to `value`. */
export function withQuery(path, name, value) {
  const [pathname, search = ""] = path.split("?");
  const query = new URLSearchParams(search);
  query.set(name, value);
  return `${pathname}?${query}`;
}

/** An API call that did not succeed; `message` is safe to show. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** The client for the signed-in session of `auth`. */
export function createApi(auth) {
  async function send(method, path, body, token, accept = "application/json") {
    const headers = { accept };
    if (token) headers.authorization = `Bearer ${token}`;
    const raw = body instanceof Blob;
    if (raw) headers["content-type"] = body.type || "application/octet-stream";
    else if (body !== undefined) headers["content-type"] = "application/json";
    try {
      return await fetch(path, {
        method,
        headers,
        body: body === undefined || raw ? body : JSON.stringify(body),
      });
    } catch {
      throw new ApiError(0, "network", "The service cannot be reached; check your connection");
    }
  }

  /** The response, after one renewal and retry on 401; a second 401 ends the session. */
  async function call(method, path, body, accept) {
    let res = await send(method, path, body, await auth.accessToken(), accept);
    if (res.status === 401) {
      await res.body?.cancel();
      const token = await auth.refresh();
      if (token) res = await send(method, path, body, token, accept);
    }
    if (res.status === 401) {
      await res.body?.cancel();
      auth.endSession();
      throw new ApiError(401, "unauthorized", "Your session has ended; sign in again");
    }
    return res;
  }

  /** The ApiError of a failed response, from its error envelope when it has one. */
  async function failure(res) {
    const data = await res.json().catch(() => null);
    return new ApiError(
      res.status,
      data?.error?.code ?? "http_error",
      data?.error?.message ?? `The request failed (HTTP ${res.status})`,
    );
  }

  async function request(method, path, body, accept) {
    const res = await call(method, path, body, accept);
    if (res.status === 204) return null;
    if (!res.ok) throw await failure(res);
    if (accept) return await res.text();
    return await res.json().catch(() => null);
  }

  /** A file the API sends: its bytes and the name its Content-Disposition gives (or null). */
  async function download(path, accept) {
    const res = await call("GET", path, undefined, accept);
    if (!res.ok) throw await failure(res);
    return { blob: await res.blob(), filename: dispositionName(res.headers) };
  }

  /**
   * A paged list read whole: the `key` arrays of its pages, following `nextCursor` in pages of
   * MAX_PAGE, until the last page or `atMost` entries. `complete` is false when entries remain.
   */
  async function getAll(path, key, atMost = ALL_AT_MOST) {
    const items = [];
    let cursor = null;
    do {
      let url = withQuery(path, "limit", String(MAX_PAGE));
      if (cursor) url = withQuery(url, "cursor", cursor);
      const page = await request("GET", url);
      items.push(...page[key]);
      cursor = page.nextCursor ?? null;
    } while (cursor && items.length < atMost);
    return { items: items.slice(0, atMost), complete: !cursor && items.length <= atMost };
  }

  return {
    get: (path) => request("GET", path),
    /** Every entry of a paged list, up to a bound: `{ items, complete }`. */
    getAll,
    /** A text document (e.g. Markdown) instead of JSON; errors still come as the envelope. */
    getText: (path, type) => request("GET", path, undefined, type),
    /** A file (a workbook, a signed manifest): `{ blob, filename }`. */
    download: (path, type = "*/*") => download(path, type),
    post: (path, body) => request("POST", path, body),
    patch: (path, body) => request("PATCH", path, body),
    put: (path, body) => request("PUT", path, body),
    /** Sends a file (a Blob) as the raw body, with its own type. */
    putFile: (path, file) => request("PUT", path, file),
    /** Posts a file (a Blob) as the raw body, with its own type. */
    postFile: (path, file) => request("POST", path, file),
    delete: (path, body) => request("DELETE", path, body),
  };
}

/** The file name of a `Content-Disposition` header (`filename*=UTF-8''…` first), or null. */
function dispositionName(headers) {
  const value = headers.get("content-disposition") ?? "";
  const extended = value.match(/filename\*\s*=\s*UTF-8''([^;]+)/i);
  if (extended) {
    try {
      return decodeURIComponent(extended[1].trim());
    } catch {
      // A malformed name: fall back to the plain one.
    }
  }
  const plain = value.match(/filename\s*=\s*"([^"]*)"|filename\s*=\s*([^;]+)/i);
  return plain ? (plain[1] ?? plain[2]).trim() : null;
}
