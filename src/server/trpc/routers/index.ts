import { publicProcedure, router } from "../init.ts";
import { authRouter } from "./auth.ts";
import { bottlesRouter } from "./bottles.ts";
import { chatRouter } from "./chat.ts";
import { contactRouter } from "./contact.ts";
import { geoRouter } from "./geo.ts";
import { moderationRouter } from "./moderation.ts";
import { powRouter } from "./pow.ts";
import { translateRouter } from "./translate.ts";

export const appRouter = router({
  auth: authRouter,
  bottles: bottlesRouter,
  chat: chatRouter,
  contact: contactRouter,
  geo: geoRouter,
  moderation: moderationRouter,
  pow: powRouter,
  site: router({
    /** Which parts of the site are on; a part switched off shows a calm resting page. */
    features: publicProcedure.query(({ ctx }) => ctx.features.states),
  }),
  translate: translateRouter,
});

/** The one type the web imports from the server. */
export type AppRouter = typeof appRouter;
