import { useEffect, useState } from "react";

/** `value` once it has not changed for `delayMs` (compared as JSON: a form rebuilds its body on
 * every render): what a form asks the backend about while the user types. */
export function useSettled<T>(value: T, delayMs: number): T {
  const [settled, setSettled] = useState(value);
  const text = JSON.stringify(value);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `text` stands for `value`.
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), delayMs);
    return () => clearTimeout(timer);
  }, [text, delayMs]);
  return settled;
}
