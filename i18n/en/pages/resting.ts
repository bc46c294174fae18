// The calm page shown while the operator has switched a part of the site off.
export const resting = {
  notYou:
    "Nothing is wrong on your side: the people who run Tidings have paused this part for a little while. The tide always comes back.",
  draftKept:
    "We kept the message you were writing. It will be waiting for you on the Write page when bottles are back.",
  chat: {
    title: "Random chat is resting",
    body: "Chatting with strangers is paused for now. Please come back later.",
    elsewhere: "Write a Message",
  },
  bottles: {
    title: "The ocean is resting",
    body: "Writing and finding bottles is paused for now. Please come back later.",
    elsewhere: "Random Chat",
  },
  publicBottles: {
    title: "The public bottles are resting",
    body: "The public collection is out of sight for now. Please come back later.",
    elsewhere: "Find a Bottle",
  },
};
