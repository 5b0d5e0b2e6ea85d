import { describe, expect, it } from "vitest";

import { wallHostRows, type HostView } from "./hosts";

const host = (name: string, state: HostView["state"]) => ({ name, state }) as HostView;

describe("wallHostRows", () => {
  it("lists online hosts first, then stale, then offline, keeping the order within a state", () => {
    const hosts = [
      host("a", "offline"),
      host("b", "online"),
      host("c", "stale"),
      host("d", "online"),
    ];
    expect(wallHostRows(hosts, 10).shown.map((h) => h.name)).toEqual(["b", "d", "c", "a"]);
  });

  it("cuts at maxRows and counts what it left out", () => {
    const hosts = [
      host("a", "offline"),
      host("b", "online"),
      host("c", "offline"),
      host("d", "stale"),
    ];
    expect(wallHostRows(hosts, 2)).toEqual({
      shown: [hosts[1], hosts[3]],
      hidden: 2,
      hiddenOffline: 2,
    });
  });
});
