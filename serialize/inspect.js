// inspect.js: guest-side console rendering (contract §5), part 1 of 3:
// the captured intrinsics, the constants and small helpers, and the text of
// strings and primitives.
//
// The three files inspect.js, inspect_kind.js and inspect_walk.js are, in
// that order, the body of ONE JavaScript function: serialize/js.go wraps
// them in `(function () { "use strict"; ... })` to make the factory
// (InspectJS) that the engine's prelude evaluates and calls once, before any
// user code runs. Each file is a run of whole declarations; the names are
// shared across the three (one function scope). The factory returns a
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
