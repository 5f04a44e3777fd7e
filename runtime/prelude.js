// The guest half of coderun's event loop. Evaluated once per instance before
// any user code, as a factory: (wrapper, inspectLib, losslessLib,
// installWeb) => api.
//
// `wrapper` is the host function made by the glue's coderun_new_function, a
// C function that passes its arguments straight to the host, so no later
// tampering with Function.prototype can intercept host calls. Every host
// call is host(0, 0, 0, undefined, op, ...operands) (the host skips the
// first four); the Go side validates all of them.
//
// api(START, mainFn, spec) starts the program; api(DELIVER, id, kind, value)
// hands over a completed binding call or a fired timer. The host drains the
// job queue after starting and after each round of deliveries. api(RENDER,
// e) renders an exception; api(OP_DIVERGED) says where the program is
// (locate).
(function (wrapper, inspectLib, losslessLib, installWeb) {
  "use strict";
  // The protocol's numbers (OP_*, DONE_*, CALL_*, EV_*, START, DELIVER,
  // RENDER) are not declared here: the host declares them around the
  // prelude, from its one table of them (hostcalls.Protocol), when it builds
  // the engine's snapshot.

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
  // What START's property definition needs is made here, once, in the
  // snapshot, rather than by every run: its descriptor, and the shape a
  // promise takes when it gets the shield, which shapeHolder keeps alive so
  // that a run's promise finds it instead of making it.
  const shieldDescriptor = ObjectFreeze({ __proto__: null, value: speciesShield });
  const shapeHolder = new Promise_(() => {});
  ObjectDefineProperty(shapeHolder, "constructor", shieldDescriptor);

  // CallSite.prototype.getFunction (Error.prepareStackTrace's call sites)
  // would hand the program the function of every frame, the prelude's own
  // included. The engine's call sites never reach the program: see
  // "Stacks" below, which hands it call sites of its own making, whose
  // getFunction returns undefined, as V8's does for strict-mode code.
  let callSiteProto;
  {
    let site;
    const before = Error_.prepareStackTrace;
    Error_.prepareStackTrace = (e, sites) => { site = sites[0]; return ""; };
    try { new Error_().stack; } finally { Error_.prepareStackTrace = before; }
    callSiteProto = ObjectGetPrototypeOf(site);
  }

  // The host function (the glue's coderun_new_function) is held here and
  // nowhere the program can reach.
  if (typeof wrapper !== "function") throw new Error_("coderun: host function missing");
  const host = wrapper;

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
  function addTimer(name, fn, ms, args, repeat) {
    if (typeof fn !== "function") {
      throw new TypeError_('The "callback" argument must be of type function');
    }
    let delay = Number_(ms);
    if (!(delay >= 1 && delay <= 2147483647)) delay = 1;
    const id = host(0, 0, 0, undefined, OP_TIMER, delay);
    if (id < 0) {
      throw new RangeError_(name + ": too many pending timers: a run may have at most " + MAX_PENDING_TIMERS +
        " timers pending at once; clear some with clearTimeout or let them fire before setting more");
    }
    timers[id] = { fn, args, every: repeat ? delay : 0 };
    return id;
  }
  function setTimeout(fn, ms, ...args) { return addTimer("setTimeout", fn, ms, args, false); }
  // An interval keeps its id: each time it fires, the host sets its timer
  // again under that id (OP_TIMER with the id) before the callback runs.
  function setInterval(fn, ms, ...args) { return addTimer("setInterval", fn, ms, args, true); }
  function clearTimeout(id) {
    if (typeof id === "number" && timers[id] !== undefined) {
      delete timers[id];
      host(0, 0, 0, undefined, OP_CLEAR, id | 0);
    }
  }
  ObjectDefineProperty(G, "setTimeout", { __proto__: null, value: setTimeout, writable: true, configurable: true });
  ObjectDefineProperty(G, "clearTimeout", { __proto__: null, value: clearTimeout, writable: true, configurable: true });
  function clearInterval(id) { clearTimeout(id); }
  ObjectDefineProperty(G, "setInterval", { __proto__: null, value: setInterval, writable: true, configurable: true });
  ObjectDefineProperty(G, "clearInterval", { __proto__: null, value: clearInterval, writable: true, configurable: true });
  // Web-platform globals (runtime/web.go), installed by installWeb
  // (runtime/webglobals.js), a function of its own so that the engine can
  // be built without it and its names placed after the prelude's.
  installWeb(G, host, setTimeout, clearTimeout);


  // The run's input (coderun.Request.Input) is the global `input`:
  // undefined, read-only, in a run without one. A run with one replaces it
  // before the program starts (runtime/input.js), so that this costs a run
  // without one nothing.
  ObjectDefineProperty(G, "input", { __proto__: null, value: undefined, writable: false, configurable: true });

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

  // Stacks. The engine makes an error's stack when the error is made, and
  // when its prepareStackTrace slot holds a function it calls it with the
  // error and the engine's call sites instead of writing the text itself.
  // The slot holds prepareStack for good; Error.prepareStackTrace becomes an
  // accessor that keeps what the program sets. prepareStack keeps what the
  // host's failure message always showed: the program's frames, at their
  // positions in the user's source (the host maps them: OP_POSITION), with
  // the native frames between them, and neither the prelude's frames nor
  // the host's way into the program; so err.stack read inside the program
  // is the text of the failure message, which the host shows as it is. A
  // program's own prepareStackTrace gets call sites of those frames only.
  //
  // prepareStack also finishes the message of a call of a namespace member
  // that does not exist (see noteMiss).
  // The frames of the program's function (mainFn, known once it starts)
  // are named MAIN_NAME, a name no identifier has: a function of the
  // program named like the wrapper's function (__dsh_main__) keeps its own
  // name in frames. The function is recognized by identity, which costs a
  // run nothing until a stack is made.
  const PRELUDE_FILE = "coderun:prelude", MAIN_NAME = "<program>";
  let mainFn;
  const POSITION_SCALE = 67108864; // the host packs a position as line * 2^26 + column
  const FRAME_OTHER = 0, FRAME_PROGRAM = 1, FRAME_PRELUDE = 2;
  const ObjectHasOwn = Object.hasOwn, TypeErrorPrototype = TypeError_.prototype, Proxy_ = Proxy;
  const JSONStringify = JSON.stringify, SymbolToStringTag = Symbol.toStringTag;
  const StringPrototypeCharCodeAt = String.prototype.charCodeAt, ArrayPrototypeSort = Array.prototype.sort;
  const emptyArray = () => ObjectSetPrototypeOf([], null);
  const noArgs = ObjectFreeze(emptyArray());
  ObjectFreeze(callSiteProto);
  let programPrepare; // what the program set as Error.prepareStackTrace

  // The frames of the stack being made, in parallel arrays reused by every
  // call (the engine never makes a stack while it makes one), and where
  // the program's frames start and end.
  const FRAME_NATIVE = 3;
  const fKind = emptyArray(), fFile = emptyArray(), fName = emptyArray(), fLine = emptyArray(), fCol = emptyArray();
  let first, last, preludeFirst;
  let bareFirst; // the first frame is a place without a function: where a SyntaxError is

  // readSites fills the frame arrays from the engine's call sites and
  // returns how many there are. It calls their methods directly: the
  // engine's call sites and their prototype (frozen) never reach the
  // program. It reads only what a frame's kind needs: a native frame has
  // a name, a prelude frame a file and line, and only the first frame can
  // be a place without a function (a SyntaxError's).
  function readSites(sites) {
    const n = sites.length;
    first = last = -1;
    preludeFirst = bareFirst = false;
    for (let i = 0; i < n; i++) {
      const s = sites[i];
      const file = s.getFileName();
      fFile[i] = file;
      if (file === null && s.isNative()) {
        fKind[i] = FRAME_NATIVE;
        fName[i] = s.getFunctionName();
        continue;
      }
      const line = s.getLineNumber();
      fLine[i] = line;
      if (file === PRELUDE_FILE) {
        fKind[i] = FRAME_PRELUDE;
        if (first < 0) preludeFirst = true;
        continue;
      }
      const fn = s.getFunction();
      fName[i] = fn === mainFn && mainFn !== undefined ? MAIN_NAME : s.getFunctionName();
      fCol[i] = s.getColumnNumber();
      if (i === 0) bareFirst = fn === null;
      if (file === PROGRAM_FILE && line !== -1) {
        fKind[i] = FRAME_PROGRAM;
        if (first < 0) first = i;
        last = i;
      } else {
        fKind[i] = FRAME_OTHER;
      }
    }
    return n;
  }

  // userPosition returns the position in the user's source of line:col of
  // the program's script, packed, or -1 where the program has none (the
  // wrapper's code); userLocation returns it as a stack shows it, or
  // undefined. Both are cached: errors are often made in loops.
  const MAX_CACHED = 4096;
  let positions = ObjectCreate(null), positionCount = 0, locations = ObjectCreate(null), locationCount = 0;
  function userPosition(line, col) {
    const small = line >= 0 && line < 32768 && col >= 0 && col < 65536;
    const key = line * 65536 + col;
    if (small) {
      const p = positions[key];
      if (p !== undefined) return p;
    }
    const p = host(0, 0, 0, undefined, OP_POSITION, line, col);
    if (small) {
      if (positionCount === MAX_CACHED) {
        positions = ObjectCreate(null);
        positionCount = 0;
      }
      positions[key] = p;
      positionCount++;
    }
    return p;
  }
  function userLocation(line, col) {
    const small = line >= 0 && line < 32768 && col >= 0 && col < 65536;
    const key = line * 65536 + col;
    if (small) {
      const loc = locations[key];
      if (loc !== undefined) return loc === null ? undefined : loc;
    }
    const p = userPosition(line, col);
    let loc = null;
    if (p >= 0) {
      const c = p % POSITION_SCALE;
      loc = " (" + PROGRAM_FILE + ":" + (p - c) / POSITION_SCALE + ":" + c + ")\n";
    }
    if (small) {
      if (locationCount === MAX_CACHED) {
        locations = ObjectCreate(null);
        locationCount = 0;
      }
      locations[key] = loc;
      locationCount++;
    }
    return loc === null ? undefined : loc;
  }

  // A call site handed to the program's Error.prepareStackTrace.
  class CallSite {
    #native; #file; #name; #line; #col;
    constructor(native, file, name, line, col) {
      this.#native = native;
      this.#file = file;
      this.#name = name;
      this.#line = line;
      this.#col = col;
    }
    isNative() { return this.#native; }
    getFileName() { return this.#file; }
    getFunction() { return undefined; }
    getFunctionName() { return this.#name; }
    getLineNumber() { return this.#line; }
    getColumnNumber() { return this.#col; }
  }
  delete CallSite.prototype.constructor;
  ObjectDefineProperty(CallSite.prototype, SymbolToStringTag, { __proto__: null, value: "CallSite", configurable: true });

  // prepareStack makes the stack of error (see "Stacks" above).
  function prepareStack(error, sites) {
    const n = readSites(sites);
    if (locating) {
      // Made by locate: where the program's innermost frame is.
      locatedAt = first >= 0 ? userPosition(fLine[first], fCol[first]) : -1;
      release(n);
      return "";
    }
    if (capturing) {
      // Made by noteMiss, called by a namespace's get trap, called by the
      // program's code itself: a read such as tools.x.
      missPrint = n > 2 && fKind[2] === FRAME_PROGRAM ? framesPrint(2, n) : undefined;
      release(n);
      return "";
    }
    if (lastMiss !== undefined && isNotAFunction(error)) {
      const miss = lastMiss;
      lastMiss = undefined;
      if (n > 0 && fKind[0] === FRAME_PROGRAM && framesPrint(0, n) === miss.print) {
        ObjectDefineProperty(error, "message", { __proto__: null, value: missMessage(miss), writable: true, configurable: true });
      }
    }
    // The program's frames run from first to last; the host's frames
    // around them are dropped: those past the outermost (the prelude
    // calling the program, or a timer callback, through Reflect.apply)
    // and, when the prelude made the error (a binding's rejection), those
    // before the innermost.
    let from = 0, to = n;
    if (last >= 0) {
      to = last + 1;
      if (preludeFirst) from = first;
    }
    if (typeof programPrepare === "function") return prepareCustom(error, from, to, n);
    let text = "";
    for (let i = from; i < to; i++) {
      const kind = fKind[i];
      if (kind === FRAME_PRELUDE) continue;
      let name = fName[i];
      if (kind === FRAME_PROGRAM) {
        if (i === 0 && bareFirst) {
          const p = userPosition(fLine[i], fCol[i]);
          if (p < 0) continue;
          const c = p % POSITION_SCALE;
          text += "    at " + PROGRAM_FILE + ":" + (p - c) / POSITION_SCALE + ":" + c + "\n";
          continue;
        }
        const loc = userLocation(fLine[i], fCol[i]);
        if (loc === undefined) continue; // the wrapper's code
        text += "    at " + (name === MAIN_NAME ? "<program>" : name === null || name === "" ? "<anonymous>" : name) + loc;
        continue;
      }
      // As the engine writes a frame.
      if (name === null || name === "") name = "<anonymous>";
      if (kind === FRAME_NATIVE) {
        text += "    at " + name + " (native)\n";
        continue;
      }
      const file = fFile[i] === null ? "<null>" : fFile[i], line = fLine[i];
      const loc = line === -1 ? file : file + ":" + line + ":" + fCol[i];
      text += i === 0 && bareFirst ? "    at " + loc + "\n" : "    at " + name + " (" + loc + ")\n";
    }
    release(n);
    return text;
  }

  // prepareCustom calls the program's Error.prepareStackTrace with call
  // sites of frames from to to.
  function prepareCustom(error, from, to, n) {
    const kept = [];
    for (let i = from; i < to; i++) {
      const kind = fKind[i];
      if (kind === FRAME_PRELUDE) continue;
      let line = -1, col = -1, name = fName[i];
      if (kind === FRAME_PROGRAM) {
        const p = userPosition(fLine[i], fCol[i]);
        if (p < 0) continue;
        col = p % POSITION_SCALE;
        line = (p - col) / POSITION_SCALE;
        if (name === MAIN_NAME) name = null;
      } else if (kind !== FRAME_NATIVE) {
        line = fLine[i];
        col = fCol[i];
      }
      ObjectDefineProperty(kept, kept.length, {
        __proto__: null, value: new CallSite(kind === FRAME_NATIVE, fFile[i], name, line, col),
        writable: true, enumerable: true, configurable: true,
      });
    }
    release(n);
    return ReflectApply(programPrepare, Error_, [error, kept]);
  }

  // release drops the strings of the frames read, that none stays alive.
  function release(n) {
    for (let i = 0; i < n; i++) fFile[i] = fName[i] = undefined;
  }

  // framesPrint identifies the frames from `from` on: the innermost's
  // function name, and the place of every outer one. A get and a call in
  // one function on one path of calls print alike.
  function framesPrint(from, n) {
    let s = fName[from] === null ? "" : fName[from];
    for (let i = from + 1; i < n; i++) {
      if (fKind[i] === FRAME_NATIVE) s += "\n(native) " + fName[i];
      else if (fKind[i] === FRAME_PRELUDE) s += "\n" + fFile[i] + ":" + fLine[i];
      else s += "\n" + fFile[i] + ":" + fLine[i] + ":" + fCol[i];
    }
    return s;
  }

  // isNotAFunction tells the engine's error for a call of a value that is
  // not a function, reading only the error's own data.
  function isNotAFunction(e) {
    if (!ErrorIsError(e) || ObjectGetPrototypeOf(e) !== TypeErrorPrototype) return false;
    const d = ObjectGetOwnPropertyDescriptor(e, "message");
    return d !== undefined && ObjectHasOwn(d, "value") && d.value === "not a function";
  }

  // A call of a member a namespace lacks reads the member (undefined), then
  // calls it: the engine's TypeError says only "not a function". noteMiss
  // records each read of a missing member with the frames it was read in
  // (got by making an Error, which prepareStack prints while capturing);
  // the next "not a function" TypeError made in the program's code takes
  // the record, and when it was made in that same function on the same
  // path of calls, its message names the namespace, the member and the
  // functions the namespace has. A binding call or a delivery drops the
  // record. (The record is a heuristic: a read such as `tools.x?.()`
  // followed, in the same function, by a call of some other non-function
  // would be named after tools.x; the position still points to the call.)
  let lastMiss, capturing = false, missPrint;
  // locate returns the position, packed as OP_POSITION returns it, of the
  // program's innermost frame, or -1: the host of a replayed run asks for
  // it (api(OP_DIVERGED)) from inside the host function that met what the
  // trace does not hold (a call, OP_DIVERGED; a read of a clock, random
  // bytes or a time zone), with Error.stackTraceLimit raised meanwhile.
  let locating = false, locatedAt = -1;
  function locate() {
    locatedAt = -1;
    locating = true;
    try { new Error_(); } finally { locating = false; }
    return locatedAt;
  }
  function noteMiss(ns, name) {
    missPrint = undefined;
    capturing = true;
    try { new Error_(); } finally { capturing = false; }
    lastMiss = missPrint === undefined ? undefined : { ns, name, print: missPrint };
  }
  const MAX_LISTED = 20;
  function missMessage(miss) {
    const ns = miss.ns, names = emptyArray();
    for (let i = 0; i < ns.names.length; i++) names[i] = ns.names[i];
    ReflectApply(ArrayPrototypeSort, names, noArgs);
    let list = "";
    for (let i = 0; i < names.length && i < MAX_LISTED; i++) {
      list += (i === 0 ? "" : ", ") + (isIdentifier(names[i]) ? names[i] : JSONStringify(names[i]));
    }
    let has;
    if (names.length === 0) has = "it has no functions";
    else if (names.length <= MAX_LISTED) has = "its functions are: " + list;
    else has = "it has " + names.length + " functions; the first " + MAX_LISTED + " by name: " + list;
    return accessText(ns.global, miss.name) + " is not a function: " + ns.global +
      " has no function " + JSONStringify(miss.name) + "; " + has;
  }
  // namespaceHandler is the proxy handler of a namespace object: members
  // are read from the frozen target; a read of one it lacks is noted.
  function namespaceHandler(ns) {
    return ObjectFreeze({
      __proto__: null,
      get(target, key) {
        const v = target[key];
        if (v !== undefined) lastMiss = undefined;
        else if (typeof key === "string") noteMiss(ns, key);
        return v;
      },
    });
  }
  // accessText writes how a program reads member name of the namespace.
  function accessText(global, name) {
    return isIdentifier(name) ? global + "." + name : global + "[" + JSONStringify(name) + "]";
  }
  function isIdentifier(s) {
    if (s.length === 0) return false;
    for (let i = 0; i < s.length; i++) {
      const c = ReflectApply(StringPrototypeCharCodeAt, s, [i]);
      const letter = (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 36;
      if (!letter && !(i > 0 && c >= 48 && c <= 57)) return false;
    }
    return true;
  }

  // The engine's slot gets prepareStack (once everything it uses is
  // declared); Error.prepareStackTrace reads and sets programPrepare.
  {
    const prepareDesc = ObjectGetOwnPropertyDescriptor(Error_, "prepareStackTrace");
    ReflectApply(prepareDesc.set, Error_, [prepareStack]);
    const accessors = {
      get prepareStackTrace() {
        if (this === undefined || this === null) throw new TypeError_("not an object");
        return programPrepare;
      },
      set prepareStackTrace(v) {
        if (this === undefined || this === null) throw new TypeError_("not an object");
        programPrepare = v;
      },
    };
    const d = ObjectGetOwnPropertyDescriptor(accessors, "prepareStackTrace");
    ObjectDefineProperty(Error_, "prepareStackTrace", { __proto__: null, get: d.get, set: d.set, enumerable: false, configurable: true });
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
    const noArgument = () => new Promise_((_, reject) => reject(rejection(ns, member,
      accessText(ns.global, member) + " takes one argument, a JSON value such as {}, and was called without one")));
    return function (args) {
      // The host reads small plain values in place (no code of the program
      // can run meanwhile); it hands every other value back to be checked
      // and printed here.
      lastMiss = undefined;
      let id = host(0, 0, 0, undefined, OP_CALL_VALUE, nsIndex, memberIndex, args);
      if (id === CALL_DIVERGED) id = host(0, 0, 0, undefined, OP_DIVERGED); // never returns
      if (id === CALL_NEEDS_TEXT) {
        const json = stringify(args); // never throws; undefined when args is not lossless (or missing)
        // A missing argument (or undefined) is not a value: say the member takes one.
        if (json === undefined) return args === undefined ? noArgument() : badArguments(CALL_REFUSED);
        id = host(0, 0, 0, undefined, OP_CALL, nsIndex, memberIndex, json);
        if (id === CALL_DIVERGED) id = host(0, 0, 0, undefined, OP_DIVERGED); // never returns
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
      const ns = { cls, global: s.g, names: s.m };
      const obj = ObjectCreate(null);
      for (let j = 0; j < s.m.length; j++) {
        const member = s.m[j];
        ObjectDefineProperty(obj, member, { __proto__: null, value: makeMember(ns, i, member, j), enumerable: true, writable: false, configurable: false });
      }
      ObjectFreeze(obj);
      params[params.length] = new Proxy_(obj, namespaceHandler(ns));
      if (ns.cls !== undefined && !s.s) params[params.length] = ns.cls;
    }
    return params;
  }

  // deliver settles the call with this id (kind EV_RESOLVE: resolved with
  // value, EV_REJECT: rejected with the message value) or runs the timer
  // with this id (kind EV_TIMER).
  function deliver(id, kind, value) {
    lastMiss = undefined;
    if (kind === EV_TIMER) {
      const t = timers[id];
      if (t === undefined) return;
      if (t.every === 0 || host(0, 0, 0, undefined, OP_TIMER, id, t.every) !== id) delete timers[id];
      try { ReflectApply(t.fn, undefined, t.args); } catch (e) { fail(e); }
      return;
    }
    const resolve = callResolve[id];
    if (resolve === undefined) return;
    const reject = callReject[id], info = callInfo[id];
    callResolve[id] = callReject[id] = callInfo[id] = undefined; // before any user code runs
    if (kind === EV_RESOLVE) resolve(value);
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
      mainFn = a;
      let p;
      try { p = ReflectApply(a, undefined, params); } catch (e) { return fail(e); }
      ObjectDefineProperty(p, "constructor", shieldDescriptor);
      ReflectApply(PromisePrototypeThen, p, [finish, fail]);
    } else if (op === OP_DIVERGED) {
      // hostcalls.APILocate, under OP_DIVERGED's number: a replayed run's
      // host asks where the program is, from inside a host function that
      // met what the trace does not hold (last: no other operation pays
      // for this test).
      return locate();
    }
  };
})
