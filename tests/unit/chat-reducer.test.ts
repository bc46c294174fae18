import { describe, expect, test } from "bun:test";
import type { ChatEvent, ChatMessage } from "../../src/common/chat.ts";
import type { Country } from "../../src/common/country.ts";
import {
  type ChatAction,
  type ChatState,
  chatReducer,
  idleChat,
  isMuted,
  LATE_MATCH_MS,
  lastPartnerMessage,
} from "../../src/web/components/chat/chatReducer.ts";

const japan: Country = { code: "JP", name: "Japan" };
const chile: Country = { code: "CL", name: "Chile" };

function message(id: string, from: "me" | "partner", content = `line ${id}`): ChatMessage {
  return { id, from, content, timestamp: 1_000, country: japan };
}

const server = (event: ChatEvent, at = 10_000): ChatAction => ({ type: "server", event, at });

/** Runs the actions in order from `from` (idle by default). */
function run(actions: ChatAction[], from: ChatState = idleChat): ChatState {
  return actions.reduce(chatReducer, from);
}

/** A visitor in the pool, waiting. */
const searchingChat = run([
  { type: "start" },
  { type: "started", status: { state: "waiting" }, at: 1 },
]);

/** A visitor in chat "c1" with a partner from Japan, the overlay gone. */
const inChat = run([
  { type: "start" },
  { type: "started", status: { state: "waiting" }, at: 1 },
  server({ type: "matched", chatId: "c1", partner: japan }),
  { type: "overlay-done" },
]);

const texts = (state: ChatState) =>
  state.entries.map((e) => (e.kind === "message" ? e.message.id : `[${e.text}]`));

describe("chatReducer: idle → searching → matched → partner left → closed by the visitor", () => {
  test("Find Someone waits for the connection, then the pool", () => {
    const connecting = run([{ type: "start" }]);
    expect(connecting.phase).toBe("connecting");
    const searching = chatReducer(connecting, {
      type: "started",
      status: { state: "waiting" },
      at: 1,
    });
    expect(searching.phase).toBe("searching");
    expect(searching.partner).toBeNull();
  });

  test("a second Find while already on the way changes nothing", () => {
    const connecting = run([{ type: "start" }]);
    expect(chatReducer(connecting, { type: "start" })).toBe(connecting);
  });

  test("no connection, or a failed start call: back to idle", () => {
    expect(run([{ type: "start" }, { type: "start-failed" }])).toEqual(idleChat);
  });

  test("a match opens the chat with the partner's country and the 3 s overlay", () => {
    const matched = run(
      [server({ type: "matched", chatId: "c1", partner: japan })],
      run([{ type: "start" }, { type: "started", status: { state: "waiting" }, at: 1 }]),
    );
    expect(matched).toMatchObject({
      phase: "chatting",
      chatId: "c1",
      partner: japan,
      matchOverlay: true,
      entries: [],
      ended: null,
    });
    expect(chatReducer(matched, { type: "overlay-done" }).matchOverlay).toBe(false);
  });

  test("paired at once: the start call's answer opens the chat, announced", () => {
    const state = run([
      { type: "start" },
      { type: "started", status: { state: "chatting", chatId: "c2", partner: chile }, at: 1 },
    ]);
    expect(state).toMatchObject({ phase: "chatting", chatId: "c2", partner: chile });
    expect(state.matchOverlay).toBe(true);
  });

  test("the partner leaves: a red line, read-only, on screen until the visitor closes it", () => {
    const left = chatReducer(inChat, server({ type: "partner-left", chatId: "c1" }, 500));
    expect(left.phase).toBe("chatting");
    expect(left.ended).toBe("partnerLeft");
    expect(left.partedAt).toBe(500);
    expect(left.entries).toEqual([{ kind: "system", id: "system-500", text: "partnerLeft" }]);
    // Said twice, written once.
    expect(chatReducer(left, server({ type: "partner-left", chatId: "c1" }, 600))).toBe(left);
    // The idle that follows on the stream does not end it again.
    expect(chatReducer(left, server({ type: "idle" }))).toBe(left);
    expect(chatReducer(left, { type: "reset" })).toEqual({ ...idleChat, partedAt: 500 });
  });

  test("after the visitor's own report the line says they are kept apart, not that the partner left", () => {
    const reporting = chatReducer(inChat, { type: "reporting", chatId: "c1" });
    expect(reporting.reported).toBe(true);
    const ended = chatReducer(reporting, server({ type: "partner-left", chatId: "c1" }, 500));
    expect(ended.ended).toBe("reported");
    expect(texts(ended)).toEqual(["[reported]"]);
    // A report that was refused after all: the line says what really happened.
    const refused = chatReducer(ended, { type: "report-failed", chatId: "c1" });
    expect(refused.ended).toBe("partnerLeft");
    expect(texts(refused)).toEqual(["[partnerLeft]"]);
    // A report from an earlier chat says nothing of this one.
    expect(chatReducer(inChat, { type: "reporting", chatId: "old" })).toBe(inChat);
  });

  test("chat switched off: back at the start, whatever was going on", () => {
    for (const state of [inChat, searchingChat]) {
      expect(chatReducer(state, server({ type: "resting" })).phase).toBe("idle");
    }
  });

  test("a partner-left of another chat is not ours", () => {
    expect(chatReducer(inChat, server({ type: "partner-left", chatId: "old" }))).toBe(inChat);
  });

  test("reset does nothing to a chat that has not ended", () => {
    expect(chatReducer(inChat, { type: "reset" })).toBe(inChat);
  });
});

