/**
 * Where the chat keeps its state on Redis. Keys that one script touches share a hash tag, so on
 * a Redis Cluster each script runs on one node:
 *
 * The pool, `{pool}` (one slot, so pairing is one atomic step; on a Cluster, one node carries
 * all of it: starts, connects and leaves, not messages):
 *   waiting       ZSET   waiting visitor → ticket number (first come, first served)
 *   last_ticket   STRING the last ticket number
 *   visitors      HASH   "<visitor>|<field>" → value: ip, country_code, country_name,
 *                        present_since, waiting_since, ticket (while waiting: the number, with
 *                        the chat id an instance made ready for them on a Cluster), used_chat
 *                        (the last such id a chat took), chat, side ("a" or "b"), partner,
 *                        instances (those holding a stream, space-separated), muted_until; while
 *                        waiting only, what they asked of a match: anyone_from (when anyone will
 *                        do), languages (" en ja "), interest_keys (each between newlines), asked
 *                        (JSON)
 *   gone          ZSET   visitor → since when no stream is open anywhere (the grace period runs)
 *   hb            ZSET   instance → its last heartbeat
 *   on:<i>        SET    the visitors holding a stream on instance i (read when i dies)
 *   relations     HASH   "blocked:<x>|<y>" a block between two visitors, "blocked_address:<x>|<ip>"
 *                        x blocked an address, "parted:<x>|<y>" recent partners → until
 *   relation_ends ZSET   the same fields → until, so past ones are let go
 *   by_address    ZSET   "<ip>|<visitor>" (all scored 0, read by prefix): who came from an address
 *   bans          HASH   "visitor:<id>" or "ip:<hash>" → until
 *   mutes         HASH   "visitor:<id>" or "ip:<hash>" → until
 *   stats         HASH   chats (running), present (visitors present)
 *   epoch         STRING a random value; gone means Redis restarted empty
 *   lease         STRING the instance sweeping now
 * A chat, `{c:<id>}` (each chat on its own slot, so chats spread over a Cluster's nodes):
 *   (hash)        HASH   visitor_a, visitor_b, ip_a, ip_b, country_code_a, country_code_b,
 *                        country_name_a, country_name_b, muted_until_a, muted_until_b, ended,
 *                        banned_side (the side a ban ended it for), gate_changes (see the chat
 *                        scripts)
 *   :events       STREAM its events: fields "a"/"b" hold the event for that side, "m" a message's
 *                        id; under this name only while the chat runs with nobody muted, so that
 *                        a message's XADD NOMKSTREAM finding it is the send script's check; an end
 *                        or a mute renames it to
 *   :checked      STREAM the same stream, whose messages go through the send script's checks
 *                        (which name it back once the mutes have run out)
 *   :a, :b        sharded channels (on a Cluster): that side's events after "matched"
 * The Lua scripts (redis/lua/) name each key and field the same way.
 * Channels: "v:<visitor>" carries the visitor's events to whichever instances hold their streams;
 * "{pool}:life:<instance>" (sharded, on the pool's node) has a subscriber while the instance lives;
 * "bans" tells every instance of a ban made or lifted; "mutes" of a mute; "ages" of an age gate
 * answered; "rights" of an account's rights revoked (signed out, operator removed).
 */
export class RedisKeys {
  readonly visitorChannelPrefix: string;
  readonly lifeChannelPrefix: string;
  /** What every chat's keys and side channels start with (up to the chat's id in its tag). */
  readonly chatPrefix: string;
  readonly bansChannel: string;
  readonly mutesChannel: string;
  readonly agesChannel: string;
  readonly rightsChannel: string;

  constructor(readonly prefix: string) {
    this.visitorChannelPrefix = `${prefix}v:`;
    this.lifeChannelPrefix = `${prefix}{pool}:life:`;
    this.chatPrefix = `${prefix}{c:`;
    this.bansChannel = `${prefix}bans`;
    this.mutesChannel = `${prefix}mutes`;
    this.agesChannel = `${prefix}ages`;
    this.rightsChannel = `${prefix}rights`;
  }

  pool(name: string): string {
    return `${this.prefix}{pool}:${name}`;
  }

  /** Every pool script's KEYS, in this order; the last names an instance's set of visitors. */
  poolKeys(instance = "-"): string[] {
    return [...POOL_KEYS.map((name) => this.pool(name)), this.pool(`on:${instance}`)];
  }

  chat(chatId: string): [hash: string, stream: string, checked: string] {
    const tag = this.#chatTag(chatId);
    return [tag, `${tag}:events`, `${tag}:checked`];
  }

  /** The sharded channels of a chat's two sides, on the chat's slot (used on a Cluster). */
  sides(chatId: string): [a: string, b: string] {
    const tag = this.#chatTag(chatId);
    return [`${tag}:a`, `${tag}:b`];
  }

  #chatTag(chatId: string): string {
    return `${this.chatPrefix}${chatId}}`;
  }

  visitorChannel(visitorId: string): string {
    return this.visitorChannelPrefix + visitorId;
  }

  lifeChannel(instance: string): string {
    return this.lifeChannelPrefix + instance;
  }

  limit(key: string): string {
    return `${this.prefix}limit:${key}`;
  }
}

/** The pool's keys in the order its scripts' KEYS have them (redis/lua/pool/prelude.ts). */
const POOL_KEYS = [
  "waiting",
  "last_ticket",
  "visitors",
  "gone",
  "hb",
  "relations",
  "relation_ends",
  "by_address",
  "bans",
  "mutes",
  "stats",
  "epoch",
  "lease",
] as const;
