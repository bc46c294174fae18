/**
 * Where the chat keeps its state on Redis. Keys that one script touches share a hash tag, so on
 * a Redis Cluster each script runs on one node:
 *
 * The pool, `{pool}` (one slot, so pairing is one atomic step; on a Cluster, one node carries
 * all of it: starts, connects and leaves, not messages):
 *   q        ZSET   waiting visitor → ticket (first come, first served)
 *   t        STRING the last ticket
 *   vis      HASH   "<visitor>|<field>" → value: ip, cc, co (country), at (present since),
 *                   since (waiting since), q (ticket while waiting, with the chat id an instance
 *                   made ready for them on a Cluster), used (the last such id a chat took),
 *                   chat, side ("a" or "b"), pt (partner), inst (instances holding a stream,
 *                   space-separated), mute; while waiting only, what they asked of a match:
 *                   anyone (when anyone will do), langs (" en ja "), ikeys (interest keys
 *                   between newlines), prefs (JSON)
 *   gone     ZSET   visitor → since when no stream is open anywhere (the grace period runs)
 *   hb       ZSET   instance → its last heartbeat
 *   on:<i>   SET    the visitors holding a stream on instance i (read when i dies)
 *   rel      HASH   "b:<x>|<y>" block between two visitors, "i:<x>|<ip>" x blocked an address,
 *                   "p:<x>|<y>" recent partners → until
 *   relx     ZSET   the same fields → until, so past ones are let go
 *   ipv      ZSET   "<ip>|<visitor>" (all scored 0, read by prefix): who came from an address
 *   bans     HASH   "visitor:<id>" or "ip:<hash>" → until
 *   mutes    HASH   "visitor:<id>" or "ip:<hash>" → until
 *   stats    HASH   chats (running), present (visitors present)
 *   epoch    STRING a random value; gone means Redis restarted empty
 *   lease    STRING the instance sweeping now
 * A chat, `{c:<id>}` (each chat on its own slot, so chats spread over a Cluster's nodes):
 *   (hash)   HASH   a, b (visitors), ipa, ipb, cca, ccb, coa, cob, ma, mb (mutes), ended,
 *                   x (the side a ban ended it for)
 *   :ev      STREAM its events: fields "a"/"b" hold the event for that side, "m" a message's id;
 *                   under this name only while the chat runs with nobody muted, so that a
 *                   message's XADD NOMKSTREAM finding it is the send script's check; an end or
 *                   a mute renames it to
 *   :evc     STREAM the same stream, whose messages go through the send script's checks (which
 *                   name it back once the mutes have run out)
 *   :a, :b   sharded channels (on a Cluster): that side's events after "matched"
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
    return [tag, `${tag}:ev`, `${tag}:evc`];
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

const POOL_KEYS = [
  "q",
  "t",
  "vis",
  "gone",
  "hb",
  "rel",
  "relx",
  "ipv",
  "bans",
  "mutes",
  "stats",
  "epoch",
  "lease",
] as const;