describe("chatReducer: messages", () => {
  test("both sides' lines are kept in order", () => {
    const state = run(
      [
        { type: "sent", chatId: "c1", message: message("m1", "me") },
        server({ type: "message", chatId: "c1", message: message("m2", "partner") }),
      ],
      inChat,
    );
    expect(texts(state)).toEqual(["m1", "m2"]);
  });

  test("a message id seen before is ignored, whichever copy comes first", () => {
    const mine = message("m1", "me");
    const state = run(
      [
        server({ type: "message", chatId: "c1", message: mine }),
        { type: "sent", chatId: "c1", message: mine },
        server({ type: "message", chatId: "c1", message: mine }),
      ],
      inChat,
    );
    expect(texts(state)).toEqual(["m1"]);
  });

  test("a message of another chat, or an answer for a chat that is over, is dropped", () => {
    const other = run(
      [server({ type: "message", chatId: "c0", message: message("x", "partner") })],
      inChat,
    );
    expect(other).toBe(inChat);
    const late = run([{ type: "sent", chatId: "c0", message: message("y", "me") }], inChat);
    expect(late).toBe(inChat);
  });
});

describe("chatReducer: the partner's typing", () => {
  test("shown while they type, hidden by their message or after its timeout", () => {
    const typing = chatReducer(inChat, server({ type: "typing", chatId: "c1", isTyping: true }));
    expect(typing.partnerTyping).toBe(true);
    expect(typing.typingSignals).toBe(inChat.typingSignals + 1);
    const again = chatReducer(typing, server({ type: "typing", chatId: "c1", isTyping: true }));
    expect(again.typingSignals).toBe(typing.typingSignals + 1);
    const said = chatReducer(
      typing,
      server({ type: "message", chatId: "c1", message: message("m3", "partner") }),
    );
    expect(said.partnerTyping).toBe(false);
    expect(chatReducer(typing, { type: "typing-expired" }).partnerTyping).toBe(false);
    const stopped = chatReducer(typing, server({ type: "typing", chatId: "c1", isTyping: false }));
    expect(stopped.partnerTyping).toBe(false);
  });

  test("typing of another chat, or after the chat ended, is ignored", () => {
    expect(chatReducer(inChat, server({ type: "typing", chatId: "c9", isTyping: true }))).toBe(
      inChat,
    );
    const left = chatReducer(inChat, server({ type: "partner-left", chatId: "c1" }));
    expect(chatReducer(left, server({ type: "typing", chatId: "c1", isTyping: true }))).toBe(left);
  });
});

