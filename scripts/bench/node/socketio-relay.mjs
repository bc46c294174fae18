/**
 * Comparison for the chat: the random one-to-one chat as a builder would write it with
 * Socket.IO 4, the library most open-source random-chat sites use. Visitors connect, emit
 * "start" and are paired first come, first served; each "send" is emitted to the partner and
 * acknowledged to the sender with the server's copy (Socket.IO's ack callback): one frame out
 * to each side, as ours answers the sender's call and pushes the partner's copy. "end" or a
 * disconnect parts the pair. No identity, flood gate or moderation: the library's own cost.
 *
 * One source for both runtimes: the benchmarks run it under Node and under Bun (node:http and
 * the `ws` package as Bun provides them).
 *
 *   node scripts/bench/node/socketio-relay.mjs
 *   bun scripts/bench/node/socketio-relay.mjs
 *
 * Prints one JSON line when it listens: {"ready":true,"url":...,"pid":...}.
 */
import { createServer } from "node:http";
import { Server } from "socket.io";

/** The same cap on a message as ours (CHAT_LIMITS.message). */
const MAX_CONTENT = 1000;

const http = createServer();
const io = new Server(http, {
  // Every browser a chat site meets speaks WebSocket; long-polling first would only add a step.
  transports: ["websocket"],
  serveClient: false,
  // The same frame cap as ours.
  maxHttpBufferSize: 64 * 1024,
});

let waiting = null;
let chats = 0;
let messages = 0;

function part(socket) {
  if (waiting === socket) waiting = null;
  const partner = socket.data.partner;
  if (!partner) return;
  socket.data.partner = null;
  partner.data.partner = null;
  partner.emit("ended");
}

io.on("connection", (socket) => {
  socket.data.partner = null;
  socket.on("start", () => {
    if (socket.data.partner || waiting === socket) return;
    if (waiting?.connected) {
      const other = waiting;
      waiting = null;
      chats += 1;
      const chatId = chats.toString(36);
      other.data.partner = socket;
      socket.data.partner = other;
      other.emit("matched", { chatId });
      socket.emit("matched", { chatId });
    } else {
      waiting = socket;
    }
  });
  socket.on("send", (content, ack) => {
    const partner = socket.data.partner;
    if (!partner || typeof content !== "string" || content.length === 0) return;
    messages += 1;
    const message = {
      id: messages.toString(36),
      content: content.slice(0, MAX_CONTENT),
      timestamp: Date.now(),
    };
    partner.emit("message", { ...message, from: "partner" });
    if (typeof ack === "function") ack({ ...message, from: "me" });
  });
  socket.on("end", () => part(socket));
  socket.on("disconnect", () => part(socket));
});

http.listen(0, "127.0.0.1", () => {
  const { port } = http.address();
  console.log(JSON.stringify({ ready: true, url: `http://127.0.0.1:${port}`, pid: process.pid }));
});

process.on("SIGTERM", () => {
  io.close();
  process.exit(0);
});
