import { publicProcedure, router } from "../init.ts";

export const geoRouter = router({
  /** The visitor's own country, shown when writing a bottle and before a chat. */
  me: publicProcedure.query(({ ctx }) => {
    const { code, name } = ctx.requester.country();
    return { code, name };
  }),
});