describe("chatReducer: the visitor ends it", () => {
  test("ending a chat remembers when the two parted (the wait before meeting again is said)", () => {
    expect(chatReducer(inChat, { type: "end", at: 900 }).partedAt).toBe(900);
    expect(chatReducer(searchingChat, { type: "end", at: 900 }).partedAt).toBeNull();
    // Blocked or reported, they never meet again: there is no wait to explain.
    expect(chatReducer(inChat, { type: "end", at: 900, forGood: true }).partedAt).toBeNull();
    const reported = chatReducer(inChat, { type: "reporting", chatId: "c1" });
    expect(chatReducer(reported, { type: "end", at: 900 }).partedAt).toBeNull();
    const left = chatReducer(reported, server({ type: "partner-left", chatId: "c1" }, 950));
    expect(left.partedAt).toBeNull();
    const blockedAfter = chatReducer(
      chatReducer(inChat, server({ type: "partner-left", chatId: "c1" }, 950)),
      { type: "reset", forGood: true },
    );
    expect(blockedAfter).toMatchObject({ phase: "idle", partedAt: null });
  });

  test("End chat or Cancel go straight back to idle", () => {
    const searching = searchingChat;
    expect(chatReducer(searching, { type: "end", at: 2_000 })).toEqual({
      ...idleChat,
      endedByUsAt: 2_000,
    });
    expect(chatReducer(inChat, { type: "end", at: 3_000 }).phase).toBe("idle");
  });

  test("a match already on its way when the search was cancelled is not shown", () => {
    const cancelled = run([
      { type: "start" },
      { type: "started", status: { state: "waiting" }, at: 1 },
      { type: "end", at: 10_000 },
    ]);
    const late = server(
      { type: "matched", chatId: "c5", partner: chile },
      10_000 + LATE_MATCH_MS - 1,
    );
    expect(chatReducer(cancelled, late)).toBe(cancelled);
    // Much later it is a new match (another tab of ours started one).
    const fresh = server({ type: "matched", chatId: "c6", partner: chile }, 10_000 + LATE_MATCH_MS);
    expect(chatReducer(cancelled, fresh).phase).toBe("chatting");
  });

  test("an answer to a start that was cancelled meanwhile changes nothing", () => {
    const cancelled = run([{ type: "start" }, { type: "end", at: 5 }]);
    const answer: ChatAction = { type: "started", status: { state: "waiting" }, at: 6 };
    expect(chatReducer(cancelled, answer)).toBe(cancelled);
  });

  test("a start answered idle while connecting goes back to idle", () => {
    const state = run([{ type: "start" }, { type: "started", status: { state: "idle" }, at: 1 }]);
    expect(state.phase).toBe("idle");
  });
});

describe("chatReducer: ban", () => {
  test("a ban ends the chat or the search at once", () => {
    expect(chatReducer(inChat, server({ type: "banned", until: 99 })).phase).toBe("idle");
    expect(chatReducer(inChat, { type: "banned" })).toEqual(idleChat);
    const searching = searchingChat;
    expect(chatReducer(searching, { type: "banned" }).phase).toBe("idle");
  });

  test("a ban while idle changes nothing", () => {
    expect(chatReducer(idleChat, { type: "banned" })).toBe(idleChat);
    expect(chatReducer(idleChat, server({ type: "banned", until: 99 }))).toBe(idleChat);
  });
});

