// TEST AID, not k6. k6/timers double on Node's timers; tracks pending timers because a k6
// iteration only ends when its pending timers have fired or been cleared.
import { current, track, untrack } from "./state.js";

const owners = new WeakMap();

export function setTimeout(fn, delay, ...args) {
  const ctx = current();
  const handle = globalThis.setTimeout(() => {
    untrack(handle, ctx);
    fn(...args);
  }, delay);
  owners.set(handle, ctx);
  track(handle);
  return handle;
}

export function clearTimeout(handle) {
  untrack(handle, owners.get(handle) ?? current());
  globalThis.clearTimeout(handle);
}

export function setInterval(fn, delay, ...args) {
  const handle = globalThis.setInterval(fn, delay, ...args);
  owners.set(handle, current());
  track(handle);
  return handle;
}

export function clearInterval(handle) {
  untrack(handle, owners.get(handle) ?? current());
  globalThis.clearInterval(handle);
}
