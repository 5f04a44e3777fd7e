// structuredClone (https://html.spec.whatwg.org/multipage/structured-data.html).
// A group of coderun's web globals (runtime/web.go). The transfer option
// takes ArrayBuffers, which are detached as on the web.
(function (lib) {
  "use strict";
  const DOMException_ = lib.DOMException, TypeError_ = TypeError, ReflectApply = Reflect.apply;
  const Map_ = Map, Set_ = Set, Date_ = Date, RegExp_ = RegExp, Object_ = Object, Array_ = Array;
  const gd = (o, k) => Object.getOwnPropertyDescriptor(o, k);
  const mapSize = gd(Map.prototype, "size").get, setSize = gd(Set.prototype, "size").get;
  const mapEntries = Map.prototype.entries, setValues = Set.prototype.values;
  const mapSet = Map.prototype.set, setAdd = Set.prototype.add;
  const dateValue = Date.prototype.getTime, regexpSource = gd(RegExp.prototype, "source").get;
  const regexpFlags = gd(RegExp.prototype, "flags").get;
  const abByteLength = gd(ArrayBuffer.prototype, "byteLength").get, abSlice = ArrayBuffer.prototype.slice;
  const abTransfer = ArrayBuffer.prototype.transfer;
  const TypedArray = Object.getPrototypeOf(Uint8Array);
  const taName = gd(TypedArray.prototype, Symbol.toStringTag).get;
  const dvBuffer = gd(DataView.prototype, "buffer").get;
  const boxes = [Number.prototype.valueOf, String.prototype.valueOf, Boolean.prototype.valueOf,
    BigInt.prototype.valueOf, Symbol.prototype.valueOf];
  const weak = [WeakMap.prototype.has, WeakSet.prototype.has];
  const errorNames = ["Error", "EvalError", "RangeError", "ReferenceError", "SyntaxError", "TypeError", "URIError"];
  const errors = { __proto__: null, Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError };
  const isError = Error.isError, keys = Object.keys, isArray = Array.isArray, defineProperty = Object.defineProperty;

  const has = (f, v, ...args) => { try { ReflectApply(f, v, args); return true; } catch (_) { return false; } };
  const describe = (v) => {
    if (typeof v === "function") return "function " + (typeof v.name === "string" ? v.name : "") + "()";
    if (typeof v === "symbol") return "a symbol";
    return "#<" + (has(Object.prototype.toString, v) ? Object.prototype.toString.call(v).slice(8, -1) : "Object") + ">";
  };
  const refuse = (v) => { throw new DOMException_(describe(v) + " could not be cloned.", "DataCloneError"); };
  const put = (o, k, v) => defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });

  function clone(v, memory) {
    if (typeof v === "symbol" || typeof v === "function") refuse(v);
    if (typeof v !== "object" || v === null) return v;
    const seen = memory.get(v);
    if (seen !== undefined) return seen;
    let out;
    for (let i = 0; i < boxes.length; i++) {
      if (has(boxes[i], v)) {
        if (i === 4) refuse(v);
        out = Object_(ReflectApply(boxes[i], v, []));
        memory.set(v, out);
        return out;
      }
    }
    if (has(dateValue, v)) out = new Date_(ReflectApply(dateValue, v, []));
    else if (has(regexpSource, v) && v !== RegExp_.prototype) {
      out = new RegExp_(ReflectApply(regexpSource, v, []), ReflectApply(regexpFlags, v, []));
    } else if (has(abByteLength, v)) out = ReflectApply(abSlice, v, []);
    else if (ArrayBuffer.isView(v)) {
      const name = has(taName, v) ? ReflectApply(taName, v, []) : undefined;
      const buffer = clone(name === undefined ? ReflectApply(dvBuffer, v, []) : v.buffer, memory);
      const C = name === undefined ? DataView : globalObjects[name];
      out = name === undefined ? new C(buffer, v.byteOffset, v.byteLength) : new C(buffer, v.byteOffset, v.length);
    } else if (has(mapSize, v)) {
      out = new Map_();
      memory.set(v, out);
      const entries = [...ReflectApply(mapEntries, v, [])];
      for (const [k, x] of entries) ReflectApply(mapSet, out, [clone(k, memory), clone(x, memory)]);
      return out;
    } else if (has(setSize, v)) {
      out = new Set_();
      memory.set(v, out);
      const values = [...ReflectApply(setValues, v, [])];
      for (const x of values) ReflectApply(setAdd, out, [clone(x, memory)]);
      return out;
    } else if (isError(v)) {
      let name = v.name;
      name = errorNames.includes(name) ? name : "Error";
      const m = gd(v, "message");
      out = new errors[name]();
      if (m !== undefined) defineProperty(out, "message", { value: String(v.message), writable: true, configurable: true });
      const stack = v.stack;
      if (typeof stack === "string") defineProperty(out, "stack", { value: stack, writable: true, configurable: true });
      memory.set(v, out);
      if (gd(v, "cause") !== undefined) {
        defineProperty(out, "cause", { value: clone(v.cause, memory), writable: true, configurable: true });
      }
      return out;
    } else if (weak.some((f) => has(f, v, {})) || v instanceof Promise) refuse(v);
    else if (isArray(v)) {
      out = new Array_(v.length);
      memory.set(v, out);
      copyProperties(v, out, memory);
      return out;
    } else {
      out = {};
      memory.set(v, out);
      copyProperties(v, out, memory);
      return out;
    }
    memory.set(v, out);
    return out;
  }
  function copyProperties(v, out, memory) {
    const ks = keys(v);
    for (let i = 0; i < ks.length; i++) {
      const k = ks[i];
      if (gd(v, k) === undefined) continue; // deleted by a getter meanwhile
      put(out, k, clone(v[k], memory));
    }
  }
  const globalObjects = {
    __proto__: null, Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array,
    Float32Array, Float64Array, BigInt64Array, BigUint64Array,
  };
  if (typeof Float16Array === "function") globalObjects.Float16Array = Float16Array;

  function structuredClone(value, options = undefined) {
    if (arguments.length === 0) throw new TypeError_("structuredClone: the \"value\" argument is required");
    const memory = new Map_();
    let transfer = [];
    if (options !== undefined && options !== null) {
      if (typeof options !== "object" && typeof options !== "function") {
        throw new TypeError_('structuredClone: the "options" argument must be an object');
      }
      if (options.transfer !== undefined) transfer = [...options.transfer];
    }
    for (let i = 0; i < transfer.length; i++) {
      const t = transfer[i];
      if (typeof t !== "object" && typeof t !== "function" || t === null) {
        throw new TypeError_("structuredClone: the transfer list must hold objects");
      }
      if (!has(abByteLength, t) || typeof abTransfer !== "function") {
        throw new DOMException_("structuredClone: coderun can transfer only ArrayBuffers; " + describe(t) + " is not one", "DataCloneError");
      }
      if (memory.has(t)) throw new DOMException_("structuredClone: an ArrayBuffer is in the transfer list twice", "DataCloneError");
      if (t.detached) throw new DOMException_("structuredClone: an ArrayBuffer in the transfer list is detached", "DataCloneError");
      memory.set(t, undefined);
    }
    // A transferred buffer's clone is a copy of it, and once the whole
    // value is cloned (which may still fail), the buffer is detached, as a
    // transfer leaves it on the web.
    for (let i = 0; i < transfer.length; i++) memory.set(transfer[i], ReflectApply(abSlice, transfer[i], []));
    const out = clone(value, memory);
    for (let i = 0; i < transfer.length; i++) ReflectApply(abTransfer, transfer[i], []);
    return out;
  }

  return { __proto__: null, structuredClone };
})