describe("chatReducer: a reconnected stream says where the visitor is", () => {
  test("still in the same chat: nothing is lost", () => {
    const talking = run(
      [server({ type: "message", chatId: "c1", message: message("m1", "partner") })],
      inChat,
    );
    const resumed = chatReducer(
      talking,
      server({ type: "status", status: { state: "chatting", chatId: "c1", partner: japan } }),
    );
    expect(resumed).toBe(talking);
  });

  test("matched while the socket was away: the new chat opens without the overlay", () => {
    const searching = searchingChat;
    const state = chatReducer(
      searching,
      server({ type: "status", status: { state: "chatting", chatId: "c7", partner: chile } }),
    );
    expect(state).toMatchObject({ phase: "chatting", chatId: "c7", matchOverlay: false });
  });

  test("still waiting: still searching", () => {
    const searching = searchingChat;
    const state = chatReducer(searching, server({ type: "status", status: { state: "waiting" } }));
    expect(state.phase).toBe("searching");
  });

  test("the chat was lost while away: a red line, then idle", () => {
    const lost = chatReducer(inChat, server({ type: "status", status: { state: "idle" } }, 70));
    expect(lost.ended).toBe("chatLost");
    expect(texts(lost)).toEqual(["[chatLost]"]);
  });

  test("a message refused as sent to no chat ends the chat at once, as lost, and only that chat", () => {
    const talking = run([{ type: "sent", chatId: "c1", message: message("m1", "me") }], inChat);
    const lost = chatReducer(talking, { type: "lost", chatId: "c1", at: 80 });
    expect(lost).toMatchObject({ phase: "chatting", chatId: "c1", ended: "chatLost" });
    // The messages stay on screen, to report or block from.
    expect(texts(lost)).toEqual(["m1", "[chatLost]"]);
    // The stream's own word that follows changes nothing; nor does an answer about another chat.
    expect(chatReducer(lost, server({ type: "status", status: { state: "idle" } }))).toBe(lost);
    expect(chatReducer(talking, { type: "lost", chatId: "c0", at: 80 })).toBe(talking);
  });

  test("the search was lost while away: back to idle", () => {
    const searching = searchingChat;
    expect(
      chatReducer(searching, server({ type: "status", status: { state: "idle" } })).phase,
    ).toBe("idle");
  });

  test("idle while Find is on its way: the start call's answer decides", () => {
    const connecting = run([{ type: "start" }]);
    expect(chatReducer(connecting, server({ type: "status", status: { state: "idle" } }))).toBe(
      connecting,
    );
  });

  test("waiting after a partner left: the old chat is cleared, searching again", () => {
    const left = chatReducer(inChat, server({ type: "partner-left", chatId: "c1" }));
    const state = chatReducer(left, server({ type: "status", status: { state: "waiting" } }));
    expect(state).toMatchObject({ phase: "searching", entries: [], ended: null, partner: null });
  });

  test("the chat ended elsewhere (another tab): a red line", () => {
    const state = chatReducer(inChat, server({ type: "idle" }, 80));
    expect(state.ended).toBe("chatEnded");
    const searching = searchingChat;
    expect(chatReducer(searching, server({ type: "idle" })).phase).toBe("idle");
  });

  test("a waiting event never pulls an open chat back to searching", () => {
    expect(chatReducer(inChat, server({ type: "waiting" }))).toBe(inChat);
    expect(chatReducer(run([{ type: "start" }]), server({ type: "waiting" })).phase).toBe(
      "searching",
    );
  });
});

describe("chatReducer: muted (the same text to too many partners)", () => {
  test("the muted event is kept, the chat goes on, and the mute outlasts the chat", () => {
    const muted = chatReducer(inChat, server({ type: "muted", until: 50_000 }));
    expect(muted).toMatchObject({ phase: "chatting", chatId: "c1", mutedUntil: 50_000 });
    expect(isMuted(muted, 49_999)).toBe(true);
    expect(isMuted(muted, 50_000)).toBe(false);
    // Ended, banned, the next chat: still muted until then.
    const ended = chatReducer(muted, { type: "end", at: 20_000 });
    expect(ended).toMatchObject({ phase: "idle", mutedUntil: 50_000 });
    expect(chatReducer(muted, { type: "banned" }).mutedUntil).toBe(50_000);
    const next = run(
      [{ type: "start" }, { type: "started", status: { state: "waiting" }, at: 1 }],
      ended,
    );
    expect(
      chatReducer(next, server({ type: "matched", chatId: "c2", partner: chile })),
    ).toMatchObject({ chatId: "c2", mutedUntil: 50_000 });
  });

  test("a later mute wins; an older copy of the event changes nothing", () => {
    const muted = chatReducer(idleChat, server({ type: "muted", until: 50_000 }));
    expect(chatReducer(muted, server({ type: "muted", until: 40_000 }))).toBe(muted);
    expect(chatReducer(muted, server({ type: "muted", until: 90_000 })).mutedUntil).toBe(90_000);
    expect(isMuted(idleChat, 0)).toBe(false);
  });
});

