import { randomBytes } from "node:crypto";
import type { Ending, Endings } from "./endings.ts";
import type { RedisChat } from "./engine.ts";
import type { LocalVisitor } from "./local.ts";
import { RESTORE_ARGS } from "./lua/pool/index.ts";
import type { Mutes } from "./mutes.ts";
import type { Pairing } from "./pairing.ts";
import type { SideChannels } from "./sides.ts";
import type { Streams } from "./streams.ts";

/**
 * Visitors one sweeping step lets go of at most (each costs Redis their chat, the pool and a
 * dozen fields), so a step stays short and nothing waits long behind it; when many left at
 * once, steps follow one another.
 */
const SWEEP_BATCH = 5;
/** Sweeping steps one sweep takes at most. */
const SWEEP_STEPS = 2000;
/** Entries one look at past relations, bans or mutes reads. */
const SCAN_PAGE = 200;
/** A dead instance's visitors one step takes over. */
const ORPHAN_BATCH = 20;
/** Visitors one step tells Redis again after it came back empty. */
const RESTORE_BATCH = 10;

/**
 * Presence and recovery. Presence costs nothing per visitor while connected: an instance writes
 * a visitor once when their stream opens and once when it closes, and vouches for all of them
 * with one heartbeat; its life is also read from the subscriber count of a channel of its own,
 * so a killed instance's visitors are never paired. One instance at a time (a lease) sweeps
 * visitors gone past the grace period and the visitors of dead instances. The heartbeat's answer
 * says when Redis came back empty (a new epoch): then this instance says again whom it holds.
 */
export class Liveness {
  #epoch: string | undefined;
  /** A restore failed half-way (Redis was not quite back): the next heartbeat tries again. */
  #restoreFailed = false;
  #restoring: Promise<void> | undefined;
  #beating = false;
  #sweeping = false;
  #sweeps = 0;
  #cursors: [string, string] = ["0", "0"];
  /** The visitors waiting here at the last heartbeat (see #lookAgainAtLength). */
  #waitingAtLastBeat = new Set<string>();

  constructor(
    private readonly chat: RedisChat,
    private readonly parts: {
      sides: SideChannels;
      pairing: Pairing;
      streams: Streams;
      endings: Endings;
      mutes: Mutes;
    },
  ) {
    chat.every(chat.heartbeatMs, () => this.heartbeat());
    chat.every(chat.sweepEveryMs, () => this.#sweep());
  }

  async connect(): Promise<void> {
    await this.chat.bus.ssubscribe(this.chat.keys.lifeChannel(this.chat.instance));
  }

  /**
   * One heartbeat vouches for every visitor this instance holds. Its answer is Redis's epoch (a
   * new one means Redis lost its state) and whether this instance's life channel still has its
   * subscriber on the pool's node.
   */
  async heartbeat(): Promise<void> {
    if (this.#beating || this.chat.closed) return;
    this.#beating = true;
    try {
      // The time is read when the step runs, not when its timer was due.
      await null;
      const { keys, instance } = this.chat;
      const life = keys.lifeChannel(instance);
      const [answer, listening] = (await this.chat.beat.run(
        [keys.pool("hb"), keys.pool("epoch")],
        [this.chat.time.now(), instance, randomBytes(9).toString("base64url"), life],
      )) as [string, number];
      const epoch = String(answer);
      const before = this.#epoch;
      this.#epoch = epoch;
      if ((before !== undefined && before !== epoch) || this.#restoreFailed) await this.#restore();
      else if (Number(listening) === 0 && before !== undefined) await this.#resubscribe(life);
      // After those too: a restore that failed half-way looked for nobody, and either can have
      // come before a start that it missed.
      await this.#lookAgainAtLength();
      this.parts.mutes.tidy();
    } finally {
      this.#beating = false;
    }
  }

  /** The grace period of the visitors held here starts now (those already elsewhere keep on). */
  async close(): Promise<void> {
    try {
      await this.#orphan(this.chat.instance);
      await this.chat.leaseRelease.run([this.chat.keys.pool("lease")], [this.chat.instance]);
    } catch (error) {
      this.chat.fail("leaving the pool", error);
    }
  }

  /**
   * Looks at the pool again for the visitors who were already waiting here at the last
   * heartbeat, and tells those it has paired meanwhile where they stand. After a Redis node
   * restarted, the client renews its subscriptions by itself, unseen here: a start can come
   * before this instance is heard on its life channel (it is then paired with nobody, and
   * nothing else would look for them again), and a "matched" can go out on a channel not yet
   * heard again.
   */
  async #lookAgainAtLength(): Promise<void> {
    const waiting = new Set<string>();
    for (const local of this.chat.visitors.values()) {
      if (local.streams.size > 0 && local.state === "waiting") waiting.add(local.id);
    }
    const before = this.#waitingAtLastBeat;
    this.#waitingAtLastBeat = waiting;
    for (const visitorId of waiting) {
      if (!before.has(visitorId)) continue;
      await this.parts.pairing.lookAgain(visitorId);
      const local = this.chat.visitors.get(visitorId);
      if (local?.state === "waiting" && local.attached) {
        await this.parts.streams.catchUpWith(visitorId, local);
      }
    }
  }

  /** Looks at the pool again for every visitor waiting here. */
  async #lookAgain(): Promise<void> {
    for (const local of [...this.chat.visitors.values()]) {
      if (local.streams.size === 0 || local.state !== "waiting") continue;
      await this.parts.pairing.lookAgain(local.id);
    }
  }

  /**
   * The pool's node has no subscriber on this instance's life channel, though this instance
   * lives: its sharded subscriptions did not outlive their nodes' restart. Without them nobody
   * is paired with its visitors and chats opened for them go unheard, so they are made again,
   * and those waiting are looked for again.
   */
  async #resubscribe(life: string): Promise<void> {
    await this.chat.bus.ssubscribe(life);
    this.chat.distrustSides();
    this.parts.sides.renewAll();
    await this.#lookAgain();
  }

