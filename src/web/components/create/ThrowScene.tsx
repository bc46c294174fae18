import { Bottle, type BottleVariant } from "../Bottle.tsx";
import { WaveBand } from "../WaveBand.tsx";

/** The bottle tossed into the waves after a successful throw (still when motion is reduced). */
export function ThrowScene({
  variant,
  title,
  body,
}: {
  variant: BottleVariant;
  title: string;
  body: string;
}) {
  return (
    <div className="throw-scene" data-testid="throw-scene">
      <div className="throw-scene__stage" aria-hidden="true">
        <span className="throw-scene__moon" />
        <span className="throw-scene__splash" />
        <div className="throw-scene__drift">
          <div className="throw-scene__flight">
            <div className="throw-scene__arc">
              <Bottle variant={variant} className="throw-scene__bottle" />
            </div>
          </div>
        </div>
        <div className="throw-scene__sea">
          <WaveBand className="throw-scene__wave" back />
          <WaveBand className="throw-scene__wave" />
        </div>
      </div>
      <p className="throw-scene__title">{title}</p>
      <p className="throw-scene__body">{body}</p>
    </div>
  );
}