describe("lastPartnerMessage: what End & report reports", () => {
  test("the partner's latest line, skipping our own and the red lines", () => {
    const state = run(
      [
        server({ type: "message", chatId: "c1", message: message("p1", "partner") }),
        server({ type: "message", chatId: "c1", message: message("p2", "partner") }),
        { type: "sent", chatId: "c1", message: message("m1", "me") },
        server({ type: "partner-left", chatId: "c1" }),
      ],
      inChat,
    );
    expect(lastPartnerMessage(state)?.id).toBe("p2");
  });

  test("none when the partner has said nothing", () => {
    const state = chatReducer(inChat, { type: "sent", chatId: "c1", message: message("m1", "me") });
    expect(lastPartnerMessage(state)).toBeNull();
    expect(lastPartnerMessage(idleChat)).toBeNull();
  });
});

describe("chatReducer: what the two share", () => {
  const shared = { languages: ["en"], interests: ["hiking"] };
  test("the matched event's shared ground is kept for the chat, and gone after it", () => {
    const matched = run(
      [server({ type: "matched", chatId: "c9", partner: chile, shared })],
      searchingChat,
    );
    expect(matched.shared).toEqual(shared);
    expect(run([{ type: "end", at: 20_000 }], matched).shared).toBeNull();
  });

  test("the start call answering first still leaves room for what the event says they share", () => {
    const started = run(
      [{ type: "started", status: { state: "chatting", chatId: "c9", partner: chile }, at: 2 }],
      run([{ type: "start" }]),
    );
    expect(started.shared).toBeNull();
    const told = chatReducer(
      started,
      server({ type: "matched", chatId: "c9", partner: chile, shared }),
    );
    expect(told.shared).toEqual(shared);
    expect(told.chatId).toBe("c9");
  });
});

describe("chatReducer: a chat taken over from another tab of the visitor's", () => {
  // The tab that held the chat heard the partner and sent the visitor's own lines; the tab
  // taking it over heard only the partner, and perhaps a line the other had not yet.
  const held = run(
    [
      { type: "sent", chatId: "c1", message: message("m1", "me") },
      server({ type: "message", chatId: "c1", message: message("p1", "partner") }),
    ],
    inChat,
  );
  const here = run(
    [
      { type: "started", status: { state: "chatting", chatId: "c1", partner: japan }, at: 2 },
      server({ type: "message", chatId: "c1", message: message("p1", "partner") }),
      server({ type: "message", chatId: "c1", message: message("p2", "partner") }),
    ],
    run([{ type: "start" }]),
  );

  test("the other tab's lines come first, then what only this tab heard, each once", () => {
    const adopted = chatReducer(here, { type: "adopt", state: held });
    expect(texts(adopted)).toEqual(["m1", "p1", "p2"]);
    expect(adopted.chatId).toBe("c1");
    expect(adopted.phase).toBe("chatting");
  });

  test("a red line both tabs wrote is kept once; a report or mute made there holds here", () => {
    const left = server({ type: "partner-left", chatId: "c1" }, 30_000);
    const there = run(
      [left, { type: "reporting", chatId: "c1" }],
      run([server({ type: "muted", until: 90_000 })], held),
    );
    const adopted = chatReducer(chatReducer(here, left), { type: "adopt", state: there });
    expect(texts(adopted)).toEqual(["m1", "p1", "[partnerLeft]", "p2"]);
    expect(adopted.reported).toBe(true);
    expect(adopted.mutedUntil).toBe(90_000);
  });

  test("another chat's lines, or none held, change nothing", () => {
    const otherChat = run(
      [
        { type: "end", at: 20_000 },
        { type: "start" },
        { type: "started", status: { state: "chatting", chatId: "c2", partner: chile }, at: 3 },
      ],
      here,
    );
    expect(chatReducer(otherChat, { type: "adopt", state: held })).toBe(otherChat);
    expect(chatReducer(searchingChat, { type: "adopt", state: held })).toBe(searchingChat);
  });
});
