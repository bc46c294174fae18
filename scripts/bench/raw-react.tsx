/**
 * Baseline for the front end's weight: the smallest React 19 app, bundled and minified by Bun
 * like the site (run.ts builds it and gzips the output). Never served.
 */
import { createRoot } from "react-dom/client";

const root = document.getElementById("root");
if (root) createRoot(root).render(<h1>Tidings</h1>);
