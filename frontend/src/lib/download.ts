// Downloads of API answers (the JUnit XML of a check, folded stacks) through the one API client,
// so they carry the token like every other request: a plain link would get a 401 body saved as
// the file whenever the backend wants one for reads.

import { ApiError, authorizedFetch, responseDetail } from "../api/client";

/** Fetches `path` (an API path, e.g. `/api/v1/checks/x?format=junit`) and saves it as `filename`. */
export async function downloadFromApi(path: string, filename: string): Promise<void> {
  const base = globalThis.location?.origin ?? "http://127.0.0.1:8000";
  const response = await authorizedFetch(new Request(new URL(path, base)));
  if (!response.ok) throw new ApiError(response.status, await responseDetail(response));
  saveBlob(await response.blob(), filename);
}

// Long enough for any browser to have started reading the object URL before it is revoked.
const REVOKE_AFTER_MS = 60_000;

/** Saves `blob` as `filename` the way a link with a `download` attribute would. */
export function saveBlob(blob: Blob, filename: string) {
  const url = URL.createObjectURL(blob);
  const anchor = document.createElement("a");
  anchor.href = url;
  anchor.download = filename;
  anchor.rel = "noopener";
  anchor.style.display = "none";
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  setTimeout(() => URL.revokeObjectURL(url), REVOKE_AFTER_MS);
}
