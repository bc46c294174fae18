import { beforeAll, describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import {
  countryName,
  flagOf,
  knownCountryCode,
  UNKNOWN_COUNTRY,
  UNKNOWN_FLAG,
} from "../../src/common/country.ts";
import {
  type CountryLookup,
  DEFAULT_DATABASE_FILE,
  openCountryLookup,
} from "../../src/core/geo/country-lookup.ts";

const IPV4_ONLY = resolve(
  import.meta.dir,
  "../../node_modules/@ip-location-db/geo-whois-asn-country-mmdb/geo-whois-asn-country-ipv4.mmdb",
);
const unknown = { code: null, name: "Unknown" };

describe("flagOf", () => {
  test("a country code becomes its flag, in either case", () => {
    expect(flagOf("TW")).toBe("🇹🇼");
    expect(flagOf("jp")).toBe("🇯🇵");
    expect(flagOf("XK")).toBe("🇽🇰");
  });
  test("no code, a private-use code or garbage gives the unknown flag", () => {
    expect(UNKNOWN_FLAG).toBe("🏴");
    for (const code of [null, "", "ZZ", "XA", "AA", "T1", "TWN", "🇹🇼", " TW"]) {
      expect(flagOf(code)).toBe("🏴");
    }
    expect(knownCountryCode("tw")).toBe("TW");
    expect(knownCountryCode("QO")).toBeNull();
  });
});

describe("countryName", () => {
  test("names the country in the visitor's language", () => {
    expect(countryName("TW", "zh-TW")).toBe("台灣");
    expect(countryName("JP", "en")).toBe("Japan");
    expect(countryName("TW", "en")).toBe("Taiwan");
  });
  test("falls back to Unknown / 未知", () => {
    expect(countryName(null, "en")).toBe("Unknown");
    expect(countryName(null, "zh-TW")).toBe("未知");
    expect(countryName("ZZ", "en")).toBe("Unknown");
    expect(countryName("not a code", "zh-TW")).toBe("未知");
  });
});

describe("openCountryLookup with the bundled database", () => {
  let geo: CountryLookup;
  beforeAll(async () => {
    geo = await openCountryLookup({});
  });

  test("well-known public IPv4 and IPv6 addresses get their country", () => {
    // Google Public DNS and HiNet's DNS (Chunghwa Telecom), as this database places them.
    expect(geo.lookup("8.8.8.8")).toEqual({ code: "US", name: "United States" });
    expect(geo.lookup("2001:4860:4860::8888")).toEqual({ code: "US", name: "United States" });
    expect(geo.lookup("168.95.1.1")).toEqual({ code: "TW", name: "Taiwan" });
    expect(geo.lookup("2001:b000:168::1")).toEqual({ code: "TW", name: "Taiwan" });
  });

  test("IPv4-mapped IPv6 is looked up as IPv4, however it is written", () => {
    expect(geo.lookup("::ffff:168.95.1.1").code).toBe("TW");
    expect(geo.lookup("::FFFF:8.8.8.8").code).toBe("US");
    expect(geo.lookup("0:0:0:0:0:ffff:a85f:101").code).toBe("TW");
    expect(geo.lookup("::ffff:10.0.0.1")).toEqual(unknown);
  });

  test("private, loopback, link-local, CGNAT and documentation addresses are Unknown", () => {
    for (const ip of [
      "10.1.2.3",
      "172.16.0.1",
      "192.168.1.1",
      "127.0.0.1",
      "169.254.1.1",
      "100.64.0.1",
      "0.0.0.0",
      "192.0.2.1",
      "203.0.113.9",
      "255.255.255.255",
      "::",
      "::1",
      "fe80::1",
      "fe80::1%eth0",
      "fd12:3456::1",
      "fc00::1",
      // the database does answer this one (JP), but it names no real network
      "2001:db8::1",
    ]) {
      expect(geo.lookup(ip)).toEqual(unknown);
    }
  });

  test("garbage is Unknown, never an error", () => {
    // maxmind's own parser would read "1.2.3" and "01.02.03.04" as real addresses.
    for (const ip of ["", "garbage", "1.2.3", "01.02.03.04", "999.1.1.1", " 8.8.8.8", "[::1]"]) {
      expect(geo.lookup(ip)).toEqual(unknown);
    }
  });

  test("Unknown is one shared, frozen value", () => {
    expect(geo.lookup("10.0.0.1")).toBe(UNKNOWN_COUNTRY);
    expect(Object.isFrozen(geo.lookup("8.8.8.8"))).toBe(true);
  });
});

describe("openCountryLookup with databaseFile", () => {
  test("an IPv4-only database answers IPv4 and leaves IPv6 Unknown", async () => {
    const geo = await openCountryLookup({ databaseFile: IPV4_ONLY });
    expect(geo.lookup("8.8.8.8").code).toBe("US");
    expect(geo.lookup("::ffff:168.95.1.1").code).toBe("TW");
    expect(geo.lookup("2001:b000:168::1")).toEqual(unknown);
  });

  test("an empty setting means the bundled database", async () => {
    expect(DEFAULT_DATABASE_FILE).toEndWith(".mmdb");
    const geo = await openCountryLookup({ databaseFile: "" });
    expect(geo.lookup("2001:4860:4860::8888").code).toBe("US");
  });

  test("a missing file fails with an error naming the path", async () => {
    const missing = resolve(import.meta.dir, "no-such-geoip.mmdb");
    await expect(openCountryLookup({ databaseFile: missing })).rejects.toThrow(
      `Cannot read the IP-to-country database at ${missing}`,
    );
  });

  test("a file that is not an MMDB fails with an error naming the path", async () => {
    const notMmdb = resolve(import.meta.dir, "../../package.json");
    await expect(openCountryLookup({ databaseFile: notMmdb })).rejects.toThrow(
      `The IP-to-country database at ${notMmdb} is not a MaxMind DB (.mmdb) file`,
    );
  });
});
