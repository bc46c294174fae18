// Strings of the privacy page.
export const privacy = {
  title: "Privacy Policy",
  lead: "What Tidings collects when you use it, why, and how we look after it.",
  lastUpdated: "Last updated: {date:string}",
  toc: "On this page",
  intro:
    "Tidings is built to be anonymous. You do not need an account to write, find or translate bottles, and we collect only what the site needs to work and to stay safe.",
  sections: {
    informationWeCollect: {
      title: "Information we collect",
      body: "When you use Tidings we may collect:",
      item1:
        "Country: worked out from your connection, so your country's name and flag can be shown as the origin of your bottles and chats. We do not show or keep your city or precise location.",
      item2:
        "IP address: used to prevent abuse such as spam and flooding. We do not store the address itself, only a keyed hash of it, which lets us recognise repeated abuse without keeping the address.",
      item3:
        "Bottle content: the messages you write, with their drift time, expiry date and whether you made them public.",
      item4:
        "Usage data: the pages you visit and actions such as likes and reports, so we can keep the site running and improve it.",
      item5:
        "Device information: your browser, operating system and language, so pages display correctly on your device.",
      item6:
        "Finds: when a visitor finds a bottle we count it once, with only the country they found it from, so the writer can see how often and where it washed ashore; no finder is ever identified.",
    },
    howWeUseIt: {
      title: "How we use your information",
      body: "We use this information only to:",
      item1: "deliver your bottles to other visitors and show where they came from;",
      item2: "prevent spam and abuse, and enforce our Terms of Service;",
      item3: "keep Tidings working, fix problems and make it better;",
      item4: "answer you when you contact us.",
      note: "We do not sell your information, and we do not use it for advertising.",
    },
    security: {
      title: "Security",
      body: "We protect the information we hold with reasonable measures, such as encrypted connections, hashing IP addresses instead of storing them, and limiting who can access our systems. No method of sending or storing data over the internet is completely secure, however, so we cannot guarantee absolute security.",
    },
    retention: {
      title: "How long we keep it",
      body: "We keep what we hold only as long as it is needed:",
      item1:
        "Chat messages are never stored, except a message a visitor reports, which is kept with the report. Reports are deleted 90 days after a moderator has handled them.",
      item2:
        "Your answer to an age question is kept for 30 days when it says you are too young (the question is not asked again meanwhile); any other answer is kept as long as your visitor cookie lives, at most 400 days.",
      item3:
        "A chat ban is deleted when it ends. How often someone was banned counts one step less for every 30 days without a new ban, and is deleted once nothing is left.",
      item4:
        "The languages and interests you choose for a chat are used only to match you: they stay in your browser's localStorage, and the server holds them only while you wait for a partner.",
    },
    cookies: {
      title: "Cookies and local storage",
      body: "Tidings uses only what it needs to work:",
      item1:
        "A visitor cookie, marked HttpOnly so that scripts on the page cannot read it, which lets us apply rate limits fairly. The pages that need it first check that your browser keeps cookies at all, with a test cookie that is removed at once.",
      item2:
        "A session cookie when you sign in, so you stay signed in while you like and report bottles.",
      item3:
        "Your language preference and, once you have thrown a bottle, the time you last saw its finds, both kept in your browser's localStorage rather than in a cookie.",
      item4:
        "In one tab only, in its sessionStorage: the bottle you were reading when you went to sign in to like or report it, for at most half an hour, so that you come back to it; the message you are writing on the page for writing one, until you throw it; and the message you are writing to us on the contact page (not your name or email address), until you send it.",
      note: "You can clear all of these in your browser's settings at any time. The site may then ask you to sign in or choose your language again.",
    },
    otherSites: {
      title: "Links to other sites",
      body: "Tidings may contain links to websites we do not operate. We are not responsible for their content or privacy practices, so please read the privacy policy of every site you visit.",
    },
    children: {
      title: "Children's privacy",
      body: "Tidings is not directed at children under 13, and we do not knowingly collect information from them. If you believe a child under 13 has shared information with us, please contact us and we will remove it.",
    },
    changes: {
      title: "Changes to this policy",
      body: "We may update this policy from time to time. When we do, we will post the new version on this page and change the date at the top. Continuing to use Tidings after a change means you accept the updated policy.",
    },
    contactUs: {
      title: "Contact us",
      body: "If you have questions about this policy or your information, please reach us through our {link:string}.",
      linkLabel: "contact page",
      email: "You can also email us at {email:string}.",
    },
  },
};
