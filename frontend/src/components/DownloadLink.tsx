import { type MouseEvent, type ReactNode, useState } from "react";
import { errorMessage } from "../api/client";
import { downloadFromApi } from "../lib/download";

interface Props {
  /** The API path to download (also the link's own href, for "copy link address"). */
  href: string;
  filename: string;
  className?: string;
  children: ReactNode;
}

/**
 * A download link whose click fetches the file with the API token (lib/download.ts) and saves
 * it; a click with a modifier key is left to the browser (new tab, save as). A failure is
 * shown next to the link with the API's sentence.
 */
export function DownloadLink({ href, filename, className, children }: Props) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const onClick = async (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) {
      return;
    }
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      await downloadFromApi(href, filename);
    } catch (failure) {
      setError(`Could not download ${filename}: ${errorMessage(failure)}`);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <a className={className} href={href} download={filename} onClick={onClick} aria-busy={busy}>
        {children}
      </a>
      {error && (
        <span role="alert" className="error small">
          {error}
        </span>
      )}
    </>
  );
}
