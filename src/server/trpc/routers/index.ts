import { router } from "../init.ts";
import { authRouter } from "./auth.ts";
import { bottlesRouter } from "./bottles.ts";
import { chatRouter } from "./chat.ts";
import { contactRouter } from "./contact.ts";
import { geoRouter } from "./geo.ts";
import { translateRouter } from "./translate.ts";

export const appRouter = router({
  auth: authRouter,
  bottles: bottlesRouter,
  chat: chatRouter,
  contact: contactRouter,
  geo: geoRouter,
  translate: translateRouter,
});

/** The one type the web imports from the server. */
export type AppRouter = typeof appRouter;
