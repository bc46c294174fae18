// Strings of the home page.
export const home = {
  title: "Messages carried by the tide",
  lead: "Write something anonymous, set it adrift, and find a note from a stranger somewhere in the world.",
  loading: "Loading message bottles…",
  actions: {
    write: "Write a Message",
    find: "Find a Bottle",
  },
  sea: {
    label: "Bottles floating at sea",
    bottle: "Floating bottle {number:number}",
    drifted: "The bottle drifted away.",
    empty: "Every bottle has drifted away. Write one of your own to set it afloat.",
    tip: "Tip: Click on a floating bottle to view the message inside!",
    tipTouch: "Tip: Tap a floating bottle to view the message inside!",
    emptySeaTitle: "The sea is empty",
    emptySeaBody:
      "No one has shared a public bottle yet. Write one and set it afloat for others to find.",
  },
  features: {
    title: "Every bottle has a journey",
    send: {
      title: "Send",
      body: "Write down a thought, a wish or a secret and let the ocean carry it, with no name attached.",
    },
    receive: {
      title: "Receive",
      body: "Pick up a bottle that has washed up on your shore and read words from a stranger far away.",
    },
    warmth: {
      title: "Spread Warmth",
      body: "A kind line can travel a long way, so leave a little light for whoever finds your bottle.",
    },
  },
  story: {
    about: {
      title: "About",
      body: "Tidings is a quiet corner of the internet where strangers write to each other without names, profiles or follower counts. Only the name and flag of the country a bottle sets out from travel with it.",
    },
    howItWorks: {
      title: "How It Works",
      body: "Write your message, choose how long it drifts and when it sinks. Once its drift time has passed, it washes ashore for someone to find at random, read and even translate.",
    },
    mission: {
      title: "Our Mission",
      body: "We want the world to feel a little smaller and a little kinder: one honest note, carried across the sea, to someone who may need it today.",
    },
  },
  more: {
    title: "Keep exploring",
    faq: {
      title: "FAQ",
      body: "How drifting works, who can read your bottle and what belongs inside one.",
    },
    publicBottles: {
      title: "Public Bottles",
      body: "Browse the messages their writers chose to share with everyone.",
    },
  },
};
