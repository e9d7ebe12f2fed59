// The watchdog of request body reads: many deadlines on one timer, armed for the earliest,
// keeping the process alive only while a deadline is pending. Driven by a fake clock.
import assert from "node:assert/strict";
import { Watchdog, type WatchdogClock } from "../../src/http/watchdog.ts";

interface Timer {
  fn: () => void;
  at: number;
  alive: boolean;
  cancelled: boolean;
}

function fakeClock() {
  const timers: Timer[] = [];
  const clock = {
    t: 0,
    timers,
    now: () => clock.t,
    schedule(fn: () => void, ms: number) {
      const timer = { fn, at: clock.t + ms, alive: false, cancelled: false };
      timers.push(timer);
      return timer;
    },
    cancel: (h: unknown) => void ((h as Timer).cancelled = true),
    keepAlive: (h: unknown, yes: boolean) => void ((h as Timer).alive = yes),
    /** Move the clock to `t`, running due timers in order. */
    advance(t: number) {
      for (;;) {
        const due = timers.filter((x) => !x.cancelled && x.at <= t).sort((a, b) => a.at - b.at)[0];
        if (!due) break;
        clock.t = due.at;
        due.cancelled = true; // ran
        due.fn();
      }
      clock.t = t;
    },
    live: () => timers.filter((x) => !x.cancelled),
  };
  return clock satisfies WatchdogClock & Record<string, unknown>;
}

Deno.test("watchdog: one timer for many deadlines; only overdue ones expire", () => {
  const clock = fakeClock();
  const dog = new Watchdog(clock);
  const expired: number[] = [];
  const watches = [0, 10, 20, 30].map((start) => {
    clock.advance(start);
    return dog.watch(100, () => expired.push(start));
  });
  assert.equal(clock.timers.length, 1, "one timer for four deadlines");
  assert.equal(clock.live()[0].at, 100, "armed for the earliest");
  watches[1].done();
  clock.advance(105);
  assert.deepEqual(expired, [0]);
  assert.ok(watches[0].expired && !watches[2].expired);
  assert.equal(clock.live()[0].at, 120, "re-armed for the next pending deadline (10 is done)");
  clock.advance(200);
  assert.deepEqual(expired, [0, 20, 30]);
  assert.equal(dog.pending, 0);
  assert.equal(clock.live().length, 0, "no timer once nothing is pending");
  assert.ok(!watches[1].expired, "a finished operation never expires");
});

Deno.test("watchdog: an earlier deadline re-arms; the timer holds the process only while needed", () => {
  const clock = fakeClock();
  const dog = new Watchdog(clock);
  const slow = dog.watch(1000, () => {});
  assert.equal(clock.live()[0].at, 1000);
  assert.ok(clock.live()[0].alive);
  const fast = dog.watch(50, () => {});
  assert.equal(clock.live().length, 1, "the old timer is cancelled");
  assert.equal(clock.live()[0].at, 50);
  fast.done();
  slow.done();
  assert.equal(clock.live()[0].alive, false, "nothing pending: the timer lets the process exit");
  const again = dog.watch(1000, () => {});
  assert.equal(clock.live().length, 1, "the armed timer is reused");
  assert.ok(clock.live()[0].alive, "a pending deadline holds the process again");
  clock.advance(50); // the early timer fires, finds the new deadline pending, re-arms for it
  assert.equal(clock.live()[0].at, 1000);
  assert.ok(!again.expired);
  clock.advance(1000);
  assert.ok(again.expired);
});
