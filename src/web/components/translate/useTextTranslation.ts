import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { toast } from "sonner";
import { type TargetLanguage, targetLanguages } from "../../../common/translation.ts";
import {
  type DeviceReadiness,
  deviceTargets,
  deviceTranslationSupported,
  translateOnDevice,
} from "../../lib/device-translation.ts";
import { appCodeOf, errorMessage } from "../../lib/errors.ts";
import { useI18n } from "../../lib/i18n.tsx";
import { languageName } from "./languages.ts";

/** Who translates into a language: the browser on this device, or the site's server. */
export type TranslationRoute = "device" | "server";
/** Each language the menu may offer and who would translate it; a missing one is unavailable. */
export type TranslationRoutes = ReadonlyMap<TargetLanguage, TranslationRoute>;

export interface Translated {
  text: string;
  target: TargetLanguage;
  /** Translated by the browser: the text never left the device. */
  onDevice: boolean;
}

/**
 * Only what works right now: the device when its model is ready (the text stays on the device),
 * otherwise the server when it can translate this text. A language the browser would first
 * have to download is not offered: it may never come.
 */
function routesFor(
  server: ReadonlySet<TargetLanguage>,
  device: ReadonlyMap<TargetLanguage, DeviceReadiness> | undefined,
): TranslationRoutes {
  const routes = new Map<TargetLanguage, TranslationRoute>();
  for (const target of targetLanguages) {
    if (device?.get(target) === "ready") routes.set(target, "device");
    else if (server.has(target)) routes.set(target, "server");
  }
  return routes;
}

/**
 * One text's translation (a bottle, a partner's message): which languages are offered and by
 * whom, the translation shown, and a toast saying how it went. `serverTargets` asks the server
 * what it can translate this text into, `viaServer` asks it to; `locked` is true while another
 * text's translation runs: a page translates one text at a time.
 */
export function useTextTranslation(
  text: string,
  serverTargets: () => Promise<{ targets: readonly TargetLanguage[] }>,
  viaServer: (target: TargetLanguage) => Promise<{ text: string; target: TargetLanguage }>,
  locked = false,
) {
  const { LL } = useI18n();
  const t = LL.translation;
  const [server, setServer] = useState<ReadonlySet<TargetLanguage>>();
  const [device, setDevice] = useState<ReadonlyMap<TargetLanguage, DeviceReadiness>>();
  const asked = useRef(false);
  const serverTargetsRef = useRef(serverTargets);
  serverTargetsRef.current = serverTargets;
  const [translation, setTranslation] = useState<Translated>();
  const [showOriginal, setShowOriginal] = useState(false);
  const [busy, setBusy] = useState(false);
  const mounted = useRef(true);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  /**
   * Asks the server and the browser what they can do with this text; the menu calls it when
   * reached for. A server that could not be asked offers nothing this time, and is asked again
   * the next time.
   */
  const prepare = useCallback(() => {
    if (asked.current) return;
    asked.current = true;
    serverTargetsRef.current().then(
      ({ targets }) => {
        if (mounted.current) setServer(new Set(targets));
      },
      () => {
        asked.current = false;
        if (mounted.current) setServer(new Set());
      },
    );
    if (deviceTranslationSupported()) {
      void deviceTargets(text).then((found) => {
        if (mounted.current) setDevice(found);
      });
    }
  }, [text]);

  // Known once both have answered (a browser without a translator has nothing to say).
  const known = server !== undefined && (device !== undefined || !deviceTranslationSupported());
  const routes = useMemo(() => routesFor(server ?? new Set(), device), [server, device]);

  const translate = async (target: TargetLanguage) => {
    if (busy || locked) return;
    const onDevice = routes.get(target) === "device";
    const language = languageName(LL, target);
    setBusy(true);
    try {
      const result = onDevice
        ? { text: await translateOnDevice(text, target), target }
        : await viaServer(target);
      if (!mounted.current) return;
      setTranslation({ ...result, onDevice });
      setShowOriginal(false);
      toast.success(t.translatedTitle(), { description: t.translatedBody({ language }) });
    } catch (error) {
      const code = appCodeOf(error);
      let description: string = t.failedBody();
      if (code === "TRANSLATION_UNSUPPORTED") description = t.unsupported({ language });
      if (code === "RATE_LIMITED") description = errorMessage(LL, error);
      toast.error(t.failedTitle(), { description });
    } finally {
      if (mounted.current) setBusy(false);
    }
  };

  const showing = translation && !showOriginal ? translation : undefined;
  return {
    /** Who would translate into each language offered; empty until `known`. */
    routes: known ? routes : (new Map() as TranslationRoutes),
    /** Whether the server and the browser have said what they can do with this text. */
    known,
    prepare,
    busy,
    translate,
    translation,
    /** The language shown when it is a translation's, else undefined (the original shows). */
    shownLanguage: showing?.target,
    /** The text on screen: the translation, or the original. */
    shownText: showing ? showing.text : text,
    showOriginal,
    toggleOriginal: () => setShowOriginal((value) => !value),
  };
}

/** One text's translation, as the menu and the note under the text use it. */
export type TextTranslation = ReturnType<typeof useTextTranslation>;
