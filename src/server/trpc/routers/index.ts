import { router } from "../init.ts";
import { authRouter } from "./auth.ts";
import { contactRouter } from "./contact.ts";

export const appRouter = router({
  auth: authRouter,
  contact: contactRouter,
});

/** The one type the web imports from the server. */
export type AppRouter = typeof appRouter;
