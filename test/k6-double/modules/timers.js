// TEST AID, not k6. k6/timers double on Node's timers; tracks pending timers because a k6
// iteration only ends when its pending timers have fired or been cleared.
import { track, untrack } from "./state.js";

export function setTimeout(fn, delay, ...args) {
  const handle = globalThis.setTimeout(() => {
    untrack(handle);
    fn(...args);
  }, delay);
  track(handle);
  return handle;
}

export function clearTimeout(handle) {
  untrack(handle);
  globalThis.clearTimeout(handle);
}

export function setInterval(fn, delay, ...args) {
  const handle = globalThis.setInterval(fn, delay, ...args);
  track(handle);
  return handle;
}

export function clearInterval(handle) {
  untrack(handle);
  globalThis.clearInterval(handle);
}
