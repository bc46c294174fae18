import { contactInput } from "../../../common/contact.ts";
import { sendContactMessage } from "../../../core/contact/contact.ts";
import { powProcedure, router } from "../init.ts";

export const contactRouter = router({
  send: powProcedure("contact")
    .input(contactInput)
    .mutation(async ({ ctx, input }) => {
      await sendContactMessage(
        ctx.db,
        ctx.limiter,
        { ...ctx.requester, locale: ctx.locale },
        input,
        ctx.now(),
      );
      return { ok: true as const };
    }),
});
