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
import { trpc } from "../../lib/trpc.ts";
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
 * The device wins when its model is ready (the text stays on the device); otherwise the server
 * when it can (no download for the visitor); otherwise the device after a download. Until the
 * server has said what it offers, it is asked for everything: the server decides.
 */
function routesFor(
  server: ReadonlySet<TargetLanguage> | undefined,
  device: ReadonlyMap<TargetLanguage, DeviceReadiness> | undefined,
): TranslationRoutes {
  const routes = new Map<TargetLanguage, TranslationRoute>();
  for (const target of targetLanguages) {
    const onDevice = device?.get(target);
    if (onDevice === "ready") routes.set(target, "device");
    else if (server === undefined || server.has(target)) routes.set(target, "server");
    else if (onDevice === "download") routes.set(target, "device");
  }
  return routes;
}

/** The languages this server can translate into; undefined until it has said. */
function useServerLanguages(): ReadonlySet<TargetLanguage> | undefined {
  const available = trpc.translate.languages.useQuery(undefined, {
    staleTime: Number.POSITIVE_INFINITY,
  });
  const targets = available.data?.targets;
  return useMemo(() => (targets ? new Set<TargetLanguage>(targets) : undefined), [targets]);
}

/**
 * One text's translation (a bottle, a partner's message): which languages are offered and by
 * whom, the translation shown, and a toast saying how it went. `viaServer` asks the server;
 * `locked` is true while another text's translation runs: a page translates one text at a time.
 */
export function useTextTranslation(
  text: string,
  viaServer: (target: TargetLanguage) => Promise<{ text: string; target: TargetLanguage }>,
  locked = false,
) {
  const { LL } = useI18n();
  const t = LL.translation;
  const server = useServerLanguages();
  const [device, setDevice] = useState<ReadonlyMap<TargetLanguage, DeviceReadiness>>();
  const asked = useRef(false);
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

  /** Asks the browser what it can do with this text; the menu calls it when reached for. */
  const prepare = useCallback(() => {
    if (asked.current || !deviceTranslationSupported()) return;
    asked.current = true;
    void deviceTargets(text).then((found) => {
      if (mounted.current) setDevice(found);
    });
  }, [text]);

  const routes = useMemo(() => routesFor(server, device), [server, device]);

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
    routes,
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
