import { useId, useRef, useState } from "react";
import "./tunings.css";

/** Selects the text of `element`, for copying by hand where the clipboard cannot be written. */
function selectText(element: HTMLElement | null) {
  const selection = globalThis.getSelection?.();
  if (!element || !selection) return;
  const range = document.createRange();
  range.selectNodeContents(element);
  selection.removeAllRanges();
  selection.addRange(range);
}

/**
 * A block to paste, in a <pre>, with a Copy button (navigator.clipboard); where the clipboard
 * cannot be written (no secure context, permission refused) the block is selected and a message
 * says to copy it by hand.
 */
export function PasteBlock({
  title,
  hint,
  text,
  testId,
}: {
  title: string;
  hint: string;
  text: string;
  testId: string;
}) {
  const id = useId();
  const pre = useRef<HTMLPreElement>(null);
  const [copied, setCopied] = useState<"yes" | "no" | null>(null);
  const fallback = () => {
    setCopied("no");
    selectText(pre.current);
  };
  const copy = () => {
    setCopied(null);
    const clipboard = globalThis.navigator?.clipboard;
    if (!clipboard?.writeText) return fallback();
    clipboard.writeText(text).then(() => setCopied("yes"), fallback);
  };
  return (
    <div className="command paste-block" data-testid={testId}>
      <div className="section-head">
        <h3 id={`${id}-title`}>{title}</h3>
        <button type="button" className="button-small" onClick={copy} aria-label={`Copy ${title}`}>
          Copy
        </button>
        <span className="small muted" aria-live="polite">
          {copied === "yes"
            ? "Copied."
            : copied === "no"
              ? "Could not copy here (the browser does not allow it): the block is selected, copy it with Ctrl+C or ⌘C."
              : ""}
        </span>
      </div>
      <p className="muted small">{hint}</p>
      <pre ref={pre} className="code-block">
        {text}
      </pre>
    </div>
  );
}
