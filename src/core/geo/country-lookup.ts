import { readFile } from "node:fs/promises";
import { BlockList, isIP } from "node:net";
import { resolve } from "node:path";
// @ts-expect-error TypeScript has no declaration for .mmdb files. With { type: "file" } Bun gives
// the file's path, and `bun build --compile` embeds the file (the path is then under /$bunfs/).
import defaultDatabase from "@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country.mmdb" with {
  type: "file",
};
import { type CountryResponse, Reader } from "maxmind";
import {
  type Country,
  countryName,
  knownCountryCode,
  UNKNOWN_COUNTRY,
} from "../../common/country.ts";

export interface CountryLookup {
  lookup(ip: string): Country;
}

/** The bundled CC0 database (IPv4 and IPv6), from @ip-location-db/geo-whois-asn-country-mmdb. */
export const DEFAULT_DATABASE_FILE: string = defaultDatabase;

// ip-location-db databases store { country_code }; MaxMind GeoLite2 and DB-IP store
// { country: { iso_code } }, so a GEOIP_DB of either kind works.
type CountryRecord = CountryResponse & { country_code?: string };

/**
 * Addresses that belong to no country. Some are even in the database (2001:db8::/32 answers
 * JP), so they are ruled out before the lookup. BlockList matches IPv4 rules against
 * IPv4-mapped IPv6 addresses too.
 */
const nowhere = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8], // "this network", including the unspecified address
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation
  ["203.0.113.0", 24], // documentation
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, including broadcast
] as const) {
  nowhere.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 128], // unspecified
  ["::1", 128], // loopback
  ["100::", 64], // discard-only
  ["2001:db8::", 32], // documentation
  ["3fff::", 20], // documentation (RFC 9637)
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["ff00::", 8], // multicast
] as const) {
  nowhere.addSubnet(network, prefix, "ipv6");
}

const MAPPED_DOTTED = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;
const mapped = new BlockList();
mapped.addSubnet("::ffff:0:0", 96, "ipv6");

/** The IPv4 address inside an IPv4-mapped IPv6 address, which the database keeps as IPv4. */
function unmapped(ip: string): string {
  const dotted = MAPPED_DOTTED.exec(ip)?.[1];
  if (dotted) return dotted;
  // Rarer spellings (0:0:0:0:0:ffff:808:808, ::ffff:808:808): the URL parser writes them
  // canonically as ::ffff:hhhh:llll.
  const [high = "0", low = "0"] = new URL(`http://[${ip}]`).hostname.slice(8, -1).split(":");
  const h = Number.parseInt(high, 16);
  const l = Number.parseInt(low, 16);
  return `${h >> 8}.${h & 255}.${l >> 8}.${l & 255}`;
}

/**
 * A bounded cache for the reader's decoded records, keyed by their offset in the file. The
 * bundled database has about 250 distinct records, so all of them stay decoded; a larger
 * GEOIP_DB (a city database) is simply cleared and refilled when it reaches the bound.
 */
class RecordCache {
  private readonly entries = new Map<number | string, unknown>();
  constructor(private readonly max: number) {}
  get(key: number | string): unknown {
    return this.entries.get(key);
  }
  set(key: number | string, value: unknown): void {
    if (this.entries.size >= this.max) this.entries.clear();
    this.entries.set(key, value);
  }
}

const RECORD_CACHE_SIZE = 4096;

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Opens an offline IP-to-country database (MaxMind DB format). The file is read into memory
 * here rather than by maxmind's `open`, so the same code reads a file embedded in a compiled
 * binary. `databaseFile` (GEOIP_DB) replaces the bundled database; empty means not set.
 */
export async function openCountryLookup(
  options: { databaseFile?: string } = {},
): Promise<CountryLookup> {
  const file = options.databaseFile || DEFAULT_DATABASE_FILE;
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    throw new Error(
      `Cannot read the IP-to-country database at ${resolve(file)}: ${reason(error)}`,
      { cause: error },
    );
  }
  let reader: Reader<CountryRecord>;
  try {
    reader = new Reader<CountryRecord>(bytes, { cache: new RecordCache(RECORD_CACHE_SIZE) });
  } catch (error) {
    throw new Error(
      `The IP-to-country database at ${resolve(file)} is not a MaxMind DB (.mmdb) file: ${reason(error)}`,
      { cause: error },
    );
  }
  // An IPv4-only tree would answer an IPv6 address with whatever its first 32 bits spell.
  const hasIpv6 = reader.metadata.ipVersion === 6;

  // One frozen Country per code, so a lookup allocates nothing of its own.
  const countries = new Map<string, Country>();
  function countryOf(code: string | undefined): Country {
    if (!code) return UNKNOWN_COUNTRY;
    let country = countries.get(code);
    if (!country) {
      const known = knownCountryCode(code);
      if (!known) return UNKNOWN_COUNTRY;
      country = Object.freeze({ code: known, name: countryName(known, "en") });
      countries.set(code, country);
    }
    return country;
  }

  return {
    lookup(ip: string): Country {
      const family = isIP(ip);
      // A zone (fe80::1%eth0) only ever scopes a local address.
      if (family === 0 || ip.includes("%")) return UNKNOWN_COUNTRY;
      if (nowhere.check(ip, family === 4 ? "ipv4" : "ipv6")) return UNKNOWN_COUNTRY;
      let address = ip;
      if (family === 6) {
        if (mapped.check(ip, "ipv6")) address = unmapped(ip);
        else if (!hasIpv6) return UNKNOWN_COUNTRY;
      }
      let record: CountryRecord | null;
      try {
        record = reader.get(address);
      } catch {
        return UNKNOWN_COUNTRY;
      }
      return countryOf(
        record?.country_code ?? record?.country?.iso_code ?? record?.registered_country?.iso_code,
      );
    },
  };
}
