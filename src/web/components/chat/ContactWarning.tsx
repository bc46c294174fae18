import { TriangleAlert } from "../../icons.ts";
import { useI18n } from "../../lib/i18n.tsx";

/**
 * Under a chat line with a link, e-mail address, phone number or messenger account (the
 * server marks it): the partner is warned; the visitor who sent one is reminded too.
 */
export function ContactWarning({ own = false }: { own?: boolean }) {
  const t = useI18n().LL.randomChat;
  return (
    <p className={own ? "chat-contact chat-contact--own" : "chat-contact"}>
      <TriangleAlert aria-hidden="true" />
      <span>{own ? t.contactOwn() : t.contactWarning()}</span>
    </p>
  );
}