  /**
   * Redis came back empty: every visitor this instance holds is told again, as they were; a
   * chat whose keys are gone is lost, and both sides hear it (a fresh status), each from the
   * instance holding them.
   */
  #restore(): Promise<void> {
    this.#restoring ??= (async () => {
      this.#restoreFailed = false;
      try {
        this.chat.distrustSides();
        this.parts.sides.renewAll();
        const groups: string[] = [];
        const lost: Array<{ local: LocalVisitor; chatId: string }> = [];
        for (const [visitorId, local] of this.chat.visitors) {
          if (local.streams.size === 0) continue;
          let state = local.state;
          const current = local.chat;
          if (current && state === "chatting") {
            const alive = Number(await this.chat.chatRun("alive", current.id, [visitorId]));
            if (alive !== 1) {
              state = "idle";
              lost.push({ local, chatId: current.id });
            }
          }
          groups.push(
            visitorId,
            state,
            current?.id ?? "",
            current?.side ?? "",
            current?.partner ?? "",
            local.ip,
            local.country.code ?? "",
            local.country.name,
            ...(state === "waiting" && local.asked ? local.asked.map(String) : ["", "", "", ""]),
          );
        }
        for (let i = 0; i < groups.length; i += RESTORE_ARGS * RESTORE_BATCH) {
          await this.chat.poolRun("restore", groups.slice(i, i + RESTORE_ARGS * RESTORE_BATCH));
        }
        for (const { local, chatId } of lost) local.lose(chatId);
        // Those waiting now, though they pressed start while the above ran: the pool could not
        // pair them then (it did not know their streams yet), and nobody else looks for them.
        await this.#lookAgain();
        await this.chat.options.onRestored?.();
      } catch (error) {
        this.#restoreFailed = true;
        this.chat.fail("saying again whom this instance holds", error);
      } finally {
        this.#restoring = undefined;
      }
    })();
    return this.#restoring;
  }

  /**
   * One instance at a time (a lease, taken with SET NX PX and kept or let go only by its
   * holder) ends the chats of visitors gone past the grace period, and takes the visitors of
   * instances whose heartbeat stopped.
   */
  async #sweep(): Promise<void> {
    if (this.#sweeping || this.chat.closed) return;
    this.#sweeping = true;
    try {
      await null;
      const held = await this.chat.leaseTake.run(
        [this.chat.keys.pool("lease")],
        [this.chat.instance, Math.max(2000, 3 * this.chat.sweepEveryMs)],
      );
      if (Number(held) !== 1) return;
      // Past bans and mutes are let go now and then, a page at a time.
      const cleaning = this.#sweeps++ % 10 === 0;
      // Each step is bounded; when many left at once (an instance died), steps follow at once.
      for (let step = 0; step < SWEEP_STEPS; step++) {
        const answer = await this.chat.poolRun<{
          dead: string[] | Record<string, never>;
          chats: Ending[] | Record<string, never>;
          cursors: [string, string];
          more: boolean;
        }>("sweep", [
          this.chat.graceMs,
          SWEEP_BATCH,
          SCAN_PAGE,
          ...(cleaning && step === 0 ? this.#cursors : ["-", "-"]),
        ]);
        if (cleaning && step === 0) this.#cursors = answer.cursors;
        const chats = Array.isArray(answer.chats) ? answer.chats : [];
        await this.parts.endings.finish(chats, (ending) => ({
          leaver: "",
          partner: JSON.stringify({ type: "partner-left", chatId: ending.chat }),
        }));
        for (const dead of Array.isArray(answer.dead) ? answer.dead : []) {
          // An instance that sweeps is alive, whatever a clock moved by hand says.
          if (dead !== this.chat.instance) await this.#orphan(dead);
        }
        if (!answer.more) break;
      }
    } finally {
      this.#sweeping = false;
    }
  }

  /** The visitors an instance held start their grace period, a batch at a time. */
  async #orphan(instance: string): Promise<void> {
    while (
      Number(await this.chat.poolRun<number>("orphan", [instance, ORPHAN_BATCH], instance)) > 0
    );
  }
}
