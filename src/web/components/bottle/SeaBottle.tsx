import { Link } from "@tanstack/react-router";
import { useId } from "react";
import type { BottleCard as BottleCardData } from "../../../common/bottles.ts";
import { localizedPath } from "../../../common/locales.ts";
import { CloudLightning, LoaderCircle, PenLine, RotateCcw, Waves } from "../../icons.ts";
import { useFeature } from "../../lib/features.ts";
import { useI18n } from "../../lib/i18n.tsx";
import { trpc } from "../../lib/trpc.ts";
import { Bottle } from "../Bottle.tsx";
import { BottleCard } from "../BottleCard.tsx";
import { BottleModal } from "./BottleModal.tsx";

/**
 * What a floating bottle on the home page holds: a random public bottle, in the same dialog as
 * on the Public Bottles page. `pick` (0 to 1) chooses which; with none, the sea is empty.
 */
export function SeaBottle({
  open,
  onOpenChange,
  pick,
  kept,
  returnFocus,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  pick: number;
  /** A bottle the visitor was reading before: this one instead of a pick (as listed now). */
  kept?: BottleCardData;
  /** What takes focus when the dialog closes (the clicked bottle is drifting away). */
  returnFocus: () => HTMLElement | null | undefined;
}) {
  const { LL, prefix } = useI18n();
  const headingId = useId();
  // While the public collection rests, its bottles are not asked for (a refusal says so too).
  const publicOn = useFeature("publicBottles");
  const list = trpc.bottles.publicList.useQuery(undefined, { enabled: open && publicOn });
  const bottles = list.data?.bottles ?? [];
  const bottle = kept
    ? (bottles.find((b) => b.id === kept.id) ?? kept)
    : bottles[Math.floor(pick * bottles.length)];

  let body: React.ReactNode;
  if (!publicOn) {
    body = (
      <div className="bottle-modal__state" role="status">
        <Waves aria-hidden="true" className="bottle-modal__state-icon" />
        <h2 id={headingId}>{LL.resting.publicBottles.title()}</h2>
        <p>{LL.resting.notYou()}</p>
      </div>
    );
  } else if (bottle) {
    body = (
      <BottleCard
        key={bottle.id}
        bottle={bottle}
        headingId={headingId}
        className="bottle-card--modal"
      />
    );
  } else if (list.isError) {
    body = (
      <div className="bottle-modal__state" role="alert">
        <CloudLightning aria-hidden="true" className="bottle-modal__state-icon" />
        <h2 id={headingId}>{LL.publicBottles.error()}</h2>
        <button type="button" className="button button--primary" onClick={() => list.refetch()}>
          <RotateCcw aria-hidden="true" />
          {LL.common.tryAgain()}
        </button>
      </div>
    );
  } else if (list.isPending) {
    body = (
      <div className="bottle-modal__state" role="status">
        <LoaderCircle aria-hidden="true" className="spinner bottle-modal__state-icon" />
        <h2 id={headingId}>{LL.common.loading()}</h2>
      </div>
    );
  } else {
    body = (
      <div className="bottle-modal__state">
        <Bottle variant="blue" className="bottle-modal__state-icon" />
        <h2 id={headingId}>{LL.home.sea.emptySeaTitle()}</h2>
        <p>{LL.home.sea.emptySeaBody()}</p>
        <Link
          to={localizedPath(prefix, "create")}
          className="button button--primary"
          onClick={() => onOpenChange(false)}
        >
          <PenLine aria-hidden="true" />
          {LL.home.actions.write()}
        </Link>
      </div>
    );
  }

  return (
    <BottleModal
      open={open}
      onOpenChange={onOpenChange}
      labelledBy={headingId}
      returnFocus={returnFocus}
    >
      {body}
    </BottleModal>
  );
}
