/**
 * French terms, matched as whole words. Chosen by hand; several also appear in
 * @2toad/profanity's "fr" list, which cannot be used whole because it is machine-translated and
 * holds everyday words (pomme, pour, les, maître, s'il vous plaît). Left out on purpose: "bite"
 * (an English word too), "chatte" (also a female cat), "bâtard" (also a loaf), "con" (Spanish
 * "with").
 */
export const FR_TERMS: readonly string[] = [
  "putain",
  "pute",
  "putes",
  "salope",
  "salopes",
  "salaud",
  "connard",
  "connards",
  "connasse",
  "enculé",
  "enculée",
  "enculés",
  "encule",
  "enculer",
  "nique ta mère",
  "nique ta race",
  "niquer",
  "va te faire foutre",
  "merde",
  "merdique",
  "enfoiré",
  "enfoirée",
  "enfoirés",
  "branleur",
  "pédé",
  "pédés",
  "bougnoule",
  "négro",
  "bicot",
];
