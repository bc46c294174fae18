// The About page is in English under /en and /zh alike, so its copy lives here, not in the
// dictionaries.

export type OfferIcon = "bottle" | "anonymous" | "global" | "chat";
export type ValueIcon = "kindness" | "privacy" | "curiosity" | "safety";

export const about = {
  intro: {
    title: "About Tidings",
    lead: "A quiet corner of the internet where anonymous messages drift across the sea until a stranger finds them.",
  },
  community: {
    title: "Our community",
    body: "Since Tidings set its first bottle adrift in 2025, thousands of people from over 50 countries have written to strangers they will never meet: a worry shared, a joke, a word of encouragement, a postcard from an ordinary day.",
    stats: [
      { value: "Thousands", label: "of people writing and reading" },
      { value: "50+", label: "countries on the shore" },
      { value: "2025", label: "the year the first bottle sailed" },
    ],
  },
  offer: {
    title: "What we offer",
    lead: "Four simple ways to reach someone you would never otherwise meet.",
    items: [
      {
        icon: "bottle",
        title: "Virtual bottles",
        body: "Write a short message, choose how long it drifts and when it expires, then release it into the ocean.",
      },
      {
        icon: "anonymous",
        title: "Anonymous connections",
        body: "No profiles and no names. Others only see the country your bottle came from, with its flag.",
      },
      {
        icon: "global",
        title: "Global discovery",
        body: "Open a random bottle that has washed ashore and read words from somewhere else in the world, translated when this site's server or your own browser can.",
      },
      {
        icon: "chat",
        title: "Random chat",
        body: "Meet a stranger for a one-to-one conversation in real time, and leave whenever you want.",
      },
    ] satisfies ReadonlyArray<{ icon: OfferIcon; title: string; body: string }>,
  },
  story: {
    title: "Our story",
    paragraphs: [
      "People have tossed messages into the sea for centuries, never knowing who would read them. There is something honest about writing to no one in particular: you say what you mean, and someone, somewhere, receives it without knowing who you are.",
      "Tidings began in 2025 as a small experiment to bring that feeling online. No followers, no likes to chase, no feed to scroll. Just a message, the patience of the tide, and the chance that it lands in the right hands at the right moment.",
    ],
  },
  values: {
    title: "Our core values",
    items: [
      {
        icon: "kindness",
        title: "Kindness",
        body: "Every bottle is read by a real person. We encourage words that leave the reader a little better off.",
      },
      {
        icon: "privacy",
        title: "Privacy",
        body: "You do not need an account to write or read. We show your country and nothing more.",
      },
      {
        icon: "curiosity",
        title: "Curiosity",
        body: "The world is wide. We want you to hear from people you would never meet otherwise.",
      },
      {
        icon: "safety",
        title: "Safety",
        body: "Harmful content can be reported and removed, and people who break the rules can be limited or blocked.",
      },
    ] satisfies ReadonlyArray<{ icon: ValueIcon; title: string; body: string }>,
  },
  steps: {
    title: "How it works",
    items: [
      {
        title: "Write",
        body: "Put your thoughts into a message. You stay anonymous.",
      },
      {
        title: "Set it adrift",
        body: "Choose a drift time, whether it is public, and when it expires.",
      },
      {
        title: "It drifts",
        body: "Once the drift time has passed, your bottle can wash ashore anywhere.",
      },
      {
        title: "Someone finds it",
        body: "A stranger opens it, reads it, and may translate or like it.",
      },
    ],
  },
  testimonials: {
    title: "Voices from the shore",
    items: [
      {
        quote:
          "I wrote about a hard week and forgot about it. Days later I opened a bottle from someone going through the same thing. It felt like the ocean answered.",
        name: "Anna",
        country: "Germany",
      },
      {
        quote:
          "The random chat is my evening ritual. Ten minutes with a stranger from another continent and the world feels smaller in a good way.",
        name: "K.",
        country: "Japan",
      },
    ],
  },
  contact: {
    title: "Get in touch",
    body: "Questions, ideas or something that needs our attention? We read every message.",
    link: "Contact us",
    emailLead: "Or write to us at",
  },
  future: {
    title: "Looking ahead",
    body: "A premium subscription is planned. When it launches, 5% of its revenue will go to ocean cleanup, so the real sea gets something back too.",
  },
  cta: {
    title: "Ready to send your first bottle?",
    body: "Someone out there is waiting for a message they did not know they needed.",
    button: "Write a Message",
  },
} as const;
