// Event, EventTarget (https://dom.spec.whatwg.org/#events), AbortController
// and AbortSignal (https://dom.spec.whatwg.org/#aborting-ongoing-activities).
// A group of coderun's web globals (runtime/web.go). An exception thrown by
// a listener is reported as an uncaught one: it ends the run (as it ends a
// Node or Deno process), from a timer, after the dispatch completes.
(function (lib) {
  "use strict";
  const DOMException_ = lib.DOMException, setTimeout_ = lib.setTimeout, TypeError_ = TypeError;
  const ReflectApply = Reflect.apply, String_ = String;
  const perf = globalThis.performance, now = perf.now;
  const defineProperty = Object.defineProperty;
  const illegal = () => new TypeError_("Illegal constructor");
  const secret = {};

  const NONE = 0, CAPTURING_PHASE = 1, AT_TARGET = 2, BUBBLING_PHASE = 3;
  class Event {
    #type; #bubbles; #cancelable; #composed; #timeStamp;
    #canceled = false; #target = null; #currentTarget = null; #phase = NONE;
    #stop = false; #stopNow = false; #dispatching = false; #inPassive = false;
    constructor(type, init = undefined) {
      if (arguments.length === 0) throw new TypeError_('Event: the "type" argument is required');
      this.#type = String_(type);
      const o = init === undefined || init === null ? {} : init;
      this.#bubbles = !!o.bubbles;
      this.#cancelable = !!o.cancelable;
      this.#composed = !!o.composed;
      this.#timeStamp = ReflectApply(now, perf, []);
      defineProperty(this, "isTrusted", { get: isTrusted, enumerable: true, configurable: false });
    }
    get type() { return this.#type; }
    get target() { return this.#target; }
    get srcElement() { return this.#target; }
    get currentTarget() { return this.#currentTarget; }
    get eventPhase() { return this.#phase; }
    get bubbles() { return this.#bubbles; }
    get cancelable() { return this.#cancelable; }
    get composed() { return this.#composed; }
    get defaultPrevented() { return this.#canceled; }
    get timeStamp() { return this.#timeStamp; }
    get returnValue() { return !this.#canceled; }
    set returnValue(v) { if (!v) this.preventDefault(); }
    get cancelBubble() { return this.#stop; }
    set cancelBubble(v) { if (v) this.#stop = true; }
    composedPath() { return this.#dispatching && this.#currentTarget !== null ? [this.#currentTarget] : []; }
    preventDefault() { if (this.#cancelable && !this.#inPassive) this.#canceled = true; }
    stopPropagation() { this.#stop = true; }
    stopImmediatePropagation() { this.#stop = this.#stopNow = true; }
    // The dispatch's access to the event's state.
    static _dispatching(e) { return e.#dispatching; }
    static _begin(e, target) {
      e.#dispatching = true;
      e.#stop = e.#stopNow = false;
      e.#target = e.#currentTarget = target;
      e.#phase = AT_TARGET;
    }
    static _end(e) {
      e.#dispatching = false;
      e.#currentTarget = null;
      e.#phase = NONE;
      e.#stop = e.#stopNow = false;
    }
    static _stopped(e) { return e.#stopNow; }
    static _passive(e, p) { e.#inPassive = p; }
  }
  function isTrusted() { return false; }
  const phases = { NONE, CAPTURING_PHASE, AT_TARGET, BUBBLING_PHASE };
  for (const k in phases) {
    defineProperty(Event, k, { value: phases[k], enumerable: true });
    defineProperty(Event.prototype, k, { value: phases[k], enumerable: true });
  }
  const evDispatching = Event._dispatching, evBegin = Event._begin, evEnd = Event._end;
  const evStopped = Event._stopped, evPassive = Event._passive;
  for (const k of ["_dispatching", "_begin", "_end", "_stopped", "_passive"]) delete Event[k];
  const isEvent = (e) => { try { evDispatching(e); return true; } catch (_) { return false; } };

  const flatten = (o) => (typeof o === "boolean" ? o : o !== null && typeof o === "object" ? !!o.capture : false);
  const report = (e) => setTimeout_(() => { throw e; }, 0);

  class EventTarget {
    #listeners = new Map();
    addEventListener(type, callback, options = undefined) {
      if (arguments.length < 2) throw new TypeError_('EventTarget.addEventListener: the "type" and "listener" arguments are required');
      if (callback === null || callback === undefined) return;
      if (typeof callback !== "function" && typeof callback !== "object") {
        throw new TypeError_('EventTarget.addEventListener: the "listener" argument must be a function or an object');
      }
      type = String_(type);
      const capture = flatten(options);
      let once = false, passive = false, signal;
      if (options !== null && typeof options === "object") {
        once = !!options.once;
        passive = !!options.passive;
        signal = options.signal;
        if (signal !== undefined && !isSignal(signal)) {
          throw new TypeError_('EventTarget.addEventListener: the "signal" option must be an AbortSignal');
        }
      }
      if (signal !== undefined && signal.aborted) return;
      let list = this.#listeners.get(type);
      if (list === undefined) this.#listeners.set(type, (list = []));
      for (const l of list) if (l.callback === callback && l.capture === capture) return;
      const l = { callback, capture, once, passive, removed: false };
      list.push(l);
      if (signal !== undefined) signalFollow(signal, () => this.#remove(type, l));
    }
    removeEventListener(type, callback, options = undefined) {
      if (arguments.length < 2) throw new TypeError_('EventTarget.removeEventListener: the "type" and "listener" arguments are required');
      const capture = flatten(options);
      const list = this.#listeners.get(String_(type));
      if (list === undefined) return;
      for (const l of list) if (l.callback === callback && l.capture === capture) return this.#remove(String_(type), l);
    }
    #remove(type, l) {
      const list = this.#listeners.get(type);
      if (list === undefined) return;
      const i = list.indexOf(l);
      if (i >= 0) {
        list.splice(i, 1);
        l.removed = true;
      }
    }
    dispatchEvent(event) {
      if (!isEvent(event)) throw new TypeError_('EventTarget.dispatchEvent: the "event" argument must be an Event');
      if (evDispatching(event)) throw new DOMException_("The event is already being dispatched.", "InvalidStateError");
      evBegin(event, this);
      try {
        const list = this.#listeners.get(event.type);
        if (list !== undefined) {
          for (const l of [...list]) {
            if (l.removed) continue;
            if (l.once) this.#remove(event.type, l);
            evPassive(event, l.passive);
            try {
              if (typeof l.callback === "function") ReflectApply(l.callback, this, [event]);
              else {
                const f = l.callback.handleEvent;
                if (typeof f !== "function") throw new TypeError_("The listener's handleEvent is not a function");
                ReflectApply(f, l.callback, [event]);
              }
            } catch (e) {
              report(e);
            }
            evPassive(event, false);
            if (evStopped(event)) break;
          }
        }
      } finally {
        evEnd(event);
      }
      return !event.defaultPrevented;
    }
  }

  // AbortSignal. Its state lives in a record the group keeps, so that an
  // abort's steps (listeners removed, dependents aborted) never read what
  // the program can change.
  const signals = new WeakMap();
  const isSignal = (s) => signals.has(s);
  const state = (s) => {
    const st = signals.get(s);
    if (st === undefined) throw new TypeError_("not an AbortSignal");
    return st;
  };
  function signalFollow(s, f) {
    const st = state(s);
    if (!st.aborted) st.algorithms.push(f);
  }
  function newSignal() {
    const s = new AbortSignal(secret);
    signals.set(s, { aborted: false, reason: undefined, algorithms: [], dependents: [], sources: undefined, handler: null, handlerSet: false });
    return s;
  }
  function signalAbort(s, reason) {
    const st = state(s);
    if (st.aborted) return;
    st.aborted = true;
    st.reason = reason === undefined ? new DOMException_("This operation was aborted", "AbortError") : reason;
    const dependents = [];
    for (const d of st.dependents) {
      const ds = state(d);
      if (!ds.aborted) {
        ds.aborted = true;
        ds.reason = st.reason;
        dependents.push(d);
      }
    }
    runAbortSteps(s);
    for (const d of dependents) runAbortSteps(d);
  }
  function runAbortSteps(s) {
    const st = state(s);
    const algorithms = st.algorithms;
    st.algorithms = [];
    for (const f of algorithms) f();
    s.dispatchEvent(new Event("abort"));
  }

  class AbortSignal extends EventTarget {
    constructor(key) {
      if (key !== secret) throw illegal();
      super();
    }
    get aborted() { return state(this).aborted; }
    get reason() { return state(this).reason; }
    throwIfAborted() {
      const st = state(this);
      if (st.aborted) throw st.reason;
    }
    get onabort() { return state(this).handler; }
    set onabort(v) {
      const st = state(this);
      st.handler = typeof v === "function" || (typeof v === "object" && v !== null) ? v : null;
      if (!st.handlerSet && st.handler !== null) {
        st.handlerSet = true;
        this.addEventListener("abort", function (e) {
          const h = st.handler;
          if (typeof h === "function") return ReflectApply(h, this, [e]);
        });
      }
    }
    static abort(reason = undefined) {
      const s = newSignal();
      const st = state(s);
      st.aborted = true;
      st.reason = reason === undefined ? new DOMException_("This operation was aborted", "AbortError") : reason;
      return s;
    }
    static timeout(ms) {
      const n = Number(ms);
      if (!(n >= 0 && n <= Number.MAX_SAFE_INTEGER) || arguments.length === 0) {
        throw new TypeError_('AbortSignal.timeout: the "milliseconds" argument must be a non-negative integer');
      }
      const s = newSignal();
      setTimeout_(() => signalAbort(s, new DOMException_("The operation was aborted due to timeout", "TimeoutError")), n);
      return s;
    }
    static any(list) {
      const sources = [...list];
      for (const x of sources) if (!isSignal(x)) throw new TypeError_("AbortSignal.any: every member must be an AbortSignal");
      const s = newSignal();
      const st = state(s);
      for (const x of sources) {
        const xs = state(x);
        if (xs.aborted) {
          st.aborted = true;
          st.reason = xs.reason;
          return s;
        }
      }
      // A dependent signal follows the sources of a dependent one
      // (https://dom.spec.whatwg.org/#create-a-dependent-abort-signal).
      st.sources = [];
      for (const x of sources) {
        const xs = state(x);
        for (const y of xs.sources === undefined ? [x] : xs.sources) {
          const ys = state(y);
          if (!ys.dependents.includes(s)) ys.dependents.push(s);
          if (!st.sources.includes(y)) st.sources.push(y);
        }
      }
      return s;
    }
  }

  class AbortController {
    #signal = newSignal();
    get signal() { return this.#signal; }
    abort(reason = undefined) { signalAbort(this.#signal, reason); }
  }

  for (const C of [Event, EventTarget, AbortSignal, AbortController]) {
    defineProperty(C.prototype, Symbol.toStringTag, { value: C.name, configurable: true });
  }
  return { __proto__: null, Event, EventTarget, AbortController, AbortSignal };
})
