// The public HTTP API with the key a person typed: the console's only way to the belief state.
// The key lives in this tab's sessionStorage and travels in the Authorization header only: never in
// a URL, a cookie or a log line, so the console can do nothing the key cannot.

const KEY_ITEM = "beliefstream.console.key";

export const session = {
  get key() {
    return sessionStorage.getItem(KEY_ITEM);
  },
  set(key) {
    sessionStorage.setItem(KEY_ITEM, key);
  },
  forget() {
    sessionStorage.removeItem(KEY_ITEM);
  },
};

/** An answer of the API that is not a success, said in one line: "403 forbidden: ...". */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(oneLine(`${status ? status + " " : ""}${code}: ${message}`));
    this.status = status;
    this.code = code;
  }
}

export function oneLine(text) {
  return String(text).replace(/\s+/g, " ").trim();
}

function url(path, query) {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query || {})) {
    if (value !== undefined && value !== null && value !== "") params.set(name, value);
  }
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

async function errorOf(response) {
  let code = "error";
  let message = response.statusText || "the request failed";
  try {
    const body = await response.json();
    if (body && body.error) {
      code = body.error.code || code;
      message = body.error.message || message;
      const first = (body.details || [])[0];
      if (first) message += ` (${(first.loc || []).join(".")}: ${first.msg})`;
    }
  } catch {
    // not JSON (a proxy's page): the status says enough
  }
  return new ApiError(response.status, code, message);
}

async function send(method, path, { query, body } = {}) {
  const key = session.key;
  if (!key) throw new ApiError(0, "no key", "enter an API key first");
  const headers = { Authorization: `Bearer ${key}`, Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(url(path, query), {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "omit",
      cache: "no-store",
      redirect: "error",
    });
  } catch {
    throw new ApiError(0, "network", "the sidecar did not answer; is it running?");
  }
  if (!response.ok) throw await errorOf(response);
  return response;
}

/** The JSON answer of one call; an ApiError otherwise. */
export async function call(method, path, options) {
  const response = await send(method, path, options);
  return response.json();
}

/** A download (the export): the body as a Blob. */
export async function fetchBlob(path) {
  const response = await send("GET", path);
  return response.blob();
}

export const seg = encodeURIComponent;
