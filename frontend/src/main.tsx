// The app-wide base sheet first: each feature's own sheet, imported by the feature, comes after
// it in the bundle and so wins over it where both match, as it did in one sheet.
import "./styles.css";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App";

const root = document.getElementById("root");
if (!root) throw new Error("index.html has no #root element");
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
