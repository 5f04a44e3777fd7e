// lossless.js: guest-side lossless JSON (contract §6).
//
// This file is ONE JavaScript expression: a factory that the engine's prelude
// evaluates and calls once, before any user code runs. It returns a
// null-prototype object
//
//   { stringify(value) -> string | undefined,  parse(text) -> value }
//
// stringify returns the compact JSON text of value (byte for byte what
// JSON.stringify prints for the same data: own-key order, JS number text,
// JSON string escaping including \udXXX for lone surrogates) when value is
// lossless JSON, and undefined otherwise. It never throws, never calls toJSON,
// and reads every property of the value exactly once (a non-throwing getter is
// called once and its result is serialized; a throwing one rejects).
//
// parse is the JSON.parse captured at factory time. The host validates the
// text (duplicate keys, big integers, lone surrogates, ...) before handing it
// to the guest; parse exists so that host and guest use the same captured
// parser rather than whatever the program left in globalThis.JSON.
//
// How stringify works: small values (binding arguments, typically) are
// checked and printed in one recursive pass that reads each property once and
// builds the text as it goes (direct). Containers past DIRECT_NODES nodes or
// DIRECT_DEPTH levels are handed, before any of their properties is read, to
// the mirror walk: one iterative pass (explicit stack, no recursion on the
// value) checks the container and copies it into a "mirror" made only of
// null-prototype arrays, null-prototype objects and primitives. The mirror has
// no prototypes, no accessors and no toJSON anywhere, so the captured native
// JSON.stringify can print it without running any user code. When the value is
// nested deeper than NATIVE_DEPTH the mirror is printed by an iterative
// JavaScript printer instead, so the native recursion never meets very deep
// data.
// The JavaScript printer is also used when the program has put array-index
// properties on Array.prototype or Object.prototype (or changed
// Array.prototype's prototype): QuickJS-NG's JSON.stringify keeps its own
// bookkeeping in ordinary arrays, so an index setter there would run user
// code in the middle of a native stringify of a container. (Stringifying a
// string or number primitive never touches those arrays.)
//
// User code runs later in the same realm and may replace any intrinsic, so
// every intrinsic used at call time is captured below, methods are called
// through uncurried (bound) forms, and no property is ever looked up on a
// prototype the program can reach.
(function () {
  "use strict";

  const ObjectPrototype = Object.prototype;
  const ArrayPrototype = Array.prototype;
  const ObjectGetPrototypeOf = Object.getPrototypeOf;
  const ObjectSetPrototypeOf = Object.setPrototypeOf;
  const ObjectKeys = Object.keys;
  const ObjectHasOwn = Object.hasOwn;
  const SymbolToStringTag = Symbol.toStringTag;
  const ArrayIsArray = Array.isArray;
  const ArrayBufferIsView = ArrayBuffer.isView;
  const ReflectOwnKeys = Reflect.ownKeys;
  const ReflectApply = Reflect.apply;
  const JSONStringify = JSON.stringify;
  const JSONParse = JSON.parse;
  const ArrayPrototypeJoin = Array.prototype.join;
  const ArrayOf = Array.of;
  const SetCtor = Set;
  const uncurryThis = Function.prototype.bind.bind(Function.prototype.call);
  const SetHas = uncurryThis(Set.prototype.has);
  const SetAdd = uncurryThis(Set.prototype.add);
  const SetDelete = uncurryThis(Set.prototype.delete);
  const ObjectPrototypeToString = uncurryThis(Object.prototype.toString);

  // Mirrors nested deeper than this are printed by printDeep, not by the
  // engine's recursive JSON.stringify (which handles 3,000 levels even on
  // QuickJS-NG's default 64 KiB stack, and throws a RangeError, caught
  // below, when its stack check fires).
  const NATIVE_DEPTH = 1000;
  // Values with at most this many nodes (containers and leaves) are printed
  // by printDeep even when the native printer could be used.
  const SMALL_NODES = 64;
  // Ancestors below this depth are checked for cycles by a linear scan.
  const SCAN_DEPTH = 16;
  // QuickJS-NG refuses calls with more arguments than this.
  const MAX_APPLY = 65535;

  // Thrown internally to abandon the walk; never escapes stringify.
  const REJECT = ObjectSetPrototypeOf({}, null);

  function nullArray() {
    return ObjectSetPrototypeOf([], null);
  }

  function nullObject() {
    return { __proto__: null };
  }

  // arrayLength checks the array v, whose prototype is proto, and returns
  // its length: it must be a dense Array with no other own property.
  function arrayLength(v, proto) {
    if (proto !== ArrayPrototype) throw REJECT;
    const n = v.length;
    const own = ReflectOwnKeys(v);
    // Own keys come as the indices (ascending), then "length" (the first
    // string key of every array), then other strings, then symbols. A
    // dense array without extras has exactly n indices, then "length".
    if (own.length !== n + 1 || own[n] !== "length") throw REJECT;
    return n;
  }

  // objectKeys checks the non-array object v, whose prototype is proto, and
  // returns its own keys: it must be a plain (or null-prototype) object whose
  // own keys are all enumerable strings.
  function objectKeys(v, proto) {
    if (proto !== ObjectPrototype && proto !== null) throw REJECT;
    const keys = ReflectOwnKeys(v);
    const n = keys.length;
    // A typed array or DataView moved onto Object.prototype (or a null
    // prototype) has no own keys or the indices "0", "1", ... only.
    if ((n === 0 || keys[0] === "0") && ArrayBufferIsView(v)) throw REJECT;
    // Object.keys lists the enumerable string keys only: equal counts
    // mean no symbol and no non-enumerable key — unless v is a proxy whose
    // ownKeys trap answers each call differently, so every key is checked
    // to be a string as well.
    if (ObjectKeys(v).length !== n) throw REJECT;
    for (let i = 0; i < n; i++) {
      if (typeof keys[i] !== "string") throw REJECT;
    }
    // A Date or boxed Number/Boolean moved onto Object.prototype (or a null
    // prototype) has no own keys but a builtin tag. (Other exotic objects
    // moved there, e.g. a Map, are not detected: they print {}.) The tag is
    // read only when no toStringTag can run user code.
    if (n === 0 && !ObjectHasOwn(ObjectPrototype, SymbolToStringTag) &&
        ObjectPrototypeToString(v) !== "[object Object]") throw REJECT;
    return keys;
  }

  // mirror checks the container value, whose own keys (keys, or null for an
  // array of length n) are already checked, and returns its safe copy. The
  // depth of nested containers is reported through depthOut[0], the number
  // of nodes through depthOut[1].
  function mirror(value, keys, n, depthOut) {
    const sSrc = nullArray(); // source container
    const sRead = nullArray(); // where its elements are read (source or copy)
    const sDst = nullArray(); // its mirror
    const sKeys = nullArray(); // own keys (objects) or null (arrays)
    const sIdx = nullArray(); // next position
    const sLen = nullArray(); // element / key count
    let sp = 0;
    let maxDepth = 0;
    let nodes = 0;
    let ancestors; // a Set, made only for values nested deeper than SCAN_DEPTH

    // open checks the container v, pushes its frame and returns its mirror.
    // Cycle check: the first SCAN_DEPTH ancestors are scanned linearly (no
    // native calls for ordinary shallow data); deeper ones live in a Set.
    function open(v) {
      const lim = sp < SCAN_DEPTH ? sp : SCAN_DEPTH;
      for (let j = 0; j < lim; j++) {
        if (sSrc[j] === v) throw REJECT; // a cycle
      }
      if (sp > SCAN_DEPTH && SetHas(ancestors, v)) throw REJECT;
      const proto = ObjectGetPrototypeOf(v);
      if (ArrayIsArray(v)) return push(v, null, arrayLength(v, proto));
      const keys = objectKeys(v, proto);
      return push(v, keys, keys.length);
    }

    // push pushes the frame of the checked container v (keys: its own keys,
    // or null for an array of length n) and returns its mirror.
    function push(v, keys, n) {
      nodes++;
      let dst;
      let copied = false;
      if (keys === null) {
        // The mirror starts as a native copy (each element read once, by
        // Array.of's argument list) and the walk then reads the copy; nested
        // containers overwrite their slot with their mirror. Past the engine's
        // argument limit the walk reads the source and appends instead.
        if (n <= MAX_APPLY) {
          dst = ReflectApply(ArrayOf, undefined, v);
          ObjectSetPrototypeOf(dst, null);
          if (dst.length !== n) throw REJECT; // a Proxy changed its mind
          copied = true;
        } else {
          dst = nullArray();
        }
      } else {
        dst = nullObject();
      }
      if (sp >= SCAN_DEPTH) {
        if (ancestors === undefined) ancestors = new SetCtor();
        SetAdd(ancestors, v);
      }
      sSrc[sp] = v;
      sRead[sp] = copied ? dst : v;
      sDst[sp] = dst;
      sKeys[sp] = keys;
      sIdx[sp] = 0;
      sLen[sp] = n;
      sp++;
      if (sp > maxDepth) maxDepth = sp;
      return dst;
    }

    const root = push(value, keys, n);

    while (sp > 0) {
      const top = sp - 1;
      const src = sRead[top];
      const dst = sDst[top];
      const keys = sKeys[top];
      const n = sLen[top];
      let i = sIdx[top];
      let pushed = false;
      while (i < n) {
        let k;
        let v;
        if (keys === null) {
          k = i;
          v = src[i];
        } else {
          k = keys[i];
          v = src[k]; // the only read of this property
        }
        i++;
        nodes++;
        const t = typeof v;
        if (t === "number") {
          // v - v is NaN for NaN and the infinities.
          if (v - v !== 0 || (v === 0 && 1 / v < 0)) throw REJECT;
          if (src !== dst) dst[k] = v; // a copied array already holds it
        } else if (t === "string" || t === "boolean" || v === null) {
          if (src !== dst) dst[k] = v;
        } else if (t === "object") {
          sIdx[top] = i;
          dst[k] = open(v);
          pushed = true;
          break;
        } else {
          throw REJECT; // undefined, bigint, symbol, function
        }
      }
      if (pushed) continue;
      if (top >= SCAN_DEPTH) SetDelete(ancestors, sSrc[top]);
      sSrc[top] = undefined;
      sRead[top] = undefined;
      sDst[top] = undefined;
      sKeys[top] = undefined;
      sp = top;
    }
    depthOut[0] = maxDepth;
    depthOut[1] = nodes;
    return root;
  }

  // hasIndexKey reports whether obj has an own key that could be an array
  // index (conservatively: any string key starting with a digit).
  function hasIndexKey(obj) {
    const keys = ReflectOwnKeys(obj);
    const n = keys.length;
    for (let i = 0; i < n; i++) {
      const k = keys[i];
      if (typeof k === "string" && k !== "") {
        const c = k[0];
        if (c >= "0" && c <= "9") return true;
      }
    }
    return false;
  }

  // prototypesClean reports whether the native JSON.stringify can print a
  // mirror without meeting user code (see the header comment).
  function prototypesClean() {
    return ObjectGetPrototypeOf(ArrayPrototype) === ObjectPrototype &&
      !hasIndexKey(ArrayPrototype) && !hasIndexKey(ObjectPrototype);
  }

  // printLeaf prints a checked primitive.
  function printLeaf(v) {
    if (typeof v === "string") return JSONStringify(v);
    if (typeof v === "number") return "" + v;
    if (v === null) return "null";
    return v ? "true" : "false";
  }

  // printDeep prints a mirror (trusted: null-prototype containers and
  // primitives only) without recursion.
  function printDeep(root) {
    const parts = nullArray();
    let np = 0;
    const sObj = nullArray();
    const sKeys = nullArray();
    const sIdx = nullArray();
    let sp = 0;
    let v = root;
    for (;;) {
      // Emit v.
      if (typeof v !== "object" || v === null) {
        parts[np++] = printLeaf(v);
      } else if (ArrayIsArray(v)) {
        parts[np++] = "[";
        sObj[sp] = v;
        sKeys[sp] = null;
        sIdx[sp] = 0;
        sp++;
      } else {
        parts[np++] = "{";
        sObj[sp] = v;
        sKeys[sp] = ReflectOwnKeys(v);
        sIdx[sp] = 0;
        sp++;
      }
      // Find the next value to emit, closing finished containers.
      let found = false;
      while (sp > 0) {
        const top = sp - 1;
        const obj = sObj[top];
        const keys = sKeys[top];
        const i = sIdx[top];
        if (keys === null) {
          if (i < obj.length) {
            if (i > 0) parts[np++] = ",";
            sIdx[top] = i + 1;
            v = obj[i];
            found = true;
            break;
          }
          parts[np++] = "]";
        } else {
          if (i < keys.length) {
            const k = keys[i];
            parts[np++] = (i > 0 ? "," : "") + JSONStringify(k) + ":";
            sIdx[top] = i + 1;
            v = obj[k];
            found = true;
            break;
          }
          parts[np++] = "}";
        }
        sObj[top] = undefined;
        sKeys[top] = undefined;
        sp = top;
      }
      if (!found) break;
    }
    return ReflectApply(ArrayPrototypeJoin, parts, [""]);
  }

  // The direct printer (direct) handles values of up to DIRECT_NODES nodes
  // nested at most DIRECT_DEPTH deep; containers beyond either bound are
  // handed, unread, to the mirror walk (printMirrored).
  const DIRECT_DEPTH = 24;
  const DIRECT_NODES = 256;
  let directNodes = 0;
  // Object keys as printed ('"key":'), for the first QUOTED_MAX keys seen.
  const quoted = nullObject();
  const QUOTED_MAX = 4096;
  let quotedCount = 0;

  // direct checks v and returns its JSON text in one recursive pass, reading
  // every property once and throwing REJECT when v is not lossless. It makes
  // no container of its own, so the program's prototypes never matter.
  // Cycles need no check of their own: one makes the recursion exceed
  // DIRECT_DEPTH, and the mirror walk then finds it.
  function direct(v, depth) {
    const t = typeof v;
    if (t === "string") return JSONStringify(v);
    if (t === "number") {
      // v - v is NaN for NaN and the infinities.
      if (v - v !== 0 || (v === 0 && 1 / v < 0)) throw REJECT;
      return "" + v;
    }
    if (t === "boolean") return v ? "true" : "false";
    if (v === null) return "null";
    if (t !== "object") throw REJECT; // undefined, bigint, symbol, function
    const proto = ObjectGetPrototypeOf(v);
    if (ArrayIsArray(v)) {
      const n = arrayLength(v, proto);
      directNodes += n + 1;
      if (depth >= DIRECT_DEPTH || directNodes > DIRECT_NODES) return printMirrored(v, null, n);
      if (n === 0) return "[]";
      let s = "[" + direct(v[0], depth + 1);
      for (let i = 1; i < n; i++) s += "," + direct(v[i], depth + 1);
      return s + "]";
    }
    const keys = objectKeys(v, proto);
    const n = keys.length;
    directNodes += n + 1;
    if (depth >= DIRECT_DEPTH || directNodes > DIRECT_NODES) return printMirrored(v, keys, n);
    if (n === 0) return "{}";
    let s = "{";
    for (let i = 0; i < n; i++) {
      const k = keys[i];
      let q = quoted[k];
      if (q === undefined) {
        q = JSONStringify(k) + ":";
        if (quotedCount < QUOTED_MAX) {
          quoted[k] = q;
          quotedCount++;
        }
      }
      s += (i === 0 ? q : "," + q) + direct(v[k], depth + 1); // the only read of v[k]
    }
    return s + "}";
  }

  // printMirrored checks the container v (see mirror for keys and n) with
  // the mirror walk and prints its mirror.
  function printMirrored(v, keys, n) {
    const depth = nullArray();
    depth[0] = 0;
    const m = mirror(v, keys, n, depth);
    // Small values are printed here: checking the prototypes for the
    // native printer costs more than printing a few dozen nodes.
    if (depth[1] > SMALL_NODES && depth[0] <= NATIVE_DEPTH && prototypesClean()) {
      try {
        return JSONStringify(m);
      } catch (e) {
        // out of native stack: print it the slow way
      }
    }
    return printDeep(m);
  }

  function stringify(value) {
    if (typeof value !== "object" || value === null) {
      try {
        return direct(value, 0);
      } catch (e) {
        return undefined; // REJECT
      }
    }
    const saved = directNodes;
    directNodes = 0;
    try {
      return direct(value, 0);
    } catch (e) {
      // REJECT, a throwing getter or Proxy trap, or an engine error (out of
      // memory, ...): none of them leaves a lossless value.
      return undefined;
    } finally {
      directNodes = saved; // stringify re-entered from a getter
    }
  }

  function parse(text) {
    return JSONParse(text);
  }

  const api = nullObject();
  api.stringify = stringify;
  api.parse = parse;
  return api;
})
