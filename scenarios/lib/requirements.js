// What the scripts need from k6, in one place: the driver's messages, the docs and the syntax test
// read it. k6/websockets is stable (not experimental) from k6 1.6; the scripts import it, so older
// k6 cannot load them. Their syntax stays within ES2021 (logical assignment and numeric separators
// are its newest parts), which every k6 from 0.58 parses.
export const K6_MINIMUM_VERSION = "1.6";
export const ECMA_VERSION = 2021;
