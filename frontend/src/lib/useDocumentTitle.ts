import { useEffect } from "react";

/** Sets the tab's title so shared links and history entries say which page they are. */
export function useDocumentTitle(title: string) {
  useEffect(() => {
    document.title = title ? `${title} · TraceTax` : "TraceTax";
  }, [title]);
}
