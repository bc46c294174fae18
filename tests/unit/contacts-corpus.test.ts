import { describe, expect, test } from "bun:test";
import { type ContactDetails, contactDetails } from "../../src/core/moderation/contacts.ts";
import forms from "../fixtures/contact-forms.json";
import ordinary from "../fixtures/ordinary-texts.json";

interface Form {
  text: string;
  kind: keyof ContactDetails;
  lang: string;
  disguise?: string;
  region?: string;
}
interface Ordinary {
  text: string;
  lang: string;
  trap?: string;
  region?: string;
}

const contactForms = forms.texts as Form[];
const ordinaryTexts = ordinary.texts as Ordinary[];

const found = (details: ContactDetails) =>
  details.link || details.email || details.phone || details.handle;

describe("the contact corpus", () => {
  test("holds at least 100 contact forms, 68 of them disguised, and 50 ordinary texts", () => {
    expect(contactForms.length).toBeGreaterThanOrEqual(100);
    expect(contactForms.filter((form) => form.disguise).length).toBeGreaterThanOrEqual(68);
    expect(ordinaryTexts.length).toBeGreaterThanOrEqual(50);
    for (const lang of ["en", "zh", "ja", "ko", "es", "fr", "de"]) {
      expect(contactForms.some((form) => form.lang === lang && form.disguise)).toBe(true);
      expect(ordinaryTexts.some((text) => text.lang === lang)).toBe(true);
    }
  });

  test("catches at least 95 % of contact forms and refuses no ordinary text", () => {
    const missed = contactForms.filter((form) => !found(contactDetails(form.text, form.region)));
    const refused = ordinaryTexts.filter((text) => found(contactDetails(text.text, text.region)));
    const caught = contactForms.length - missed.length;
    const disguised = contactForms.filter((form) => form.disguise);
    const disguisedCaught = disguised.filter((form) => !missed.includes(form)).length;
    const precision = caught / (caught + refused.length);
    const recall = caught / contactForms.length;
    const percent = (value: number) => `${(value * 100).toFixed(1)} %`;
    console.log(
      [
        `contact forms caught: ${caught} of ${contactForms.length} (disguised: ${disguisedCaught} of ${disguised.length})`,
        `ordinary texts refused: ${refused.length} of ${ordinaryTexts.length}`,
        `precision ${percent(precision)}, recall ${percent(recall)}`,
        ...missed.map(
          (form) => `  missed (${form.kind}, ${form.disguise ?? "plain"}): ${form.text}`,
        ),
        ...refused.map((text) => `  refused (${text.trap ?? "ordinary"}): ${text.text}`),
      ].join("\n"),
    );
    expect(refused.map((text) => text.text)).toEqual([]);
    expect(recall).toBeGreaterThanOrEqual(0.95);
  });

  test("each contact form is found as the kind it is", () => {
    const wrongKind = contactForms
      .filter((form) => found(contactDetails(form.text, form.region)))
      .filter((form) => !contactDetails(form.text, form.region)[form.kind])
      .map((form) => `${form.kind}: ${form.text}`);
    expect(wrongKind).toEqual([]);
  });
});
