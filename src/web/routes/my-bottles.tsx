import { type ReactNode, useEffect, useState } from "react";
import type { MyBottle } from "../../common/bottles.ts";
import { Bottle } from "../components/Bottle.tsx";
import { CookiesBlockedNotice } from "../components/CookiesBlockedNotice.tsx";
import { MyBottleCard } from "../components/my-bottles/MyBottleCard.tsx";
import { SinkDialog } from "../components/my-bottles/SinkDialog.tsx";
import { useMyBottles } from "../components/my-bottles/useMyBottles.ts";
import { PageIntro } from "../components/PageIntro.tsx";
import { PageLink } from "../components/PageLink.tsx";
import { CloudLightning, LoaderCircle, PenLine, RotateCcw, ShieldCheck } from "../icons.ts";
import { useCookiesBlocked } from "../lib/cookies.ts";
import { errorMessage } from "../lib/errors.ts";
import { useI18n } from "../lib/i18n.tsx";
import "../components/BottleCard.css";
import "./my-bottles.css";

/** How often the states and times left on screen are brought up to date. */
const CLOCK_TICK_MS = 30_000;

function useNow(): number {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const tick = setInterval(() => setNow(Date.now()), CLOCK_TICK_MS);
    return () => clearInterval(tick);
  }, []);
  return now;
}

/**
 * /{prefix}/my-bottles: the bottles this browser threw (and, signed in, the account threw on
 * any device), newest first, with what became of them; a page of 20 at a time.
 */
export function MyBottlesPage() {
  const { LL } = useI18n();
  const t = LL.myBottles;
  const { list, bottles, sink } = useMyBottles();
  const now = useNow();
  const [sinking, setSinking] = useState<MyBottle | null>(null);
  const cookiesBlocked = useCookiesBlocked();

  let body: ReactNode;
  // Not "no bottles yet": the bottles are known by the cookie the browser refuses.
  if (cookiesBlocked && bottles.length === 0) {
    body = <CookiesBlockedNotice body={LL.common.cookies.myBottles()} reload />;
  } else if (list.isPending) {
    body = (
      <p className="my-bottles__status" role="status">
        <LoaderCircle aria-hidden="true" className="spinner" />
        {t.loading()}
      </p>
    );
  } else if (list.isError && bottles.length === 0) {
    body = (
      <div className="my-bottles__message card" role="alert">
        <CloudLightning aria-hidden="true" className="my-bottles__icon is-error" />
        <p>{t.error()}</p>
        <p className="my-bottles__detail">{errorMessage(LL, list.error)}</p>
        <button type="button" className="button button--primary" onClick={() => list.refetch()}>
          <RotateCcw aria-hidden="true" />
          {LL.common.tryAgain()}
        </button>
      </div>
    );
  } else if (bottles.length === 0) {
    body = (
      <div className="my-bottles__message card">
        <Bottle variant="blue" className="my-bottles__bottle" />
        <h2 className="my-bottles__empty">{t.empty()}</h2>
        <p className="my-bottles__detail">{t.emptyBody()}</p>
        <PageLink to="create" icon={PenLine} className="button button--primary">
          {t.write()}
        </PageLink>
      </div>
    );
  } else {
    body = (
      <>
        <ol className="my-bottles__list" aria-label={t.list()}>
          {bottles.map((bottle) => (
            <MyBottleCard key={bottle.id} bottle={bottle} now={now} onSink={setSinking} />
          ))}
        </ol>
        {list.hasNextPage && (
          <div className="my-bottles__more">
            <button
              type="button"
              className="button button--ghost"
              disabled={list.isFetchingNextPage}
              onClick={() => void list.fetchNextPage()}
            >
              {list.isFetchingNextPage && <LoaderCircle aria-hidden="true" className="spinner" />}
              {list.isFetchingNextPage ? t.loadingMore() : t.more()}
            </button>
          </div>
        )}
        <div role="alert" className="my-bottles__more-error">
          {list.isFetchNextPageError && errorMessage(LL, list.error)}
        </div>
      </>
    );
  }

  return (
    <div className="container--narrow my-bottles">
      <PageIntro title={t.title()}>{t.lead()}</PageIntro>
      <p className="my-bottles__privacy">
        <ShieldCheck aria-hidden="true" />
        <span>{t.privacyNote()}</span>
      </p>
      {body}
      <SinkDialog
        bottle={sinking}
        onClose={() => setSinking(null)}
        sink={(bottleId) => sink.mutateAsync({ bottleId })}
      />
    </div>
  );
}
