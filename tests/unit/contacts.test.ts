import { describe, expect, test } from "bun:test";
import {
  contactDetails,
  hasContactDetails,
  repeatKey,
} from "../../src/core/moderation/contacts.ts";

describe("contact details in the site's eight languages", () => {
  const found: Array<[string, keyof ReturnType<typeof contactDetails>]> = [
    ["Visit https://example.org/offer now", "link"],
    ["go to www.example.com", "link"],
    ["my shop: cheap-pills.shop", "link"],
    ["write me: mei.lin@example.org", "email"],
    ["mei (at) example (dot) org", "email"],
    ["mei at example dot com", "email"],
    ["寫信給我 mei＠example．com", "email"],
    ["打給我 0912-345-678", "phone"],
    ["電話：０９１２３４５６７８", "phone"],
    ["+886 912 345 678", "phone"],
    ["电话 138 1234 5678", "phone"],
    ["電話は090-1234-5678です", "phone"],
    ["연락처 010-1234-5678", "phone"],
    ["llámame al 612 345 678", "phone"],
    ["appelle-moi au 06 12 34 56 78", "phone"],
    ["ruf mich an: 0151 23456789", "phone"],
    ["call me at (415) 555-2671", "phone"],
    ["加我微信 mei0912", "handle"],
    ["微信號：mei_lin", "handle"],
    ["LINE ID: mei_0912", "handle"],
    ["ライン mei0912 追加してね", "handle"],
    ["카톡 아이디 mei1234", "handle"],
    ["telegram @mei_lin", "handle"],
    ["ig: mei.lin.tw", "handle"],
    ["mi whatsapp es mei1234", "handle"],
    ["my insta is @mei.lin", "handle"],
    ["telegram: mei_lin", "handle"],
  ];
  for (const [text, kind] of found) {
    test(`${kind}: ${text}`, () => {
      expect(contactDetails(text)[kind]).toBe(true);
      expect(hasContactDetails(text)).toBe(true);
    });
  }

  const innocent = [
    "It took 3.5 hours to get there",
    "Bring snacks, e.g. apples",
    "I wrote it in node.js",
    "We met on 2026-11-23 by the sea",
    "On 23.11.2026 the tide was high",
    "I walked 10,000 steps today, 100% happy",
    "line 3 of the poem made me cry",
    "snap peas and rice for dinner",
    "I'm at home at last",
    "今天走了一萬步，心情很好",
    "1994年に生まれました",
    "오늘은 3시 30분에 만나요",
    "Pi is 3.14159265",
    "Mi número favorito es el 7",
    "Il est 14 h 30",
    "Es kostet 12,50 Euro",
    "Across two instances and one ocean",
    "There was discord about it all week",
    "A telegram came from my aunt",
    "I posted it on insta yesterday",
    "Instagrammable sunsets everywhere",
    "Meet me @ the beach at 3",
  ];
  for (const text of innocent) {
    test(`nothing in: ${text}`, () => {
      expect(hasContactDetails(text)).toBe(false);
    });
  }
});

describe("repeat keys", () => {
  test("case, spaces, punctuation and full-width forms do not make a text new", () => {
    expect(repeatKey("Buy NOW!!! cheap pills")).toBe(repeatKey("buy now, cheap pills"));
    expect(repeatKey("ＢＵＹ　ｎｏｗ")).toBe(repeatKey("buy now"));
    expect(repeatKey("你好，世界！")).toBe(repeatKey("你好 世界"));
  });
  test("different words stay different", () => {
    expect(repeatKey("hello sea")).not.toBe(repeatKey("hello see"));
  });
});
