// inspect.js: guest-side console rendering (contract §5).
//
// This file is ONE JavaScript expression: a factory that the engine's prelude
// evaluates and calls once, before any user code runs. It returns a
// null-prototype object
//
//   { formatLogArgs(args) -> string,  inspect(value) -> string }
//
// formatLogArgs renders the arguments of one console.log/info/warn/error/debug
// call (a plain array made by the prelude): string arguments verbatim, every
// other value like Node's util.inspect with Node's defaults except depth 4
// (maxArrayLength 100, maxStringLength 10000, breakLength 80, compact 3),
// joined by one space, with no trailing newline and no %s/%d substitution.
// inspect renders one value the same way (a string is quoted). Neither throws:
// a value whose rendering throws (a Proxy trap, an engine error) is shown as
// [object Object] / [object Function].
//
// The output follows Node v20's algorithm (line breaking at 80 columns with
// the "compact 3" rule, grouping of arrays with more than 6 entries into
// aligned columns, quote choice, escaping, <ref *1>/[Circular *1], [Getter],
// empty items, Map/Set/typed array prefixes, ...). Known differences, all
// because the guest sees only what JavaScript can see:
//   - Promises print as `Promise { <unknown> }` (QuickJS has no way to read a
//     promise's state synchronously). Map/Set iterators are not previewed
//     (that would consume them); WeakRef has no `<target>` preview.
//   - Proxies are not detected: a Proxy renders as what its traps report
//     (getPrototypeOf, ownKeys, getOwnPropertyDescriptor may run); Node shows
//     the target without running traps.
//   - Getters are never called. Where Node reads a value through an accessor
//     (a class's `get [Symbol.toStringTag]()`, a static `get name()`, an
//     accessor `stack`, `message` or `name` on an error), it is ignored here.
//   - Errors print `name: message`, then the frames the engine put in
//     err.stack; Node's cause-frame folding ("... N lines matching cause
//     stack trace ...") is not done.
//   - Builtin objects are recognised by their prototype chain plus a brand
//     check; an exotic object whose prototype the program replaced by an
//     unrelated one (e.g. Object.setPrototypeOf(new Map, Array.prototype))
//     renders as an ordinary object of that prototype. With a null prototype,
//     Error, Date, RegExp, boxed Number/String/Boolean, typed arrays,
//     DataView, Map and Set are still recognised; WeakMap, WeakSet,
//     ArrayBuffer, Promise and boxed Symbol/BigInt are not. Arguments objects
//     are recognised by their own `callee`.
//   - Display width of non-ASCII text (used only for column alignment in
//     grouped arrays) uses a table of wide/zero-width ranges, not ICU.
//
// Safety: user code runs later in the same realm and may replace any
// intrinsic, so every intrinsic used at call time is captured here, methods are
// called through uncurried (bound) forms, property descriptors are read only
// when no field name was planted on Object.prototype (else they get a null
// prototype first), and no property is looked up on a prototype the program
// can reach. No user function is called (no getters, toString,
// toJSON, Symbol.toPrimitive, Symbol.hasInstance, util.inspect.custom); only
// Proxy traps can run. Recursion is bounded by the depth limit (4), so nesting
// depth of the value does not matter.
(function () {
  "use strict";

  // ---- captured intrinsics -------------------------------------------------
  const ObjectPrototype = Object.prototype;
  const FunctionPrototype = Function.prototype;
  const ArrayPrototype = Array.prototype;
  const ObjectGetPrototypeOf = Object.getPrototypeOf;
  const ObjectSetPrototypeOf = Object.setPrototypeOf;
  const ObjectHasOwn = Object.hasOwn;
  const ArrayIsArray = Array.isArray;
  const ArrayBufferIsView = ArrayBuffer.isView;
  const ReflectOwnKeys = Reflect.ownKeys;
  const ReflectGetOwnPropertyDescriptor = Reflect.getOwnPropertyDescriptor;
  const MathMin = Math.min;
  const MathMax = Math.max;
  const MathSqrt = Math.sqrt;
  const MathRound = Math.round;
  const MathFloor = Math.floor;
  const NumberIsNaN = Number.isNaN;
  const SymbolToStringTag = Symbol.toStringTag;
  const SymbolIterator = Symbol.iterator;
  const Uint8ArrayCtor = Uint8Array;

  const uncurryThis = FunctionPrototype.bind.bind(FunctionPrototype.call);
  // QuickJS-NG 0.16 keeps an error's stack in the error (its [[ErrorData]])
  // behind the accessor Error.prototype.stack; that intrinsic getter, taken
  // here before any program runs, only reads it, so formatError calls it.
  const errorStackDesc = ReflectGetOwnPropertyDescriptor(Error.prototype, "stack");
  const errorStackGet = errorStackDesc !== undefined && typeof errorStackDesc.get === "function"
    ? uncurryThis(errorStackDesc.get) : undefined;
  const errorStackGetter = errorStackDesc !== undefined ? errorStackDesc.get : undefined;
  function getter(obj, key) {
    const d = ReflectGetOwnPropertyDescriptor(obj, key);
    return d !== undefined && typeof d.get === "function" ? uncurryThis(d.get) : null;
  }
  function protoOf(ctor) {
    return typeof ctor === "function" ? ctor.prototype : null;
  }

  const ArrayPrototypeJoin = uncurryThis(ArrayPrototype.join);
  const StringPrototypeSlice = uncurryThis(String.prototype.slice);
  const StringPrototypeIndexOf = uncurryThis(String.prototype.indexOf);
  const StringPrototypeCharCodeAt = uncurryThis(String.prototype.charCodeAt);
  const StringPrototypeCodePointAt = uncurryThis(String.prototype.codePointAt);
  const StringPrototypeRepeat = uncurryThis(String.prototype.repeat);
  const StringPrototypeValueOf = uncurryThis(String.prototype.valueOf);
  const NumberPrototypeToString = uncurryThis(Number.prototype.toString);
  const NumberPrototypeValueOf = uncurryThis(Number.prototype.valueOf);
  const BooleanPrototypeValueOf = uncurryThis(Boolean.prototype.valueOf);
  const SymbolPrototypeToString = uncurryThis(Symbol.prototype.toString);
  const SymbolPrototypeValueOf = uncurryThis(Symbol.prototype.valueOf);
  const BigIntPrototypeValueOf = uncurryThis(BigInt.prototype.valueOf);
  const FunctionPrototypeToString = uncurryThis(FunctionPrototype.toString);
  const ObjectPrototypeToString = uncurryThis(ObjectPrototype.toString);
  const RegExpPrototypeExec = uncurryThis(RegExp.prototype.exec);
  const DatePrototypeGetTime = uncurryThis(Date.prototype.getTime);
  const DatePrototypeToISOString = uncurryThis(Date.prototype.toISOString);
  const DatePrototypeToString = uncurryThis(Date.prototype.toString);

  const RegExpPrototype = RegExp.prototype;
  const RegExpSource = getter(RegExpPrototype, "source");
  const RegExpFlagGetters = [];
  ObjectSetPrototypeOf(RegExpFlagGetters, null);
  {
    const names = ["hasIndices", "d", "global", "g", "ignoreCase", "i",
      "multiline", "m", "dotAll", "s", "unicode", "u", "unicodeSets", "v",
      "sticky", "y"];
    for (let i = 0; i < names.length; i += 2) {
      const g = getter(RegExpPrototype, names[i]);
      if (g !== null) {
        RegExpFlagGetters[RegExpFlagGetters.length] = g;
        RegExpFlagGetters[RegExpFlagGetters.length] = names[i + 1];
      }
    }
  }

  const MapPrototype = Map.prototype;
  const SetPrototype = Set.prototype;
  const MapSize = getter(MapPrototype, "size");
  const SetSize = getter(SetPrototype, "size");
  const MapEntries = uncurryThis(MapPrototype.entries);
  const SetValues = uncurryThis(SetPrototype.values);
  const MapIteratorPrototype = ObjectGetPrototypeOf(new Map().entries());
  const SetIteratorPrototype = ObjectGetPrototypeOf(new Set().values());
  const MapIteratorNext = uncurryThis(MapIteratorPrototype.next);
  const SetIteratorNext = uncurryThis(SetIteratorPrototype.next);
  const WeakMapPrototype = WeakMap.prototype;
  const WeakSetPrototype = WeakSet.prototype;
  const WeakMapHas = uncurryThis(WeakMapPrototype.has);
  const WeakSetHas = uncurryThis(WeakSetPrototype.has);
  const DatePrototype = Date.prototype;
  const ErrorPrototype = Error.prototype;
  const PromisePrototype = Promise.prototype;
  const NumberPrototype = Number.prototype;
  const StringPrototype = String.prototype;
  const BooleanPrototype = Boolean.prototype;
  const SymbolPrototype = Symbol.prototype;
  const BigIntPrototype = BigInt.prototype;
  const ArrayBufferPrototype = ArrayBuffer.prototype;
  const ArrayBufferByteLength = getter(ArrayBufferPrototype, "byteLength");
  const SharedArrayBufferPrototype = protoOf(globalThis.SharedArrayBuffer);
  const SharedArrayBufferByteLength = SharedArrayBufferPrototype !== null ?
    getter(SharedArrayBufferPrototype, "byteLength") : null;
  const DataViewPrototype = DataView.prototype;
  const DataViewByteLength = getter(DataViewPrototype, "byteLength");
  const DataViewByteOffset = getter(DataViewPrototype, "byteOffset");
  const DataViewBuffer = getter(DataViewPrototype, "buffer");
  const TypedArrayPrototype = ObjectGetPrototypeOf(Uint8Array.prototype);
  const TypedArrayLength = getter(TypedArrayPrototype, "length");
  const TypedArrayTag = getter(TypedArrayPrototype, SymbolToStringTag);
  const AsyncFunctionPrototype = ObjectGetPrototypeOf(async function () {});
  const GeneratorFunctionPrototype = ObjectGetPrototypeOf(function* () {});
  const AsyncGeneratorFunctionPrototype = ObjectGetPrototypeOf(async function* () {});

  // ---- constants -------------------------------------------------------------
  const DEPTH = 4;
  const MAX_ARRAY = 100;
  const MAX_STRING = 10000;
  const BREAK_LENGTH = 80;
  const COMPACT = 3;
  const MIN_LINE_LENGTH = 16;

  const K_OBJECT = 0; // an object: entries are "key: value"
  const K_ARRAY_EXTRAS = 2; // array-like: elements, then named extra keys

  // Value kinds.
  const T_OBJECT = 0;
  const T_ARRAY = 1;
  const T_FUNCTION = 2;
  const T_MAP = 3;
  const T_SET = 4;
  const T_TYPED = 5;
  const T_DATE = 6;
  const T_REGEXP = 7;
  const T_ERROR = 8;
  const T_ARRAYBUFFER = 9;
  const T_SHAREDARRAYBUFFER = 10;
  const T_DATAVIEW = 11;
  const T_PROMISE = 12;
  const T_WEAKMAP = 13;
  const T_WEAKSET = 14;
  const T_NUMBER = 15;
  const T_STRING = 16;
  const T_BOOLEAN = 17;
  const T_SYMBOL = 18;
  const T_BIGINT = 19;

  // Escapes of C0/C1 controls, the single quote and the backslash.
  const META = [];
  ObjectSetPrototypeOf(META, null);
  {
    const hex = "0123456789ABCDEF";
    for (let c = 0; c < 160; c++) {
      META[c] = (c < 32 || c >= 127) ? "\\x" + hex[c >> 4] + hex[c & 15] : "";
    }
    META[8] = "\\b";
    META[9] = "\\t";
    META[10] = "\\n";
    META[12] = "\\f";
    META[13] = "\\r";
    META[39] = "\\'";
    META[92] = "\\\\";
  }
  // The characters strEscape must escape (with and without the single quote).
  const ESCAPE_RE = /[\x00-\x1f\x27\x5c\x7f-\x9f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
  const ESCAPE_NOQUOTE_RE = /[\x00-\x1f\x5c\x7f-\x9f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
  const KEY_RE = /^[a-zA-Z_][a-zA-Z_0-9]*$/;
  const INDEX_RE = /^(?:0|[1-9][0-9]*)$/;
  const CLASS_RE = /^(\s+[^(]*?)\s*{/;
  const NOT_PRINTABLE_ASCII_RE = /[^\x20-\x7e]/;
  const ERROR_NAME_RE = /^([A-Z][a-z_ A-Z0-9[\]()-]+)(?::|\n {4}at)/;
  const ERROR_NAME_ONLY_RE = /^([a-z_A-Z0-9-]*Error)$/;

  // ---- small helpers -----------------------------------------------------------
  function list() {
    return ObjectSetPrototypeOf([], null);
  }
  function push(arr, v) {
    arr[arr.length] = v;
  }
  function join(arr, sep) {
    return ArrayPrototypeJoin(arr, sep);
  }
  function includes(str, sub) {
    return StringPrototypeIndexOf(str, sub) !== -1;
  }
  const SPACES = [];
  ObjectSetPrototypeOf(SPACES, null);
  SPACES[0] = "";
  for (let i = 1; i <= 128; i++) SPACES[i] = SPACES[i - 1] + " ";
  function spaces(n) {
    if (n <= 0) return "";
    return n <= 128 ? SPACES[n] : StringPrototypeRepeat(" ", n);
  }
  function startsWith(str, prefix) {
    return StringPrototypeSlice(str, 0, prefix.length) === prefix;
  }
  function endsWith(str, suffix) {
    return str.length >= suffix.length &&
      StringPrototypeSlice(str, str.length - suffix.length) === suffix;
  }
  function replaceNewlines(str, withStr) {
    let i = StringPrototypeIndexOf(str, "\n");
    if (i === -1) return str;
    const parts = list();
    let last = 0;
    while (i !== -1) {
      push(parts, StringPrototypeSlice(str, last, i));
      last = i + 1;
      i = StringPrototypeIndexOf(str, "\n", last);
    }
    push(parts, StringPrototypeSlice(str, last));
    return join(parts, withStr);
  }
  // test runs a non-global regexp (exec ignores lastIndex for those).
  function test(re, str) {
    return RegExpPrototypeExec(re, str) !== null;
  }

  // gopd returns the own property descriptor of obj[key], or undefined. A
  // descriptor has either value/writable or get/set as own fields; reading the
  // other pair falls through to Object.prototype. When the program has put
  // none of those names on Object.prototype (checked once per render by
  // checkDescriptors) that read is harmless; otherwise the descriptor gets a
  // null prototype first.
  let descriptorsClean = false;
  function checkDescriptors() {
    descriptorsClean = !ObjectHasOwn(ObjectPrototype, "value") &&
      !ObjectHasOwn(ObjectPrototype, "get") && !ObjectHasOwn(ObjectPrototype, "set") &&
      !ObjectHasOwn(ObjectPrototype, "enumerable") && !ObjectHasOwn(ObjectPrototype, "writable");
  }
  function gopd(obj, key) {
    const d = ReflectGetOwnPropertyDescriptor(obj, key);
    if (d !== undefined && !descriptorsClean) ObjectSetPrototypeOf(d, null);
    return d;
  }

  // stackProp returns err.stack when the first "stack" found on the
  // prototype chain is a data property or the intrinsic accessor of
  // Error.prototype (see errorStackGet), else undefined: no getter of the
  // program's is called.
  function stackProp(err) {
    let o = err;
    for (let n = 0; o !== null && n < 10000; n++) {
      const d = gopd(o, "stack");
      if (d !== undefined) {
        if (d.get === undefined && d.set === undefined) return d.value;
        return errorStackGet !== undefined && d.get === errorStackGetter ? errorStackGet(err) : undefined;
      }
      o = ObjectGetPrototypeOf(o);
    }
    return undefined;
  }

  // dataProp returns obj[key] when the first property found on the prototype
  // chain is a data property, else undefined. No getter is called.
  function dataProp(obj, key) {
    let o = obj;
    for (let n = 0; o !== null && n < 10000; n++) {
      const d = gopd(o, key);
      if (d !== undefined) return d.value;
      o = ObjectGetPrototypeOf(o);
    }
    return undefined;
  }

  // hasInstance is `value instanceof ctor` without Symbol.hasInstance.
  function hasInstance(value, ctor) {
    const d = gopd(ctor, "prototype");
    if (d === undefined) return false;
    const p = d.value;
    if ((typeof p !== "object" && typeof p !== "function") || p === null) return false;
    let o = ObjectGetPrototypeOf(value);
    for (let n = 0; o !== null && n < 10000; n++) {
      if (o === p) return true;
      o = ObjectGetPrototypeOf(o);
    }
    return false;
  }

  function functionName(fn) {
    const d = gopd(fn, "name");
    if (d !== undefined) return typeof d.value === "string" ? d.value : "";
    const v = dataProp(fn, "name");
    return typeof v === "string" ? v : "";
  }

  // ---- strings -------------------------------------------------------------------
  function escapeWith(re, str) {
    re.lastIndex = 0;
    let m = RegExpPrototypeExec(re, str);
    if (m === null) return str;
    const parts = list();
    let last = 0;
    while (m !== null) {
      const i = m.index;
      const c = StringPrototypeCharCodeAt(str, i);
      push(parts, StringPrototypeSlice(str, last, i));
      push(parts, c < 160 ? META[c] : "\\u" + NumberPrototypeToString(c, 16));
      last = i + 1;
      m = RegExpPrototypeExec(re, str);
    }
    push(parts, StringPrototypeSlice(str, last));
    return join(parts, "");
  }

  // strEscape quotes str the way Node does: single quotes, or double quotes
  // when str has a ' but no ", or backticks when it has both but no ` or ${.
  function strEscape(str) {
    let quote = "'";
    let re = ESCAPE_RE;
    if (includes(str, "'")) {
      if (!includes(str, "\"")) {
        quote = "\"";
      } else if (!includes(str, "`") && !includes(str, "${")) {
        quote = "`";
      }
      if (quote !== "'") re = ESCAPE_NOQUOTE_RE;
    }
    return quote + escapeWith(re, str) + quote;
  }

  function isZeroWidth(code) {
    return code <= 0x1f || (code >= 0x7f && code <= 0x9f) ||
      (code >= 0x300 && code <= 0x36f) || (code >= 0x200b && code <= 0x200f) ||
      (code >= 0x20d0 && code <= 0x20ff) || (code >= 0xfe00 && code <= 0xfe0f) ||
      (code >= 0xfe20 && code <= 0xfe2f) || (code >= 0xe0100 && code <= 0xe01ef);
  }
  function isFullWidth(code) {
    return code >= 0x1100 && (
      code <= 0x115f || code === 0x2329 || code === 0x232a ||
      (code >= 0x2e80 && code <= 0x3247 && code !== 0x303f) ||
      (code >= 0x3250 && code <= 0x4dbf) || (code >= 0x4e00 && code <= 0xa4c6) ||
      (code >= 0xa960 && code <= 0xa97c) || (code >= 0xac00 && code <= 0xd7a3) ||
      (code >= 0xf900 && code <= 0xfaff) || (code >= 0xfe10 && code <= 0xfe19) ||
      (code >= 0xfe30 && code <= 0xfe6b) || (code >= 0xff01 && code <= 0xff60) ||
      (code >= 0xffe0 && code <= 0xffe6) || (code >= 0x1b000 && code <= 0x1b001) ||
      (code >= 0x1f200 && code <= 0x1f251) || (code >= 0x1f300 && code <= 0x1f64f) ||
      (code >= 0x20000 && code <= 0x3fffd));
  }
  // stringWidth is the display width of str (Node's getStringWidth without
  // colour stripping).
  function stringWidth(str) {
    if (!test(NOT_PRINTABLE_ASCII_RE, str)) return str.length;
    let width = 0;
    for (let i = 0; i < str.length; i++) {
      const code = StringPrototypeCodePointAt(str, i);
      if (code > 0xffff) i++;
      if (code < 127) {
        if (code >= 32) width++;
      } else if (isFullWidth(code)) {
        width += 2;
      } else if (!isZeroWidth(code)) {
        width++;
      }
    }
    return width;
  }

  // ---- primitives ------------------------------------------------------------------
  function formatNumber(n) {
    if (n === 0 && 1 / n < 0) return "-0";
    return "" + n;
  }

  function formatPrimitive(ctx, value) {
    const t = typeof value;
    if (t === "string") {
      let trailer = "";
      if (value.length > MAX_STRING) {
        const remaining = value.length - MAX_STRING;
        value = StringPrototypeSlice(value, 0, MAX_STRING);
        trailer = "... " + remaining + " more character" + (remaining > 1 ? "s" : "");
      }
      if (value.length > MIN_LINE_LENGTH &&
          value.length > BREAK_LENGTH - ctx.indentationLvl - 4) {
        // Split after each newline; each line is quoted on its own.
        const lines = list();
        let last = 0;
        let i = StringPrototypeIndexOf(value, "\n");
        while (i !== -1 && i + 1 < value.length) {
          push(lines, strEscape(StringPrototypeSlice(value, last, i + 1)));
          last = i + 1;
          i = StringPrototypeIndexOf(value, "\n", last);
        }
        push(lines, strEscape(StringPrototypeSlice(value, last)));
        return join(lines, " +\n" + spaces(ctx.indentationLvl + 2)) + trailer;
      }
      return strEscape(value) + trailer;
    }
    if (t === "number") return formatNumber(value);
    if (t === "bigint") return "" + value + "n";
    if (t === "boolean") return value ? "true" : "false";
    if (t === "undefined") return "undefined";
    return SymbolPrototypeToString(value);
  }

  // ---- classification ----------------------------------------------------------------
  function kindByProto(p) {
    if (p === MapPrototype) return T_MAP;
    if (p === SetPrototype) return T_SET;
    if (p === TypedArrayPrototype) return T_TYPED;
    if (p === DatePrototype) return T_DATE;
    if (p === RegExpPrototype) return T_REGEXP;
    if (p === ErrorPrototype) return T_ERROR;
    if (p === ArrayBufferPrototype) return T_ARRAYBUFFER;
    if (p === DataViewPrototype) return T_DATAVIEW;
    if (p === PromisePrototype) return T_PROMISE;
    if (p === WeakMapPrototype) return T_WEAKMAP;
    if (p === WeakSetPrototype) return T_WEAKSET;
    if (p === NumberPrototype) return T_NUMBER;
    if (p === StringPrototype) return T_STRING;
    if (p === BooleanPrototype) return T_BOOLEAN;
    if (p === SymbolPrototype) return T_SYMBOL;
    if (p === BigIntPrototype) return T_BIGINT;
    if (p !== null && p === SharedArrayBufferPrototype) return T_SHAREDARRAYBUFFER;
    return -1;
  }

  // brandCheck confirms that value really has the internal slots of kind.
  function brandCheck(value, kind) {
    try {
      switch (kind) {
        case T_MAP: MapSize(value); return true;
        case T_SET: SetSize(value); return true;
        case T_TYPED: return typeof TypedArrayTag(value) === "string";
        case T_DATE: DatePrototypeGetTime(value); return true;
        case T_REGEXP: return value !== RegExpPrototype && typeof RegExpSource(value) === "string";
        case T_ARRAYBUFFER: ArrayBufferByteLength(value); return true;
        case T_SHAREDARRAYBUFFER: SharedArrayBufferByteLength(value); return true;
        case T_DATAVIEW: DataViewByteLength(value); return true;
        case T_WEAKMAP: WeakMapHas(value, ObjectPrototype); return true;
        case T_WEAKSET: WeakSetHas(value, ObjectPrototype); return true;
        case T_NUMBER: NumberPrototypeValueOf(value); return true;
        case T_STRING: StringPrototypeValueOf(value); return true;
        case T_BOOLEAN: BooleanPrototypeValueOf(value); return true;
        case T_SYMBOL: SymbolPrototypeValueOf(value); return true;
        case T_BIGINT: BigIntPrototypeValueOf(value); return true;
        case T_ERROR: return value !== ErrorPrototype;
        case T_PROMISE: return value !== PromisePrototype;
      }
    } catch (e) {
      // not that kind
    }
    return false;
  }

  // kindOfNullProto identifies builtins whose prototype chain says nothing
  // (a null prototype), as Node does through internal checks: the builtin tag
  // of Object.prototype.toString (read only when the value has no own
  // toStringTag, so no user code runs), typed arrays, DataViews, Maps and
  // Sets. Other builtins with a null prototype (WeakMap, ArrayBuffer, boxed
  // Symbol/BigInt, Promise) render as plain null-prototype objects.
  function kindOfNullProto(value) {
    if (gopd(value, SymbolToStringTag) === undefined) {
      const t = ObjectPrototypeToString(value);
      if (t === "[object Error]") return T_ERROR;
      if (t === "[object Date]") return T_DATE;
      if (t === "[object RegExp]") return T_REGEXP;
      if (t === "[object Number]") return T_NUMBER;
      if (t === "[object String]") return T_STRING;
      if (t === "[object Boolean]") return T_BOOLEAN;
      if (t !== "[object Object]") return T_OBJECT;
    }
    if (typeof TypedArrayTag(value) === "string") return T_TYPED;
    if (ArrayBufferIsView(value)) return T_DATAVIEW;
    if (brandCheck(value, T_MAP)) return T_MAP;
    if (brandCheck(value, T_SET)) return T_SET;
    return T_OBJECT;
  }

  function internalName(kind) {
    switch (kind) {
      case T_ARRAY: return "Array";
      case T_FUNCTION: return "Function";
      case T_MAP: return "Map";
      case T_SET: return "Set";
      case T_DATE: return "Date";
      case T_REGEXP: return "RegExp";
      case T_ERROR: return "Error";
      case T_ARRAYBUFFER: return "ArrayBuffer";
      case T_SHAREDARRAYBUFFER: return "SharedArrayBuffer";
      case T_DATAVIEW: return "DataView";
      case T_PROMISE: return "Promise";
      case T_WEAKMAP: return "WeakMap";
      case T_WEAKSET: return "WeakSet";
      case T_NUMBER: return "Number";
      case T_STRING: return "String";
      case T_BOOLEAN: return "Boolean";
      case T_SYMBOL: return "Symbol";
      case T_BIGINT: return "BigInt";
    }
    return "Object";
  }

  // protoInfo returns what a prototype P contributes to describe: the
  // constructor name it establishes (a string; undefined when it has none;
  // null when that depends on the value), its own toStringTag (undefined when
  // it has none) and the builtin kind it marks. Results are cached per render.
  function protoInfo(ctx, p) {
    const cache = ctx.protoCache;
    for (let i = 0; i < cache.length; i += 2) {
      if (cache[i] === p) return cache[i + 1];
    }
    let ctor;
    let ctorFn = null;
    if (p === ObjectPrototype) {
      ctor = "Object";
    } else if (p === FunctionPrototype) {
      ctor = "Function";
    } else {
      const d = gopd(p, "constructor");
      if (d !== undefined && typeof d.value === "function") {
        const name = functionName(d.value);
        if (name !== "") {
          const pd = gopd(d.value, "prototype");
          if (pd !== undefined && pd.value === p) {
            ctor = name; // instanceof holds for every value below p
          } else {
            ctor = null;
            ctorFn = d.value;
          }
        }
      }
    }
    let tag;
    const td = gopd(p, SymbolToStringTag);
    if (td !== undefined) tag = typeof td.value === "string" ? td.value : "";
    const info = {
      __proto__: null, ctor: ctor, ctorFn: ctorFn, tag: tag, kind: kindByProto(p),
    };
    push(cache, p);
    push(cache, info);
    return info;
  }

  // describe fills info with the constructor name (Node's getConstructorName:
  // string, or null for a null prototype), the kind and the toStringTag.
  function describe(ctx, value, recurseTimes, info) {
    let ctor;
    let kind = -1;
    let tag;
    // The value's own constructor and toStringTag come first.
    {
      const d = gopd(value, "constructor");
      if (d !== undefined && typeof d.value === "function") {
        const name = functionName(d.value);
        if (name !== "" && hasInstance(value, d.value)) ctor = name;
      }
      const td = gopd(value, SymbolToStringTag);
      if (td !== undefined) {
        tag = typeof td.value === "string" && !td.enumerable ? td.value : "";
      }
    }
    const firstProto = ObjectGetPrototypeOf(value);
    let obj = firstProto;
    for (let n = 0; obj !== null && n < 10000; n++) {
      const pi = protoInfo(ctx, obj);
      if (ctor === undefined) {
        if (pi.ctor !== null) {
          ctor = pi.ctor;
        } else if (hasInstance(value, pi.ctorFn)) {
          ctor = functionName(pi.ctorFn);
        }
      }
      if (tag === undefined) tag = pi.tag;
      if (kind === -1) kind = pi.kind;
      obj = ObjectGetPrototypeOf(obj);
    }
    if (tag === undefined) tag = "";

    if (typeof value === "function") {
      kind = T_FUNCTION;
    } else if (ArrayIsArray(value)) {
      kind = T_ARRAY;
    } else if (firstProto === null) {
      kind = kindOfNullProto(value);
    } else if (kind !== -1 && !brandCheck(value, kind)) {
      kind = T_OBJECT;
    } else if (kind === -1) {
      kind = T_OBJECT;
    }

    if (ctor === undefined) {
      if (firstProto === null) {
        ctor = null;
      } else {
        const res = internalName(kind);
        if (recurseTimes > ctx.depth) {
          ctor = res + " <Complex prototype>";
        } else {
          const inner = { __proto__: null, ctor: null, kind: 0, tag: "" };
          describe(ctx, firstProto, recurseTimes + 1, inner);
          if (inner.ctor === null) {
            const sub = newContext(-1);
            ctor = res + " <" + formatValue(sub, firstProto, 0) + ">";
          } else {
            ctor = res + " <" + inner.ctor + ">";
          }
        }
      }
    }
    info.ctor = ctor;
    info.kind = kind;
    info.tag = tag;
  }

  function getPrefix(constructor, tag, fallback, size) {
    if (constructor === null) {
      if (tag !== "" && fallback !== tag) {
        return "[" + fallback + size + ": null prototype] [" + tag + "] ";
      }
      return "[" + fallback + size + ": null prototype] ";
    }
    if (tag !== "" && constructor !== tag) {
      return constructor + size + " [" + tag + "] ";
    }
    return constructor + size + " ";
  }

  function getCtxStyle(kind, constructor, tag) {
    let fallback = "";
    if (constructor === null) {
      fallback = internalName(kind);
      if (fallback === tag) fallback = "Object";
    }
    return getPrefix(constructor, tag, fallback, "");
  }

  // ---- keys ------------------------------------------------------------------------------
  // Keys are kept as two parallel lists: the key and its descriptor (or a
  // pre-rendered value for the synthetic keys of ArrayBuffer and DataView).

  // ownEnumerable appends the enumerable own keys of value, strings then
  // symbols (Node's Object.keys + enumerable symbols), skipping the first
  // `skip` keys of the own-key list.
  function ownEnumerable(value, keys, descs, skip) {
    const own = ReflectOwnKeys(value);
    for (let i = skip; i < own.length; i++) {
      const k = own[i];
      const d = gopd(value, k);
      if (d !== undefined && d.enumerable) {
        push(keys, k);
        push(descs, d);
      }
    }
  }

  // indexKeyCount returns how many leading own keys of an array-like value are
  // array indices (own keys list indices first, in ascending order).
  function isIndexKey(k, limit) {
    if (typeof k !== "string" || !test(INDEX_RE, k)) return false;
    const n = +k;
    return n < limit;
  }

  function nonIndexEnumerable(value, keys, descs, limit) {
    const own = ReflectOwnKeys(value);
    let start = 0;
    // Fast path: dense arrays list exactly the indices 0..limit-1 first (own
    // keys come sorted, indices first).
    if (limit <= own.length && (limit === 0 || own[limit - 1] === "" + (limit - 1))) {
      start = limit;
    } else {
      while (start < own.length && isIndexKey(own[start], limit)) start++;
    }
    for (let i = start; i < own.length; i++) {
      const k = own[i];
      if (k === "length") continue;
      const d = gopd(value, k);
      if (d !== undefined && d.enumerable) {
        push(keys, k);
        push(descs, d);
      }
    }
  }

  // ---- containers -------------------------------------------------------------------------
  function remainingText(remaining) {
    return "... " + remaining + " more item" + (remaining > 1 ? "s" : "");
  }

  // formatArray also records in num how many leading elements are numbers
  // or bigints (num.prefix) out of how many it looked at (num.scanned), for
  // the column alignment in groupArrayElements.
  function formatArray(ctx, value, recurseTimes, output, num) {
    const valLen = value.length;
    const len = MathMin(MAX_ARRAY, valLen);
    const remaining = valLen - len;
    for (let i = 0; i < len; i++) {
      const d = gopd(value, i);
      if (d === undefined) return formatSparseArray(ctx, value, recurseTimes, len, output, i);
      if (num.prefix === i) {
        const t = typeof d.value;
        if (t === "number" || t === "bigint") num.prefix = i + 1;
      }
      num.scanned = i + 1;
      push(output, formatPropertyValue(ctx, d, recurseTimes));
    }
    if (remaining > 0) push(output, remainingText(remaining));
    return output;
  }

  // formatSparseArray continues formatArray from index i, the first hole.
  function formatSparseArray(ctx, value, recurseTimes, maxLength, output, i) {
    const own = ReflectOwnKeys(value);
    let index = i;
    for (; i < own.length && output.length < maxLength; i++) {
      const key = own[i];
      if (typeof key !== "string" || !test(INDEX_RE, key)) break;
      const tmp = +key;
      if (tmp > 4294967294) break;
      if ("" + index !== key) {
        const emptyItems = tmp - index;
        push(output, "<" + emptyItems + " empty item" + (emptyItems > 1 ? "s" : "") + ">");
        index = tmp;
        if (output.length === maxLength) break;
      }
      const d = gopd(value, key);
      push(output, d === undefined ? "undefined" : formatPropertyValue(ctx, d, recurseTimes));
      index++;
    }
    const remaining = value.length - index;
    if (output.length !== maxLength) {
      if (remaining > 0) {
        push(output, "<" + remaining + " empty item" + (remaining > 1 ? "s" : "") + ">");
      }
    } else if (remaining > 0) {
      push(output, remainingText(remaining));
    }
    return output;
  }

  function formatTypedArray(ctx, value, length, output) {
    const maxLength = MathMin(MAX_ARRAY, length);
    for (let i = 0; i < maxLength; i++) {
      const v = value[i];
      push(output, typeof v === "bigint" ? "" + v + "n" : formatNumber(v));
    }
    if (length > maxLength) push(output, remainingText(length - maxLength));
    return output;
  }

  function formatSetEntries(ctx, value, recurseTimes, output) {
    const size = SetSize(value);
    const maxLength = MathMin(MAX_ARRAY, size);
    ctx.indentationLvl += 2;
    const it = SetValues(value);
    for (let i = 0; i < maxLength; i++) {
      const r = SetIteratorNext(it);
      if (r.done) break;
      push(output, formatValue(ctx, r.value, recurseTimes));
    }
    if (size > maxLength) push(output, remainingText(size - maxLength));
    ctx.indentationLvl -= 2;
    return output;
  }

  function formatMapEntries(ctx, value, recurseTimes, output) {
    const size = MapSize(value);
    const maxLength = MathMin(MAX_ARRAY, size);
    ctx.indentationLvl += 2;
    const it = MapEntries(value);
    for (let i = 0; i < maxLength; i++) {
      const r = MapIteratorNext(it);
      if (r.done) break;
      const entry = r.value;
      const k = formatValue(ctx, entry[0], recurseTimes);
      push(output, k + " => " + formatValue(ctx, entry[1], recurseTimes));
    }
    if (size > maxLength) push(output, remainingText(size - maxLength));
    ctx.indentationLvl -= 2;
    return output;
  }

  function formatArrayBufferContents(buf, output) {
    let bytes;
    try {
      bytes = new Uint8ArrayCtor(buf);
    } catch (e) {
      push(output, "(detached)");
      return output;
    }
    const hex = "0123456789abcdef";
    const len = TypedArrayLength(bytes);
    const n = MathMin(MAX_ARRAY, len);
    const parts = list();
    for (let i = 0; i < n; i++) {
      const b = bytes[i];
      push(parts, hex[b >> 4] + hex[b & 15]);
    }
    let str = join(parts, " ");
    const remaining = len - MAX_ARRAY;
    if (remaining > 0) str += " ... " + remaining + " more byte" + (remaining > 1 ? "s" : "");
    push(output, "[Uint8Contents]: <" + str + ">");
    return output;
  }

  // ---- functions, errors, boxed primitives, regexps -------------------------------------------
  function getClassBase(value, constructor, tag) {
    const d = gopd(value, "name");
    let name = d !== undefined && typeof d.value === "string" ? d.value : "";
    if (name === "") name = "(anonymous)";
    let base = "class " + name;
    if (constructor !== "Function" && constructor !== null) base += " [" + constructor + "]";
    if (tag !== "" && constructor !== tag) base += " [" + tag + "]";
    if (constructor !== null) {
      const superName = dataProp(ObjectGetPrototypeOf(value), "name");
      if (typeof superName === "string" && superName !== "") base += " extends " + superName;
    } else {
      base += " extends [null prototype]";
    }
    return "[" + base + "]";
  }

  function getFunctionBase(value, constructor, tag) {
    let stringified = "";
    try {
      stringified = FunctionPrototypeToString(value);
    } catch (e) {
      // a Proxy or an exotic callable: not a class
    }
    if (startsWith(stringified, "class") && endsWith(stringified, "}")) {
      const slice = StringPrototypeSlice(stringified, 5, -1);
      const bracketIndex = StringPrototypeIndexOf(slice, "{");
      if (bracketIndex !== -1 &&
          (!includes(StringPrototypeSlice(slice, 0, bracketIndex), "(") ||
           test(CLASS_RE, slice))) {
        return getClassBase(value, constructor, tag);
      }
    }
    const proto = ObjectGetPrototypeOf(value);
    let type = "Function";
    if (proto === GeneratorFunctionPrototype) type = "GeneratorFunction";
    else if (proto === AsyncFunctionPrototype) type = "AsyncFunction";
    else if (proto === AsyncGeneratorFunctionPrototype) type = "AsyncGeneratorFunction";
    let base = "[" + type;
    if (constructor === null) base += " (null prototype)";
    const name = functionName(value);
    base += name === "" ? " (anonymous)" : ": " + name;
    base += "]";
    if (constructor !== type && constructor !== null) base += " " + constructor;
    if (tag !== "" && constructor !== tag) base += " [" + tag + "]";
    return base;
  }

  function regExpToString(value) {
    let flags = "";
    for (let i = 0; i < RegExpFlagGetters.length; i += 2) {
      if (RegExpFlagGetters[i](value)) flags += RegExpFlagGetters[i + 1];
    }
    return "/" + RegExpSource(value) + "/" + flags;
  }

  function getBoxedBase(ctx, value, kind, constructor, tag) {
    let type;
    let prim;
    switch (kind) {
      case T_NUMBER: type = "Number"; prim = NumberPrototypeValueOf(value); break;
      case T_STRING: type = "String"; prim = StringPrototypeValueOf(value); break;
      case T_BOOLEAN: type = "Boolean"; prim = BooleanPrototypeValueOf(value); break;
      case T_BIGINT: type = "BigInt"; prim = BigIntPrototypeValueOf(value); break;
      default: type = "Symbol"; prim = SymbolPrototypeValueOf(value); break;
    }
    let base = "[" + type;
    if (type !== constructor) {
      base += constructor === null ? " (null prototype)" : " (" + constructor + ")";
    }
    base += ": " + formatPrimitive(ctx, prim) + "]";
    if (tag !== "" && tag !== constructor) base += " [" + tag + "]";
    return base;
  }

  // primitiveText renders a primitive read from an error's data property the
  // way String() would, without calling user code for objects.
  function primitiveText(v) {
    const t = typeof v;
    if (t === "string") return v;
    if (t === "symbol") return SymbolPrototypeToString(v);
    if (t === "object" || t === "function") return null;
    return "" + v;
  }

  function improveStack(stack, constructor, name, tag) {
    let len = name.length;
    if (constructor === null ||
        (endsWith(name, "Error") && startsWith(stack, name) &&
         (stack.length === len || stack[len] === ":" || stack[len] === "\n"))) {
      let fallback = "Error";
      if (constructor === null) {
        ERROR_NAME_RE.lastIndex = 0;
        let start = RegExpPrototypeExec(ERROR_NAME_RE, stack);
        if (start === null) {
          ERROR_NAME_ONLY_RE.lastIndex = 0;
          start = RegExpPrototypeExec(ERROR_NAME_ONLY_RE, stack);
        }
        fallback = (start !== null && start[1]) || "";
        len = fallback.length;
        fallback = fallback || "Error";
      }
      const prefix = StringPrototypeSlice(getPrefix(constructor, tag, fallback, ""), 0, -1);
      if (name !== prefix) {
        if (includes(prefix, name)) {
          if (len === 0) stack = prefix + ": " + stack;
          else stack = prefix + StringPrototypeSlice(stack, len);
        } else {
          stack = prefix + " [" + name + "]" + StringPrototypeSlice(stack, len);
        }
      }
    }
    return stack;
  }

  // formatError renders err as `name: message` followed by the engine's stack
  // frames, adjusted like Node (class name, null prototype, brackets when
  // there are no frames, indentation). keys/descs may lose name/message/stack
  // and gain cause/errors.
  function formatError(ctx, err, constructor, tag, keys, descs) {
    const nameVal = dataProp(err, "name");
    const msgVal = dataProp(err, "message");
    let name = nameVal === undefined || nameVal === null ? "Error" : primitiveText(nameVal);
    if (name === null) name = "Error";
    let msg = msgVal === undefined ? "" : primitiveText(msgVal);
    if (msg === null) msg = "";
    let header;
    if (name === "") header = msg;
    else if (msg === "") header = name;
    else header = name + ": " + msg;

    let stack = header;
    const frames = stackProp(err);
    if (typeof frames === "string" && frames !== "") {
      let f = frames;
      while (f.length > 0 && f[f.length - 1] === "\n") f = StringPrototypeSlice(f, 0, -1);
      if (startsWith(f, header + "\n")) stack = f;
      else if (f !== "" && f !== header) stack = header + "\n" + f;
    }

    // Drop keys whose values are already part of the text.
    if (keys.length !== 0) {
      const k2 = list();
      const d2 = list();
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i];
        if (k === "name" || k === "message" || k === "stack") {
          const v = descs[i].value;
          if (typeof v === "string" && includes(stack, v)) continue;
          // The frames rendered above, less their trailing newlines: on
          // QuickJS-NG 0.16 assigning err.stack makes an own enumerable
          // property (Node's is never enumerable).
          if (k === "stack" && v === frames && typeof v === "string") continue;
        }
        push(k2, k);
        push(d2, descs[i]);
      }
      keys.length = 0;
      descs.length = 0;
      for (let i = 0; i < k2.length; i++) {
        push(keys, k2[i]);
        push(descs, d2[i]);
      }
    }
    const extra = ["cause", "errors"];
    for (let j = 0; j < 2; j++) {
      const k = extra[j];
      let listed = false;
      for (let i = 0; i < keys.length; i++) if (keys[i] === k) listed = true;
      if (listed) continue;
      const d = gopd(err, k);
      if (d === undefined) continue;
      if (k === "errors" && !ArrayIsArray(d.value)) continue;
      push(keys, k);
      push(descs, d);
    }

    stack = improveStack(stack, constructor, name, tag);

    let pos = -1;
    if (msg !== "") {
      pos = StringPrototypeIndexOf(stack, msg);
      if (pos !== -1) pos += msg.length;
    }
    const stackStart = StringPrototypeIndexOf(stack, "\n    at", pos === -1 ? 0 : pos);
    if (stackStart === -1) stack = "[" + stack + "]";
    if (ctx.indentationLvl !== 0) stack = replaceNewlines(stack, "\n" + spaces(ctx.indentationLvl));
    return stack;
  }

  // ---- properties ------------------------------------------------------------------------------
  function formatPropertyValue(ctx, desc, recurseTimes) {
    const v = desc.value;
    if (v !== undefined) {
      ctx.indentationLvl += 2;
      const str = formatValue(ctx, v, recurseTimes);
      ctx.indentationLvl -= 2;
      return str;
    }
    if (desc.get !== undefined) return desc.set !== undefined ? "[Getter/Setter]" : "[Getter]";
    if (desc.set !== undefined) return "[Setter]";
    return "undefined";
  }

  function formatProperty(ctx, key, desc, recurseTimes) {
    const str = formatPropertyValue(ctx, desc, recurseTimes);
    let name;
    if (typeof key === "symbol") {
      name = "[" + escapeWith(ESCAPE_RE, SymbolPrototypeToString(key)) + "]";
    } else if (key === "__proto__") {
      name = "['__proto__']";
    } else if (desc.enumerable === false) {
      name = "[" + escapeWith(ESCAPE_RE, key) + "]";
    } else if (test(KEY_RE, key)) {
      name = key;
    } else {
      name = strEscape(key);
    }
    return name + ": " + str;
  }

  // ---- layout ------------------------------------------------------------------------------------
  function groupArrayElements(ctx, output, value, allNumeric, num) {
    let totalLength = 0;
    let maxLength = 0;
    let outputLength = output.length;
    if (MAX_ARRAY < output.length) outputLength--; // leave "... more items" out
    const separatorSpace = 2;
    const dataLen = list();
    // One test for the common case where every entry is printable ASCII.
    const ascii = !test(NOT_PRINTABLE_ASCII_RE, join(output, ""));
    for (let i = 0; i < outputLength; i++) {
      const len = ascii ? output[i].length : stringWidth(output[i]);
      dataLen[i] = len;
      totalLength += len + separatorSpace;
      if (maxLength < len) maxLength = len;
    }
    const actualMax = maxLength + separatorSpace;
    if (actualMax * 3 + ctx.indentationLvl < BREAK_LENGTH &&
        (totalLength / actualMax > 5 || maxLength <= 6)) {
      const averageBias = MathSqrt(actualMax - totalLength / output.length);
      const biasedMax = MathMax(actualMax - 3 - averageBias, 1);
      const columns = MathMin(
        MathRound(MathSqrt(2.5 * biasedMax * outputLength) / biasedMax),
        MathFloor((BREAK_LENGTH - ctx.indentationLvl) / actualMax),
        COMPACT * 4,
        15);
      if (columns <= 1) return output;
      const maxLineLength = list();
      for (let i = 0; i < columns; i++) {
        let lineLength = 0;
        for (let j = i; j < outputLength; j += columns) {
          if (dataLen[j] > lineLength) lineLength = dataLen[j];
        }
        maxLineLength[i] = lineLength + separatorSpace;
      }
      const padStart = allNumeric(value, output.length, num);
      const tmp = list();
      for (let i = 0; i < outputLength; i += columns) {
        const max = MathMin(i + columns, outputLength);
        let str = "";
        let j = i;
        for (; j < max - 1; j++) {
          const cell = output[j] + ", ";
          const pad = maxLineLength[j - i] + output[j].length - dataLen[j] - cell.length;
          str += padStart ? spaces(pad) + cell : cell + spaces(pad);
        }
        if (padStart) {
          const pad = maxLineLength[j - i] + output[j].length - dataLen[j] -
            separatorSpace - output[j].length;
          str += spaces(pad) + output[j];
        } else {
          str += output[j];
        }
        push(tmp, str);
      }
      if (MAX_ARRAY < output.length) push(tmp, output[outputLength]);
      return tmp;
    }
    return output;
  }

  // arrayAllNumeric: are value[0..n) all numbers or bigints (reading data
  // properties only; holes and accessors count as not numeric)? num holds
  // what formatArray already saw.
  function arrayAllNumeric(value, n, num) {
    if (n <= num.prefix) return true;
    if (num.prefix < num.scanned) return false;
    for (let i = num.scanned; i < n; i++) {
      const d = gopd(value, i);
      if (d === undefined) return false;
      const t = typeof d.value;
      if (t !== "number" && t !== "bigint") return false;
    }
    return true;
  }
  function typedAllNumeric(value, n, num) {
    const len = TypedArrayLength(value);
    return n <= len;
  }

  function isBelowBreakLength(output, start, base) {
    let totalLength = output.length + start;
    if (totalLength + output.length > BREAK_LENGTH) return false;
    for (let i = 0; i < output.length; i++) {
      totalLength += output[i].length;
      if (totalLength > BREAK_LENGTH) return false;
    }
    return base === "" || !includes(base, "\n");
  }

  function reduceToSingleString(ctx, output, base, braces0, braces1, extrasType,
    recurseTimes, value, allNumeric, num) {
    const entries = output.length;
    if (extrasType === K_ARRAY_EXTRAS && entries > 6) {
      output = groupArrayElements(ctx, output, value, allNumeric, num);
    }
    if (ctx.currentDepth - recurseTimes < COMPACT && entries === output.length) {
      const start = output.length + ctx.indentationLvl + braces0.length + base.length + 10;
      if (isBelowBreakLength(output, start, base)) {
        const joined = join(output, ", ");
        if (!includes(joined, "\n")) {
          return (base !== "" ? base + " " : "") + braces0 + " " + joined + " " + braces1;
        }
      }
    }
    const indentation = "\n" + spaces(ctx.indentationLvl);
    return (base !== "" ? base + " " : "") + braces0 + indentation + "  " +
      join(output, "," + indentation + "  ") + indentation + braces1;
  }

  // ---- the main formatter --------------------------------------------------------------------------
  function newContext(depth) {
    return {
      __proto__: null,
      depth: depth,
      indentationLvl: 0,
      currentDepth: 0,
      seen: list(),
      circular: list(),
      protoCache: list(),
    };
  }

  function fallbackText(value) {
    return typeof value === "function" ? "[object Function]" : "[object Object]";
  }

  function formatValue(ctx, value, recurseTimes) {
    const t = typeof value;
    if (t !== "object" && t !== "function") return formatPrimitive(ctx, value);
    if (value === null) return "null";
    const seen = ctx.seen;
    for (let i = 0; i < seen.length; i++) {
      if (seen[i] === value) {
        const circular = ctx.circular;
        let index = 0;
        for (let j = 0; j < circular.length; j++) {
          if (circular[j] === value) index = j + 1;
        }
        if (index === 0) {
          push(circular, value);
          index = circular.length;
        }
        return "[Circular *" + index + "]";
      }
    }
    const savedIndentation = ctx.indentationLvl;
    const savedSeen = seen.length;
    try {
      return formatRaw(ctx, value, recurseTimes);
    } catch (e) {
      ctx.indentationLvl = savedIndentation;
      seen.length = savedSeen;
      return fallbackText(value);
    }
  }

  function formatRaw(ctx, value, recurseTimes) {
    const info = { __proto__: null, ctor: null, kind: 0, tag: "" };
    describe(ctx, value, recurseTimes, info);
    const constructor = info.ctor;
    const kind = info.kind;
    const tag = info.tag;

    const keys = list();
    const descs = list();
    let base = "";
    let braces0 = "{";
    let braces1 = "}";
    let extrasType = K_OBJECT;
    let entries = null; // function (ctx, value, recurseTimes, output) filling output
    let allNumeric = arrayAllNumeric;
    const num = { __proto__: null, prefix: 0, scanned: 0 };
    let typedLength = 0;

    if (kind === T_ARRAY) {
      const len = value.length;
      const prefix = (constructor !== "Array" || tag !== "") ?
        getPrefix(constructor, tag, "Array", "(" + len + ")") : "";
      nonIndexEnumerable(value, keys, descs, len);
      braces0 = prefix + "[";
      braces1 = "]";
      if (len === 0 && keys.length === 0) return braces0 + "]";
      extrasType = K_ARRAY_EXTRAS;
      entries = formatArray;
    } else if (kind === T_SET) {
      const size = SetSize(value);
      const prefix = getPrefix(constructor, tag, "Set", "(" + size + ")");
      ownEnumerable(value, keys, descs, 0);
      if (size === 0 && keys.length === 0) return prefix + "{}";
      braces0 = prefix + "{";
      entries = formatSetEntries;
    } else if (kind === T_MAP) {
      const size = MapSize(value);
      const prefix = getPrefix(constructor, tag, "Map", "(" + size + ")");
      ownEnumerable(value, keys, descs, 0);
      if (size === 0 && keys.length === 0) return prefix + "{}";
      braces0 = prefix + "{";
      entries = formatMapEntries;
    } else if (kind === T_TYPED) {
      typedLength = TypedArrayLength(value);
      nonIndexEnumerable(value, keys, descs, typedLength);
      const fallback = constructor === null ? TypedArrayTag(value) : "";
      const prefix = getPrefix(constructor, tag, fallback, "(" + typedLength + ")");
      braces0 = prefix + "[";
      braces1 = "]";
      if (typedLength === 0 && keys.length === 0) return braces0 + "]";
      extrasType = K_ARRAY_EXTRAS;
      allNumeric = typedAllNumeric;
      entries = function (ctx, value, recurseTimes, output) {
        return formatTypedArray(ctx, value, typedLength, output);
      };
    } else {
      if (kind === T_STRING) {
        nonIndexEnumerable(value, keys, descs, StringPrototypeValueOf(value).length);
      } else {
        ownEnumerable(value, keys, descs, 0);
      }
      if (kind === T_FUNCTION) {
        base = getFunctionBase(value, constructor, tag);
        if (keys.length === 0) return base;
      } else if (constructor === "Object") {
        if ((keys.length === 0 || keys[0] === "0") && ObjectHasOwn(value, "callee") &&
            ObjectHasOwn(value, SymbolIterator)) {
          braces0 = "[Arguments] {";
        } else if (tag !== "") {
          braces0 = getPrefix(constructor, tag, "Object", "") + "{";
        }
        if (keys.length === 0) return braces0 + "}";
      } else if (kind === T_REGEXP) {
        base = regExpToString(value);
        const prefix = getPrefix(constructor, tag, "RegExp", "");
        if (prefix !== "RegExp ") base = prefix + base;
        if (keys.length === 0 || recurseTimes > ctx.depth) return base;
      } else if (kind === T_DATE) {
        base = NumberIsNaN(DatePrototypeGetTime(value)) ?
          DatePrototypeToString(value) : DatePrototypeToISOString(value);
        const prefix = getPrefix(constructor, tag, "Date", "");
        if (prefix !== "Date ") base = prefix + base;
        if (keys.length === 0) return base;
      } else if (kind === T_ERROR) {
        base = formatError(ctx, value, constructor, tag, keys, descs);
        if (keys.length === 0) return base;
      } else if (kind === T_ARRAYBUFFER || kind === T_SHAREDARRAYBUFFER) {
        const isShared = kind === T_SHAREDARRAYBUFFER;
        const prefix = getPrefix(constructor, tag, isShared ? "SharedArrayBuffer" : "ArrayBuffer", "");
        const byteLength = isShared ? SharedArrayBufferByteLength(value) : ArrayBufferByteLength(value);
        braces0 = prefix + "{";
        entries = formatArrayBufferContents2;
        unshiftKey(keys, descs, "byteLength", byteLength);
      } else if (kind === T_DATAVIEW) {
        braces0 = getPrefix(constructor, tag, "DataView", "") + "{";
        unshiftKey(keys, descs, "buffer", DataViewBuffer(value));
        unshiftKey(keys, descs, "byteOffset", DataViewByteOffset(value));
        unshiftKey(keys, descs, "byteLength", DataViewByteLength(value));
      } else if (kind === T_PROMISE) {
        braces0 = getPrefix(constructor, tag, "Promise", "") + "{";
        entries = formatPromiseEntries;
      } else if (kind === T_WEAKSET || kind === T_WEAKMAP) {
        braces0 = getPrefix(constructor, tag, kind === T_WEAKSET ? "WeakSet" : "WeakMap", "") + "{";
        entries = formatWeakEntries;
      } else if (kind === T_NUMBER || kind === T_STRING || kind === T_BOOLEAN ||
          kind === T_SYMBOL || kind === T_BIGINT) {
        base = getBoxedBase(ctx, value, kind, constructor, tag);
        if (keys.length === 0) return base;
      } else {
        if (keys.length === 0) return getCtxStyle(kind, constructor, tag) + "{}";
        braces0 = getCtxStyle(kind, constructor, tag) + "{";
      }
    }

    if (recurseTimes > ctx.depth) {
      let name = StringPrototypeSlice(getCtxStyle(kind, constructor, tag), 0, -1);
      if (constructor !== null) name = "[" + name + "]";
      return name;
    }
    recurseTimes += 1;
    const seen = ctx.seen;
    push(seen, value);
    ctx.currentDepth = recurseTimes;
    let output = list();
    if (entries === formatArray) output = formatArray(ctx, value, recurseTimes, output, num);
    else if (entries !== null) output = entries(ctx, value, recurseTimes, output);
    for (let i = 0; i < keys.length; i++) {
      push(output, formatProperty(ctx, keys[i], descs[i], recurseTimes));
    }
    const circular = ctx.circular;
    for (let j = 0; j < circular.length; j++) {
      if (circular[j] === value) {
        const reference = "<ref *" + (j + 1) + ">";
        base = base === "" ? reference : reference + " " + base;
        break;
      }
    }
    seen.length = seen.length - 1;
    return reduceToSingleString(ctx, output, base, braces0, braces1, extrasType,
      recurseTimes, value, allNumeric, num);
  }

  // unshiftKey puts a synthetic key first (the values Node reads through the
  // ArrayBuffer and DataView getters; here they come from captured getters).
  function unshiftKey(keys, descs, key, value) {
    for (let i = keys.length; i > 0; i--) {
      keys[i] = keys[i - 1];
      descs[i] = descs[i - 1];
    }
    keys[0] = key;
    descs[0] = { __proto__: null, value: value, enumerable: true };
  }

  function formatArrayBufferContents2(ctx, value, recurseTimes, output) {
    return formatArrayBufferContents(value, output);
  }
  function formatPromiseEntries(ctx, value, recurseTimes, output) {
    push(output, "<unknown>");
    return output;
  }
  function formatWeakEntries(ctx, value, recurseTimes, output) {
    push(output, "<items unknown>");
    return output;
  }

  // ---- API ---------------------------------------------------------------------------------------------
  function inspect(value) {
    try {
      checkDescriptors();
      return formatValue(newContext(DEPTH), value, 0);
    } catch (e) {
      return fallbackText(value);
    }
  }

  function formatLogArgs(args) {
    const n = args.length;
    let out = "";
    for (let i = 0; i < n; i++) {
      const v = args[i];
      const t = typeof v;
      let s;
      if (t === "string") s = v;
      else if (t === "number") s = (v === 0 && 1 / v < 0) ? "-0" : "" + v;
      else if (t === "boolean") s = v ? "true" : "false";
      else if (v === undefined) s = "undefined";
      else if (v === null) s = "null";
      else s = inspect(v);
      out = i === 0 ? s : out + " " + s;
    }
    return out;
  }

  const api = { __proto__: null };
  api.formatLogArgs = formatLogArgs;
  api.inspect = inspect;
  return api;
})
