import { z } from "zod";

/**
 * zod as the shared schemas use it. In the browser it never compiles parsers with `new
 * Function`: the page's Content-Security-Policy forbids eval, and zod's probe for it is reported
 * as a violation (a console issue) even though zod catches it. The server keeps the fast path.
 */
if (typeof document !== "undefined") z.config({ jitless: true });

export { z };
