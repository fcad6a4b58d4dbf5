import { useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { setToken, useAuth } from "../api/auth";
import "./tokenPrompt.css";

/**
 * Shown above every page once the API answers 401: asks for the backend's token (its
 * TRACETAX_API_TOKEN or the one it generated; the link `make up` prints sets it without asking,
 * see auth.ts), keeps it for this tab (sessionStorage) and loads again what the 401 stopped.
 */
export function TokenPrompt() {
  const auth = useAuth();
  const queryClient = useQueryClient();
  const [value, setValue] = useState("");
  if (!auth.required) return null;

  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!value.trim()) return;
    setToken(value);
    setValue("");
    void queryClient.invalidateQueries();
  };

  return (
    <section className="panel token-prompt" aria-labelledby="token-prompt-title">
      <h2 id="token-prompt-title">
        {auth.refused ? "The API token was refused" : "This TraceTax requires an API token"}
      </h2>
      {auth.refused && (
        <p className="error">The backend did not accept it: enter its current token.</p>
      )}
      <form onSubmit={submit}>
        <div className="field">
          <label htmlFor="api-token">API token</label>
          <input
            id="api-token"
            type="password"
            autoComplete="off"
            spellCheck={false}
            value={value}
            onChange={(event) => setValue(event.target.value)}
            aria-describedby="api-token-hint"
          />
          <p id="api-token-hint" className="hint">
            The backend's <code>TRACETAX_API_TOKEN</code>, or the one it generated: natively, open
            the link <code>make up</code> prints (it logs in), or read{" "}
            <code>~/.local/state/tracetax/api-token</code>. On Kubernetes the chart's install notes
            say how to read it from its Secret; with Docker Compose it is in{" "}
            <code>backend.env</code>. Kept in this tab only, until it is closed.
          </p>
        </div>
        <button type="submit" className="button-primary">
          Use this token
        </button>
      </form>
    </section>
  );
}
