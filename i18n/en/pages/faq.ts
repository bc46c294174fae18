// Strings of the faq page.
export const faq = {
  title: "Frequently Asked Questions",
  lead: "Everything you might wonder before you set a message adrift.",
  items: {
    howItWorks: {
      question: "How does Tidings work?",
      answer:
        "Write a short message, choose how long it drifts and when it expires, then throw it into the ocean. Once its drift time has passed, another visitor somewhere in the world may find it at random and read it. Only your country and its flag travel with the bottle, never your name.",
    },
    driftDuration: {
      question: "How long does a bottle drift?",
      answer:
        "As long as you like, from a few hours to several days. The drift slider runs from 0 to 168 hours (7 days); at 0 the bottle can be found straight away. You also choose when it expires, after 1, 3, 5 or 7 days, and from then on nobody can find it.",
    },
    whoCanRead: {
      question: "Who can read my message?",
      answer:
        "Anyone who finds your bottle, once it has finished drifting and until it expires. If you mark it public, it also appears in the Public Bottles collection for everyone to see. Readers see your country and flag but nothing else about you, so please leave out anything that could identify you.",
    },
    allowedContent: {
      question: "What can I write about?",
      answer:
        "Almost anything kind, honest or curious: a thought, a story, a wish, a question for a stranger. No person reviews a message before it is published, but automatic filters screen each one as it is sent, and harmful or offensive content, such as harassment, hate, threats or spam, may be removed. Signed-in visitors can report bottles that break the rules.",
    },
    replies: {
      question: "Can I reply to a bottle I found?",
      answer:
        "No. Bottles travel one way and stay anonymous, so there is no way to reply directly to the person who wrote one. You can answer the sea with a bottle of your own, or try Random Chat to talk with a stranger in real time.",
    },
    languages: {
      question: "Which languages are supported?",
      answer:
        "The site is available in English and Traditional Chinese; switch at any time with the language menu at the top of the page. Bottles can be written in any language. Which languages you can translate them into depends on how this site is set up and on your browser: the translate menu offers, of eight languages, those that the site's server or your own browser can translate into, and marks the ones your browser translates on your device, where the text never leaves it.",
    },
  },
  more: "Still wondering about something?",
  contactLink: "Get in touch",
};
