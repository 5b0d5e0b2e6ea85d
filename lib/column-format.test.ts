import { describe, expect, it } from "vitest";

import {
  byteColumnFormat,
  columnDecimals,
  columnNumberFormat,
  formatDurationIn,
  pickByteUnit,
  pickDurationUnit,
  withUnitHeader,
} from "./column-format";

describe("duration columns", () => {
  it("picks the unit from the column's largest value: ms under 1 s, s under 2 min, then m:ss, h:mm; d h when most are days", () => {
    expect(pickDurationUnit([0.05, 0.2, 0.9])).toBe("ms");
    expect(pickDurationUnit([0.2, 1, 46.2, 119])).toBe("s");
    expect(pickDurationUnit([5, 120, 1740, 3000])).toBe("m:ss");
    expect(pickDurationUnit([15, 16, 46.2, 3600, 86_400])).toBe("h:mm");
    expect(pickDurationUnit([86_400, 200_000, 400_000, 60])).toBe("d h");
    expect(pickDurationUnit([])).toBe("s");
    expect(pickDurationUnit([null, Number.NaN, Number.POSITIVE_INFINITY])).toBe("s");
  });

  it("prints one format down a column that once mixed '46.2 s', '29m 00s', '13h 00m', '1d 0h'", () => {
    const col = [46.2, 29 * 60, 13 * 3600, 86_400];
    const unit = pickDurationUnit(col);
    expect(unit).toBe("h:mm");
    expect(col.map((s) => formatDurationIn(s, unit))).toEqual(["0:01", "0:29", "13:00", "24:00"]);
    expect(withUnitHeader("Duration", unit)).toBe("Duration (h:mm)");
  });

  it("formats each unit without a unit in the cell", () => {
    expect(formatDurationIn(0.85, "ms")).toBe("850");
    expect(formatDurationIn(46.25, "s")).toBe("46.3");
    expect(formatDurationIn(4, "s")).toBe("4.0");
    expect(formatDurationIn(245, "m:ss")).toBe("4:05");
    expect(formatDurationIn(8000, "h:mm")).toBe("2:13");
    expect(formatDurationIn(4 * 86_400 + 4 * 3600, "d h")).toBe("4d 04h");
    expect(formatDurationIn(0, "s")).toBe("0.0");
    expect(formatDurationIn(-3, "m:ss")).toBe("0:00");
    expect(formatDurationIn(null, "s")).toBe("—");
    expect(formatDurationIn(Number.NaN, "s")).toBe("NaN");
  });
});

describe("number columns", () => {
  it("gives every cell of a column the same decimals: 941 beside 958.6 reads 941.0", () => {
    const f = columnNumberFormat([941, 958.6, 12]);
    expect([941, 958.6, 12].map(f)).toEqual(["941.0", "958.6", "12.0"]);
  });

  it("uses thousands separators and no decimals from 1000 on, none for whole columns", () => {
    expect(columnDecimals([12_412, 9950.5])).toBe(0);
    expect(columnNumberFormat([12_412, 9950.5])(12_412)).toBe("12,412");
    expect(columnDecimals([1, 2, 3])).toBe(0);
    expect(columnDecimals([0.026, 0.18, 0.858])).toBe(3);
    expect(columnNumberFormat([0.026, 0.18])(0.18)).toBe("0.180");
    expect(columnDecimals([])).toBe(0);
  });
});

describe("byte columns", () => {
  it("puts 1.0 TB and 1,005.4 GB in one unit", () => {
    const col = [1.0e12, 1005.4e9, 998e9];
    const { unit, format } = byteColumnFormat(col);
    expect(unit).toBe("GB");
    expect(col.map(format)).toEqual(["1,000", "1,005", "998"]);
  });

  it("picks the unit by the smallest value, so no cell reads 0", () => {
    expect(pickByteUnit([1.1e6, 2.2e6, 5e9])).toBe("MB");
    expect(pickByteUnit([0, 3e9])).toBe("GB");
    expect(pickByteUnit([])).toBe("B");
    const { unit, format } = byteColumnFormat([1.1e6, 2.25e6, 5e9]);
    expect(unit).toBe("MB");
    expect([1.1e6, 2.25e6, 5e9].map(format)).toEqual(["1.10", "2.25", "5,000.00"]);
    // 1.0 TB beside 1,005.4 GB: both in TB, told apart.
    const tb = byteColumnFormat([1.0e12, 1005.4e9]);
    expect(tb.unit).toBe("TB");
    expect([1.0e12, 1005.4e9].map(tb.format)).toEqual(["1.00", "1.01"]);
    expect(format(null)).toBe("—");
    expect(byteColumnFormat([12, 512]).format(512)).toBe("512");
  });
});
