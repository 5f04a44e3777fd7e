// The guest half of coderun's event loop. Evaluated once per instance before
// any user code, as a factory: (wrapper, inspectLib, losslessLib) => api.
//
// `wrapper` is the function made by QJS_CreateFunctionProxy; the factory
// extracts the raw C proxy from it so that no later tampering with
// Function.prototype can intercept host calls. Every host call is
// raw(0, 0, 0, undefined, op, ...operands); the Go side validates all of them.
//
// api(START, mainFn, spec) starts the program; api(DELIVER, id, kind, value)
// hands over a completed binding call or a fired timer. The host drains the
// job queue after starting and after each round of deliveries.
(function (wrapper, inspectLib, losslessLib) {
  "use strict";
  const OP_LOG = 1, OP_CALL = 2, OP_TIMER = 3, OP_CLEAR = 4, OP_DONE = 5, OP_CALL_VALUE = 6, OP_DONE_VALUE = 7;
  const OP_REFUSAL = 8;
  const CALL_NEEDS_TEXT = -2, CALL_TOO_BIG = -3, CALL_NO_MEMORY = -4;
  const DONE_VALUE = 0, DONE_NONE = 1, DONE_THROW = 2, DONE_INVALID = 3, DONE_UNRENDERABLE = 4;
  const START = 1, DELIVER = 2, RENDER = 3;

  const G = globalThis;
  const ObjectCreate = Object.create, ObjectDefineProperty = Object.defineProperty;
  const ObjectSetPrototypeOf = Object.setPrototypeOf, ObjectGetPrototypeOf = Object.getPrototypeOf;
  const ObjectFreeze = Object.freeze, ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
  const ReflectApply = Reflect.apply, String_ = String, TypeError_ = TypeError, Error_ = Error, RangeError_ = RangeError;
  const ErrorIsError = Error.isError, Promise_ = Promise, PromisePrototypeThen = Promise.prototype.then;
  const NumberIsFinite = Number.isFinite, Number_ = Number;
  const FunctionPrototype = Function.prototype;
  const formatLogArgs = inspectLib.formatLogArgs, stringify = losslessLib.stringify;
  const SymbolSpecies = Symbol.species;

  // Nothing the prelude does after the program starts may consult what the
  // program controls: property descriptors have null prototypes (an
  // Object.prototype.get would otherwise make them accessors), and the
  // program's promise gets an own "constructor" whose species is undefined,
  // so that then() uses the intrinsic Promise without reading
  // Promise.prototype.constructor or Promise[Symbol.species].
  const speciesShield = ObjectFreeze({ __proto__: null, [SymbolSpecies]: undefined });

  // CallSite.prototype.getFunction (Error.prepareStackTrace's call sites)
  // would hand the program the function of every frame, the prelude's own
  // included. Every frame of a program is strict-mode code, for which V8
  // returns undefined; so does coderun, for every frame.
  {
    let site;
    const before = Error_.prepareStackTrace;
    Error_.prepareStackTrace = (e, sites) => { site = sites[0]; return ""; };
    try { new Error_().stack; } finally { Error_.prepareStackTrace = before; }
    ObjectDefineProperty(ObjectGetPrototypeOf(site), "getFunction", {
      __proto__: null, value: function getFunction() { return undefined; }, writable: true, configurable: true,
    });
  }

  // Extract the raw proxy: the wrapper calls proxy.call(this, ...).
  let raw;
  const callDesc = ObjectGetOwnPropertyDescriptor(FunctionPrototype, "call");
  ObjectDefineProperty(FunctionPrototype, "call", {
    value: function () { raw = this; }, writable: true, configurable: true,
  });
  try { wrapper(); } finally { ObjectDefineProperty(FunctionPrototype, "call", callDesc); }
  if (typeof raw !== "function") throw new Error_("coderun: host proxy not found");
  const host = raw;

  // What the C library and fastschema's build put on the global object is
  // removed; only the standard library, console and timers remain.
  for (const name of ["std", "os", "bjson", "print", "scriptArgs", "gc", "navigator",
    "setInterval", "clearInterval", "QJS_PROXY_VALUE", "console", "setTimeout", "clearTimeout"]) {
    delete G[name];
  }

  // Engine surface with known memory-safety bugs of the pinned QuickJS-NG
  // build is removed before any program code runs (docs/engine-bugs.md).
  // Nothing keeps a reference to what is deleted, so a program cannot get it
  // back. Buffers never change size and are never detached (nothing else in
  // this build can detach or resize one), which closes the whole
  // transfer/resize family; Iterator.concat and FinalizationRegistry have
  // reentrancy and lifetime bugs of their own.
  for (const [owner, name] of [
    [ArrayBuffer.prototype, "transfer"], [ArrayBuffer.prototype, "transferToFixedLength"],
    [ArrayBuffer.prototype, "resize"], [SharedArrayBuffer.prototype, "grow"],
    [Iterator, "concat"], [G, "FinalizationRegistry"],
  ]) {
    delete owner[name];
    if (ObjectGetOwnPropertyDescriptor(owner, name) !== undefined) throw new Error_("coderun: cannot remove " + name);
  }

  const makeLogger = (level) => function (...args) {
    host(0, 0, 0, undefined, OP_LOG, level, formatLogArgs(args));
  };
  const console_ = ObjectCreate(Object.prototype);
  const levels = ["log", "info", "warn", "error", "debug"];
  for (let i = 0; i < levels.length; i++) {
    ObjectDefineProperty(console_, levels[i], {
      value: makeLogger(i), writable: true, enumerable: true, configurable: true,
    });
  }
  ObjectDefineProperty(G, "console", { __proto__: null, value: console_, writable: true, configurable: true });

  // Timers: waiting happens in the host, which keeps at most
  // MAX_PENDING_TIMERS pending per run (runtime/timers.go, maxPendingTimers)
  // and refuses more with a negative id.
  const MAX_PENDING_TIMERS = 10000;
  const timers = ObjectCreate(null);
  function setTimeout(fn, ms, ...args) {
    if (typeof fn !== "function") {
      throw new TypeError_('The "callback" argument must be of type function');
    }
    let delay = Number_(ms);
    if (!(delay >= 1 && delay <= 2147483647)) delay = 1;
    const id = host(0, 0, 0, undefined, OP_TIMER, delay);
    if (id < 0) {
      throw new RangeError_("setTimeout: too many pending timers: a run may have at most " + MAX_PENDING_TIMERS +
        " timers pending at once; clear some with clearTimeout or let them fire before setting more");
    }
    timers[id] = { fn, args };
    return id;
  }
  function clearTimeout(id) {
    if (typeof id === "number" && timers[id] !== undefined) {
      delete timers[id];
      host(0, 0, 0, undefined, OP_CLEAR, id | 0);
    }
  }
  ObjectDefineProperty(G, "setTimeout", { __proto__: null, value: setTimeout, writable: true, configurable: true });
  ObjectDefineProperty(G, "clearTimeout", { __proto__: null, value: clearTimeout, writable: true, configurable: true });

  let settled = false;
  function done(kind, payload) {
    if (settled) return;
    settled = true;
    host(0, 0, 0, undefined, OP_DONE, kind, payload);
  }

  // render turns a thrown value into the text the host reports: for an Error,
  // "name: message" then its stack; otherwise String(value).
  function render(e) {
    try {
      if (ErrorIsError(e)) {
        const name = String_(e.name), message = String_(e.message);
        let head = message === "" ? name : (name === "" ? message : name + ": " + message);
        const stack = e.stack;
        if (typeof stack === "string" && stack !== "") head += "\n" + stack;
        return head;
      }
      return String_(e);
    } catch (_) {
      return undefined;
    }
  }
  function fail(e) {
    const text = render(e);
    if (typeof text === "string") done(DONE_THROW, text);
    else done(DONE_UNRENDERABLE, "");
  }
  function finish(v) {
    if (v === undefined) return done(DONE_NONE, "");
    // The host reads a small plain value in place, as it reads binding
    // arguments, and settles the run with it (0); every other value is
    // handed back to be checked and printed here.
    if (!settled && host(0, 0, 0, undefined, OP_DONE_VALUE, v) === 0) {
      settled = true;
      return;
    }
    let json;
    try { json = stringify(v); } catch (_) { json = undefined; }
    if (json === undefined) done(DONE_INVALID, "");
    else done(DONE_VALUE, json);
  }

  // Binding namespaces and their error classes. A pending call's resolving
  // functions and its { ns, member } live at its id in three dense arrays:
  // the host reuses an id once its result is delivered and only otherwise
  // takes a new one (from 1), so ids stay small.
  const nullArray = () => ObjectSetPrototypeOf([], null);
  const callResolve = nullArray(), callReject = nullArray(), callInfo = nullArray();
  callResolve[0] = callReject[0] = callInfo[0] = undefined; // index 1 appends
  function makeErrorClass(name, prop) {
    const C = class extends Error_ {
      constructor(message, member) {
        super(message);
        if (prop !== "" && member !== undefined) {
          ObjectDefineProperty(this, prop, { __proto__: null, value: member, writable: true, enumerable: true, configurable: true });
        }
      }
    };
    ObjectDefineProperty(C, "name", { __proto__: null, value: name, configurable: true });
    ObjectDefineProperty(C.prototype, "name", { __proto__: null, value: name, writable: true, configurable: true });
    return C;
  }
  // rejection makes the error a rejected call settles with. Making an Error
  // runs the program's Error.prepareStackTrace, if it set one: what that
  // throws becomes the rejection instead.
  function rejection(ns, member, message) {
    try {
      if (ns.cls === undefined) return new Error_(message);
      return new ns.cls(message, member);
    } catch (e) {
      return e;
    }
  }
  // capture is the executor of every binding call's promise: it hands the
  // resolving functions over without a closure per call.
  let capturedResolve, capturedReject;
  function capture(resolve, reject) {
    capturedResolve = resolve;
    capturedReject = reject;
  }
  // refusal is the message of a call the host refused (id < 0): for one
  // too big for a limit, the host tells the argument's size and the limit.
  function refusal(id) {
    if (id !== CALL_TOO_BIG && id !== CALL_NO_MEMORY) return "binding arguments must be lossless JSON";
    const bytes = host(0, 0, 0, undefined, OP_REFUSAL, 0), limit = host(0, 0, 0, undefined, OP_REFUSAL, 1);
    if (id === CALL_TOO_BIG) {
      return "binding argument is " + bytes + " bytes, over the limit of " + limit + " bytes (MaxArgumentBytes)";
    }
    return "binding argument of " + bytes + " bytes does not fit in the run's memory budget (MemoryBytes " + limit + ")";
  }
  function makeMember(ns, nsIndex, member, memberIndex) {
    const info = { ns, member };
    const badArguments = (id) => new Promise_((_, reject) => reject(rejection(ns, member, refusal(id))));
    return function (args) {
      // The host reads small plain values in place (no code of the program
      // can run meanwhile); it hands every other value back to be checked
      // and printed here.
      let id = host(0, 0, 0, undefined, OP_CALL_VALUE, nsIndex, memberIndex, args);
      if (id === CALL_NEEDS_TEXT) {
        const json = stringify(args); // never throws; undefined when args is not lossless (or missing)
        if (json === undefined) return badArguments(-1);
        id = host(0, 0, 0, undefined, OP_CALL, nsIndex, memberIndex, json);
      }
      // The host refuses what the guest accepts as a value but a binding
      // cannot take: a lone surrogate, a number beyond 2^53; and an
      // argument too big for MaxArgumentBytes or the run's memory.
      if (id < 0) return badArguments(id);
      const p = new Promise_(capture);
      callResolve[id] = capturedResolve;
      callReject[id] = capturedReject;
      callInfo[id] = info;
      return p;
    };
  }
  function buildBindings(spec) {
    const params = [];
    const classes = ObjectCreate(null);
    for (let i = 0; i < spec.length; i++) {
      const s = spec[i];
      let cls;
      if (s.e !== "") cls = s.s ? classes[s.e] : (classes[s.e] = makeErrorClass(s.e, s.p));
      const ns = { cls };
      const obj = ObjectCreate(null);
      for (let j = 0; j < s.m.length; j++) {
        const member = s.m[j];
        ObjectDefineProperty(obj, member, { __proto__: null, value: makeMember(ns, i, member, j), enumerable: true, writable: false, configurable: false });
      }
      ObjectFreeze(obj);
      params[params.length] = obj;
      if (ns.cls !== undefined && !s.s) params[params.length] = ns.cls;
    }
    return params;
  }

  // deliver settles the call with this id (kind 0: resolved with value, 1:
  // rejected with the message value) or runs the timer with this id (kind 2).
  function deliver(id, kind, value) {
    if (kind === 2) {
      const t = timers[id];
      if (t === undefined) return;
      delete timers[id];
      try { ReflectApply(t.fn, undefined, t.args); } catch (e) { fail(e); }
      return;
    }
    const resolve = callResolve[id];
    if (resolve === undefined) return;
    const reject = callReject[id], info = callInfo[id];
    callResolve[id] = callReject[id] = callInfo[id] = undefined; // before any user code runs
    if (kind === 0) resolve(value);
    else reject(rejection(info.ns, info.member, value));
  }

  return function api(op, a, b, c) {
    if (op === DELIVER) return deliver(a, b, c);
    if (op === RENDER) return render(a);
    if (op === START) {
      if (typeof a !== "function") {
        return done(DONE_THROW, "SyntaxError: the program must be the body of one function; it closes the wrapper early");
      }
      const params = b === undefined ? [] : buildBindings(b); // undefined: no bindings
      let p;
      try { p = ReflectApply(a, undefined, params); } catch (e) { return fail(e); }
      ObjectDefineProperty(p, "constructor", { __proto__: null, value: speciesShield });
      ReflectApply(PromisePrototypeThen, p, [finish, fail]);
    }
  };
})
